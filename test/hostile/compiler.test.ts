/**
 * The compiler under hostile and careless input: files anyone with push access to a sites repo
 * writes, compiled in a repo-server sidecar many teams share. Every attack must end in a
 * positioned message (file:line:column, what is wrong, how to fix it), never a stack trace, a
 * RangeError or an object the hub rejects, and never cost more than the run's budgets.
 */
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { formatIssue } from '../../src/shared/errors.js';
import type { InputIssue } from '../../src/shared/errors.js';
import { defaultLimits } from '../../src/shared/limits.js';
import { fsSecretSource } from '../../src/plugins/fs-secret-source.js';
import { compileSiteConfig, filesFromMap, loadSiteConfigs } from '../../src/siteconfig/index.js';
import { parseGoTemplate, TemplateError } from '../../src/siteconfig/extra-manifests/index.js';
import type { LoadOptions, Manifest, SecretSource } from '../../src/siteconfig/index.js';
import { repoRoot, snoSite } from '../support/sites.js';

/** Line and column (1-based) of `value` on the first line containing `line`. */
function at(text: string, line: string, value = line): { line: number; column: number } {
  const rows = text.split('\n');
  const i = rows.findIndex((row) => row.includes(line));
  if (i < 0) throw new Error(`no line contains ${line}`);
  return { line: i + 1, column: rows[i]!.indexOf(value) + 1 };
}

function errors(text: string, options: LoadOptions = {}): InputIssue[] {
  return loadSiteConfigs([{ path: 'site.yaml', text }], options).issues.filter(
    (issue) => issue.severity === 'error',
  );
}

/** Code, line and column of every error, for comparing with `at`. */
function found(
  text: string,
  options: LoadOptions = {},
): { code: string; line: number; column: number }[] {
  return errors(text, options)
    .map(({ code, line, column }) => ({ code, line, column }))
    .sort((a, b) => a.line - b.line || a.column - b.column);
}

const secrets = (dirs: Record<string, Record<string, string | Uint8Array>>): SecretSource => ({
  readDirectory: (name) => dirs[name],
});

/** A single-node site whose node reads its BMC credentials from directory `bmc`. */
const fromDirectory = snoSite({
  node: '          bmcCredentials:\n            fromDirectory: bmc\n',
}).replace('          bmcCredentialsName:\n            name: sno1-bmc\n', '');

/** A single-node site whose pull secret comes from directory `pull`. */
const pullFromDirectory = snoSite().replace(
  '  clusterImageSetNameRef',
  '  pullSecret:\n    fromDirectory: pull\n  clusterImageSetNameRef',
);

function secretData(
  text: string,
  dirs: Record<string, Record<string, string | Uint8Array>>,
): Record<string, string> {
  const { sites, issues } = loadSiteConfigs([{ path: 'site.yaml', text }], {
    secrets: secrets(dirs),
  });
  expect(issues.filter((i) => i.severity === 'error').map(formatIssue)).toEqual([]);
  const manifests: Manifest[] = sites.flatMap((s) =>
    compileSiteConfig(s.siteConfig, s.resources).flatMap((c) => c.manifests),
  );
  const secret = manifests.find((m) => m.kind === 'Secret') as unknown as {
    data: Record<string, string>;
  };
  return Object.fromEntries(
    Object.entries(secret.data).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]),
  );
}

// ---------------------------------------------------------------------------------------------
// Budgets (issue 9, item 3)

/** A SiteConfig of `count` single-node clusters that render the templates of folder `tmpl`. */
function fleetWithTemplates(count: number): string {
  const clusters = Array.from(
    { length: count },
    (_, i) => `    - clusterName: c${String(i)}
      machineNetwork:
        - cidr: 10.0.0.0/24
      extraManifests:
        searchPaths: [tmpl]
      nodes:
        - hostName: n${String(i)}
          bmcAddress: redfish-virtualmedia://10.0.1.1/redfish/v1/Systems/1
          bmcCredentialsName:
            name: bmc
          bootMACAddress: "aa:bb:cc:00:${(i >> 8).toString(16).padStart(2, '0')}:${(i & 255).toString(16).padStart(2, '0')}"
`,
  ).join('');
  return `apiVersion: ran.openshift.io/v1
kind: SiteConfig
metadata:
  name: fleet
spec:
  baseDomain: example.com
  pullSecretRef:
    name: pull-secret
  clusterImageSetNameRef: openshift-4.18
  clusters:
${clusters}`;
}

const defaults = {
  files: filesFromMap({ 'defaults/default/.keep': '' }),
  dir: 'defaults',
};

describe('budgets', () => {
  it('stops a template rendered for 200 clusters once the run has spent its template steps', () => {
    // A 3-line template that costs about two million steps for each cluster that renders it.
    const template =
      '{{ range 990 }}\n{{ range 1000 }}{{ $.Data.ClusterName }}{{ end }}\n{{ end }}\n';
    const found = errors(fleetWithTemplates(200), {
      files: filesFromMap({ 'tmpl/x.yaml.tmpl': template }),
      defaultExtraManifests: defaults,
      limits: { ...defaultLimits, templateSteps: 300_000 },
    });
    expect(found).toHaveLength(200);
    expect(found.every((issue) => issue.code === 'LIMIT_TEMPLATE_STEPS')).toBe(true);
    // The budget is the run's: every cluster after the first is refused at once.
    expect(found[199]!.message).toBe(
      'tmpl/x.yaml.tmpl:1: rendering for role master: the templates of this run took more than 300000 steps (a loop that never ends?)',
    );
    expect(found[199]!.hint).toMatch(
      /^raise it with --limit template-steps=N or SITEFORGE_LIMIT_TEMPLATE_STEPS=N/,
    );
  });

  it("bounds one rendering's output by templateOutputBytes and says how to raise it", () => {
    const template = 'a: {{ range 200 }}0123456789{{ end }}\n';
    const [issue, ...rest] = errors(fleetWithTemplates(1), {
      files: filesFromMap({ 'tmpl/x.yaml.tmpl': template }),
      defaultExtraManifests: defaults,
      limits: { ...defaultLimits, templateOutputBytes: 1_000 },
    });
    expect(rest).toEqual([]);
    const text = fleetWithTemplates(1);
    expect(issue).toMatchObject({
      code: 'LIMIT_TEMPLATE_OUTPUT_BYTES',
      message:
        'tmpl/x.yaml.tmpl:1: rendering for role master: the output is larger than 1000 bytes',
      ...at(text, 'searchPaths: [tmpl]', 'tmpl'),
    });
    expect(issue!.hint).toMatch(
      /^raise it with --limit template-output-bytes=N or SITEFORGE_LIMIT_TEMPLATE_OUTPUT_BYTES=N/,
    );
  });

  it('quotes a huge value in a message by its first characters and its length', () => {
    const name = `A${'x'.repeat(1_000_000)}`;
    const text = snoSite().replace('clusterName: sno1', `clusterName: ${name}`);
    const shown = errors(text).map(formatIssue).join('\n');
    expect(shown.length).toBeLessThan(2_000);
    expect(shown).toContain(
      `clusterName "A${'x'.repeat(79)}"… (1000001 characters) is not a valid namespace name`,
    );
  });

  it('escapes control characters of a quoted value, so a message cannot drive the terminal', () => {
    const text = snoSite().replace('clusterName: sno1', 'clusterName: "bad\\e[2Jname"');
    expect(errors(text).map((i) => i.message)).toContain(
      'clusterName "bad\\u001b[2Jname" is not a valid namespace name',
    );
  });

  it('limits host names to what the names and labels derived from them can hold', () => {
    const long = `h${'x'.repeat(244)}`; // 245 characters: a DNS name, but <name>-bmc-secret is 256
    const text = fromDirectory.replace('hostName: sno1-node', `hostName: ${long}`);
    expect(found(text, { secrets: secrets({ bmc: { username: 'u', password: 'p' } }) })).toEqual([
      { code: 'HOSTNAME_INVALID', ...at(text, long) },
    ]);
    const ci = readFileSync(
      join(repoRoot, 'examples/clusterinstance/clusterinstance-sno.yaml'),
      'utf8',
    );
    const label = 'h'.repeat(64);
    const longCi = ci.replace('hostName: ci-sno-1.edge.example.com', `hostName: ${label}`);
    expect(found(longCi)).toEqual([{ code: 'HOSTNAME_INVALID', ...at(longCi, label) }]);
  });
});

// ---------------------------------------------------------------------------------------------
// Internal errors (issue 9, item 4)

function render(text: string, data: unknown = {}): string {
  return parseGoTemplate('t.tmpl', text).execute(data);
}

describe('Go templates never throw anything but a positioned TemplateError', () => {
  it('prints runes out of range as U+FFFD with %c and %q, as Go does', () => {
    expect(render('{{ printf "%c|%c|%c|%c" 65 -1 1114112 55296 }}')).toBe('A|\uFFFD|\uFFFD|\uFFFD');
    expect(render('{{ printf "%q|%q|%q" 39 10 2000000 }}')).toBe("'\\''|'\\n'|'\uFFFD'");
  });

  it('answers huge widths and precisions as Go fmt does, without building the string', () => {
    expect(render('{{ printf "%999999999d" 5 }}')).toBe('%!(NOVERB)%!(EXTRA int=5)');
    expect(render('{{ printf "%*d|%.*d" 2000000 5 2000000 7 }}')).toBe(
      '%!(BADWIDTH)5|%!(BADPREC)7',
    );
    const failure = (() => {
      try {
        render('{{ printf "%9999999d" 5 }}');
      } catch (err) {
        return err;
      }
      return undefined;
    })();
    expect(failure).toBeInstanceOf(TemplateError);
    expect((failure as TemplateError).detail).toMatch(/^the output is larger than 4194304 bytes/);
  });

  it('formats floats at any precision from their exact value, rounding half to even', () => {
    expect(render('{{ printf "%.200f" .x }}', { x: 1.5 })).toBe(`1.5${'0'.repeat(199)}`);
    expect(
      render('{{ printf "%.0f %.0f %.0f %.1f" .a .b .c .d }}', { a: 0.5, b: 1.5, c: 2.5, d: 0.05 }),
    ).toBe('0 2 2 0.1');
    expect(
      render('{{ printf "%e %.3g %g %v" .a .b .c .d }}', {
        a: 1234.5678,
        b: 1234567.5,
        c: 1e-7,
        d: 1234567.5,
      }),
    ).toBe('1.234568e+03 1.23e+06 1e-07 1.2345675e+06');
  });

  it('refuses actions nested thousands deep with a parse error at their line', () => {
    const ifs = `${'{{ if true }}'.repeat(5_000)}x${'{{ end }}'.repeat(5_000)}`;
    const parens = `{{ ${'('.repeat(5_000)}1${')'.repeat(5_000)} }}`;
    for (const text of [ifs, parens]) {
      let failure: unknown;
      try {
        parseGoTemplate('t', text);
      } catch (err) {
        failure = err;
      }
      expect(failure).toBeInstanceOf(TemplateError);
      expect((failure as TemplateError).detail).toBe(
        'actions nest more than 200 levels deep (if, with, range and parentheses together)',
      );
    }
    expect(render(`${'{{ if true }}'.repeat(200)}x${'{{ end }}'.repeat(200)}`)).toBe('x');
  });

  it('reports a deeply nested extra-manifest template at the searchPaths entry', () => {
    const template = `${'{{ with . }}'.repeat(3_000)}${'{{ end }}'.repeat(3_000)}`;
    expect(
      errors(fleetWithTemplates(1), {
        files: filesFromMap({ 'tmpl/x.yaml.tmpl': template }),
        defaultExtraManifests: defaults,
      }).map((i) => [i.code, i.message]),
    ).toEqual([
      [
        'TEMPLATE_INVALID',
        'tmpl/x.yaml.tmpl:1: actions nest more than 200 levels deep (if, with, range and parentheses together)',
      ],
    ]);
  });

  it('treats crTemplates placeholders naming JavaScript built-ins as unknown fields, as Go does', () => {
    const text = snoSite({ node: '          crTemplates:\n            BareMetalHost: bmh.yaml\n' });
    const bmh = `apiVersion: metal3.io/v1alpha1
kind: BareMetalHost
metadata:
  name: "{{ .Node.HostName }}"
  namespace: "{{ .Site.constructor }}"
  annotations:
    argocd.argoproj.io/sync-wave: "{{ .Cluster.toString }}"
    x: "{{ .Site.hasOwnProperty }}"
    y: "{{ .Cluster.Nodes.length }}"
`;
    const issues = errors(text, { files: filesFromMap({ 'bmh.yaml': bmh }) });
    expect(issues.map((i) => [i.code, i.message])).toEqual([
      [
        'TEMPLATE_PLACEHOLDER',
        'bmh.yaml at metadata.namespace: {{ .Site.constructor }} names no field of the site',
      ],
      [
        'TEMPLATE_PLACEHOLDER',
        'bmh.yaml at metadata.annotations.argocd.argoproj.io/sync-wave: {{ .Cluster.toString }} names no field of the cluster',
      ],
      [
        'TEMPLATE_PLACEHOLDER',
        'bmh.yaml at metadata.annotations.x: {{ .Site.hasOwnProperty }} names no field of the site',
      ],
      [
        'TEMPLATE_PLACEHOLDER',
        'bmh.yaml at metadata.annotations.y: {{ .Cluster.Nodes.length }} names no field of the cluster',
      ],
    ]);
  });
});

// ---------------------------------------------------------------------------------------------
// Objects the hub would reject (issue 9, item 7)

describe('refuses what the hub would reject, at the offending value', () => {
  it('checks annotation keys and their total size, and label values of nodes', () => {
    const text = snoSite({
      cluster: `      crAnnotations:\n        add:\n          ManagedCluster:\n            "bad key!": x\n            ok.example.com/Fine: y\n`,
      node: `          nodeLabels:\n            role: "not ok!"\n          crAnnotations:\n            add:\n              BareMetalHost:\n                big: "${'x'.repeat(262_144)}"\n`,
    });
    expect(found(text)).toEqual([
      { code: 'ANNOTATION_INVALID', ...at(text, 'bad key!', '"bad key!"') },
      { code: 'LABEL_INVALID', ...at(text, 'not ok!', '"not ok!"') },
      { code: 'ANNOTATION_INVALID', ...at(text, '              BareMetalHost:', 'BareMetalHost') },
    ]);
    expect(errors(text).map((i) => i.message)).toContain(
      'the annotations for BareMetalHost have 262147 bytes; Kubernetes takes at most 262144 per object',
    );
  });

  it('refuses .inf, .nan, 1e+30 and fractions in integer fields', () => {
    const partition = (size: string, start: string): string =>
      `          diskPartition:\n            - device: /dev/sdb\n              partitions:\n                - mount_point: /var/x\n                  size: ${size}\n                  start: ${start}\n`;
    // What JSON Schema's integer refuses itself: .nan and fractions, and .inf past a maximum.
    const schema = snoSite({
      cluster: '      clusterNetwork:\n        - cidr: 10.128.0.0/14\n          hostPrefix: .inf\n',
      node: partition('.nan', '25000.5'),
    });
    const issues = errors(schema);
    expect(issues.map(({ code, line, column }) => ({ code, line, column }))).toEqual([
      { code: 'NUMBER_NOT_INTEGER', ...at(schema, '.inf') },
      { code: 'NUMBER_NOT_INTEGER', ...at(schema, '.nan') },
      { code: 'NUMBER_NOT_INTEGER', ...at(schema, '25000.5') },
    ]);
    expect(issues[0]!.message).toBe(
      '"spec.clusters.0.clusterNetwork.0.hostPrefix" must be a whole number, not .inf',
    );
    // What it lets through, having no fraction: .inf and 1e+30.
    const rules = snoSite({
      node: `          rootDeviceHints:\n            minSizeGigabytes: 1e+30\n${partition('30000', '.inf')}`,
    });
    expect(found(rules)).toEqual([
      { code: 'NUMBER_NOT_INTEGER', ...at(rules, '1e+30') },
      { code: 'NUMBER_NOT_INTEGER', ...at(rules, '.inf') },
    ]);
  });

  it('refuses a base domain that is no DNS domain', () => {
    for (const domain of ['"bad_domain.com"', 'example..com', `${'a'.repeat(64)}.com`]) {
      const text = snoSite().replace('baseDomain: example.com', `baseDomain: ${domain}`);
      expect(found(text)).toEqual([{ code: 'BASE_DOMAIN_INVALID', ...at(text, domain) }]);
    }
  });

  it('refuses template references of a ClusterInstance that no ConfigMap can have', () => {
    const ci = readFileSync(
      join(repoRoot, 'examples/clusterinstance/clusterinstance-sno.yaml'),
      'utf8',
    )
      .replace('- name: ai-cluster-templates-v1', '- name: AI Cluster Templates')
      .replace('namespace: open-cluster-management\n  nodes:', 'namespace: ocm.example\n  nodes:');
    expect(found(ci)).toEqual([
      { code: 'REFERENCE_NAME_INVALID', ...at(ci, 'AI Cluster Templates') },
      { code: 'REFERENCE_NAME_INVALID', ...at(ci, 'ocm.example') },
    ]);
  });

  it('refuses reference names that no Kubernetes object can have', () => {
    const text = snoSite()
      .replace('clusterImageSetNameRef: openshift-4.18', 'clusterImageSetNameRef: "Bad Name!"')
      .replace('    name: pull-secret', '    name: "Bad Name!"')
      .replace('            name: sno1-bmc', '            name: "Bad_Name"');
    expect(found(text)).toEqual([
      { code: 'REFERENCE_NAME_INVALID', ...at(text, '    name: "Bad Name!"', '"Bad') },
      { code: 'REFERENCE_NAME_INVALID', ...at(text, 'clusterImageSetNameRef', '"Bad') },
      { code: 'REFERENCE_NAME_INVALID', ...at(text, 'Bad_Name', '"Bad_Name"') },
    ]);
  });
});

describe('credentials read from a directory', () => {
  const where = at(fromDirectory, 'fromDirectory: bmc', 'bmc');

  it('drops one trailing newline, as siteforge bmc --password-file does, and only one', () => {
    expect(
      secretData(fromDirectory, { bmc: { username: 'admin\n', password: 'pa ss\r\n' } }),
    ).toEqual({
      username: 'admin',
      password: 'pa ss',
    });
    expect(secretData(fromDirectory, { bmc: { username: 'admin\n\n', password: 'x' } })).toEqual({
      username: 'admin\n',
      password: 'x',
    });
  });

  it('refuses an empty credential and bytes that are not UTF-8, at the fromDirectory entry', () => {
    const issues = errors(fromDirectory, {
      secrets: secrets({ bmc: { username: '\n', password: new Uint8Array([0x70, 0xff, 0x0a]) } }),
    });
    expect(
      issues.map(({ code, line, column, message }) => ({ code, line, column, message })),
    ).toEqual([
      {
        code: 'CREDENTIAL_EMPTY',
        ...where,
        message: 'BMC credentials file "bmc/username" is empty',
      },
      {
        code: 'CREDENTIAL_NOT_UTF8',
        ...where,
        message: 'BMC credentials file "bmc/password" is not UTF-8 text',
      },
    ]);
  });

  it('refuses a pull secret that is not JSON with an auths map, without showing its content', () => {
    for (const content of [
      'not json secret-value',
      '{"secret-value":{}}',
      '{"auths":"secret-value"}',
    ]) {
      const issues = errors(pullFromDirectory, {
        secrets: secrets({ pull: { '.dockerconfigjson': content } }),
      });
      expect(issues.map(({ code, line, column }) => ({ code, line, column }))).toEqual([
        { code: 'PULL_SECRET_INVALID', ...at(pullFromDirectory, 'fromDirectory: pull', 'pull') },
      ]);
      expect(JSON.stringify(issues)).not.toContain('secret-value');
    }
  });

  describe('from the file system', () => {
    const dir = mkdtempSync(join(tmpdir(), 'siteforge-hostile-'));
    afterAll(() => {
      rmSync(dir, { recursive: true, force: true });
    });

    it('reads bytes, so that a Latin-1 password is refused instead of silently replaced', () => {
      mkdirSync(join(dir, 'bmc'));
      writeFileSync(join(dir, 'bmc', 'username'), 'admin\n');
      writeFileSync(join(dir, 'bmc', 'password'), Buffer.from([0x70, 0xe4, 0x73, 0x73]));
      expect(found(fromDirectory, { secrets: fsSecretSource(dir) })).toEqual([
        { code: 'CREDENTIAL_NOT_UTF8', ...where },
      ]);
    });
  });
});
