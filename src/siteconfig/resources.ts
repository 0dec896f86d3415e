/**
 * Resources: what a SiteConfig pulls in from outside itself, read through the SiteFiles and
 * SecretSource ports while the SiteConfig is validated, so every problem is reported at the
 * field that refers to the file. The compiler then works on these resolved values only.
 *
 * - crTemplates (node → cluster → site lookup) with siteconfig-generator's whole-value
 *   placeholders `{{ .Site.X }}`, `{{ .Cluster.X }}`, `{{ .Node.X }}`;
 * - biosConfigRef files (node → cluster → site), the settings of a HostFirmwareSettings;
 * - credentials read at render time (`fromDirectory`) for BMC and pull Secrets.
 */
import { credentialText } from '../shared/credential-text.js';
import { quote } from '../shared/errors.js';
import { posix } from 'node:path';
import { parseYamlFile } from '../shared/source-yaml.js';
import type { SourceDocument } from '../shared/source-yaml.js';
import { ClusterKinds, NodeKinds } from './schema.js';
import { describeTried, firstFound, SITE_PATH_HINT, sitePathCandidates } from './site-files.js';
import type { SiteFiles } from './site-files.js';
import type { SiteConfig, SiteConfigCluster, SiteConfigNode } from './types.js';

/** A crTemplate, rendered for one cluster or node: the complete object that replaces the default. */
export interface TemplateOverride {
  readonly kind: string;
  /** Where the SiteConfig names the template (`spec.clusters.0.crTemplates.KlusterletAddonConfig`). */
  readonly path: readonly (string | number)[];
  /** The template file, as resolved. */
  readonly file: string;
  readonly manifest: Readonly<Record<string, unknown>>;
}

/**
 * Credentials as the compiler uses them: file name → text, checked (UTF-8, not empty) and
 * without the trailing newline of the file.
 */
export type SecretFiles = Readonly<Record<string, string>>;

/** The files of a secret-source directory as read: file name → bytes (or text, from code). */
export type RawSecretFiles = Readonly<Record<string, Uint8Array | string>>;

/** What one node refers to. */
export interface NodeResources {
  readonly templates: Readonly<Record<string, TemplateOverride>>;
  readonly biosSettings?: Readonly<Record<string, string>>;
  readonly bmcCredentials?: SecretFiles;
}

/** What one cluster refers to. */
export interface ClusterResources {
  readonly templates: Readonly<Record<string, TemplateOverride>>;
  /** Extra-manifests ConfigMap data: file name → manifest YAML. */
  readonly extraManifests: Readonly<Record<string, string>>;
  readonly pullSecret?: SecretFiles;
  readonly nodes: readonly NodeResources[];
}

/** Everything a SiteConfig refers to, per cluster in spec order. */
export interface SiteResources {
  readonly clusters: readonly ClusterResources[];
}

/** Resources of a SiteConfig that refers to nothing outside itself. */
export function emptyResources(site: SiteConfig): SiteResources {
  return {
    clusters: site.spec.clusters.map((cluster) => ({
      templates: {},
      extraManifests: {},
      nodes: cluster.nodes.map(() => ({ templates: {} })),
    })),
  };
}

/**
 * Read access to credentials kept outside git (a mounted Kubernetes Secret in the Argo CD
 * sidecar, a directory given with --secrets-dir). `fromDirectory` names a sub-directory.
 */
export interface SecretSource {
  /**
   * The files of a directory (name → content), or undefined when there is none. Give bytes as
   * read: the compiler decodes them, refusing what is not UTF-8.
   */
  readDirectory(name: string): RawSecretFiles | undefined;
}

/**
 * What `fromDirectory` may name: one sub-directory of the secrets directory, by name. Not `.`
 * (the secrets directory itself), not `a/b`, nothing that leaves it, no hidden `..data` links.
 */
export const SECRET_DIRECTORY_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,252}$/;

/** A secret source that has no secrets: every `fromDirectory` is reported as missing. */
export const NO_SECRETS: SecretSource = { readDirectory: () => undefined };

/** A problem found while resolving, at a path below the SiteConfig document. */
export interface ResourceProblem {
  readonly path: readonly (string | number)[];
  readonly code: string;
  readonly message: string;
  readonly hint: string;
}

/** A template file that does not exist, in the parsed-templates cache. */
const MISSING = '\0missing';

const PLACEHOLDER = /^\{\{\s*\.(Site|Cluster|Node)((?:\.[A-Za-z0-9_]+)+)\s*\}\}$/;

/**
 * Finds a field by its Go struct name (`ClusterName`) or YAML name (`clusterName`), among the
 * value's own fields only: `.Site.constructor` or `.Cluster.toString` name no field, as in Go,
 * instead of reaching JavaScript's prototype.
 */
function field(value: unknown, name: string): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const record = value as Record<string, unknown>;
  if (Object.hasOwn(record, name)) return record[name];
  const lower = name.toLowerCase();
  const key = Object.keys(record).find((k) => k.toLowerCase() === lower);
  return key === undefined ? undefined : record[key];
}

/** Values siteconfig-generator computes and exposes to templates besides the input fields. */
function computedCluster(cluster: SiteConfigCluster): Record<string, unknown> {
  const masters = cluster.nodes.filter((n) => (n.role ?? 'master') === 'master').length;
  return {
    ...cluster,
    NumMasters: masters,
    NumWorkers: masters === 1 ? 0 : cluster.nodes.length - masters,
    ClusterType: masters === 1 ? 'sno' : 'standard',
  };
}

interface TemplateScope {
  readonly site: SiteConfig;
  readonly cluster: SiteConfigCluster;
  readonly node?: SiteConfigNode;
}

/** Collects resources for one SiteConfig, reporting problems by SiteConfig path. */
export class ResourceResolver {
  readonly problems: ResourceProblem[] = [];
  /** The files found and read (crTemplates, BIOS settings), as resolved. */
  readonly filesRead: string[] = [];
  private readonly parsedTemplates = new Map<string, SourceDocument | string>();

  /** `root`: the kustomization root, tried before the SiteConfig's folder (site-files.ts). */
  constructor(
    private readonly siteFile: string,
    private readonly files: SiteFiles,
    private readonly secrets: SecretSource,
    private readonly root?: string,
  ) {}

  resolve(
    site: SiteConfig,
    extraManifests: (clusterIndex: number) => Readonly<Record<string, string>>,
  ): SiteResources {
    const pullSecret = this.pullSecret(site);
    return {
      clusters: site.spec.clusters.map((cluster, c) => {
        const at = ['spec', 'clusters', c];
        return {
          templates: this.templates(
            ClusterKinds,
            [
              { level: cluster.crTemplates, path: [...at, 'crTemplates'] },
              { level: site.spec.crTemplates, path: ['spec', 'crTemplates'] },
            ],
            { site, cluster },
          ),
          extraManifests: extraManifests(c),
          ...(pullSecret ? { pullSecret } : {}),
          nodes: cluster.nodes.map((node, n) => {
            const nodeAt = [...at, 'nodes', n];
            const bios = this.bios([
              { ref: node.biosConfigRef, path: [...nodeAt, 'biosConfigRef', 'filePath'] },
              { ref: cluster.biosConfigRef, path: [...at, 'biosConfigRef', 'filePath'] },
              { ref: site.spec.biosConfigRef, path: ['spec', 'biosConfigRef', 'filePath'] },
            ]);
            const credentials = this.bmcCredentials(node, nodeAt);
            return {
              templates: this.templates(
                NodeKinds,
                [
                  { level: node.crTemplates, path: [...nodeAt, 'crTemplates'] },
                  { level: cluster.crTemplates, path: [...at, 'crTemplates'] },
                  { level: site.spec.crTemplates, path: ['spec', 'crTemplates'] },
                ],
                { site, cluster, node },
              ),
              ...(bios ? { biosSettings: bios } : {}),
              ...(credentials ? { bmcCredentials: credentials } : {}),
            };
          }),
        };
      }),
    };
  }

  private problem(
    path: readonly (string | number)[],
    code: string,
    message: string,
    hint: string,
  ): void {
    this.problems.push({ path, code, message, hint });
  }

  /** The first level that names a kind wins: node, then cluster, then site. */
  private templates(
    kinds: readonly string[],
    levels: { level: Readonly<Record<string, string>> | undefined; path: (string | number)[] }[],
    scope: TemplateScope,
  ): Record<string, TemplateOverride> {
    const out: Record<string, TemplateOverride> = {};
    for (const kind of kinds) {
      const found = levels.find((l) => l.level?.[kind] !== undefined);
      if (!found) continue;
      const override = this.renderTemplate(kind, found.level![kind]!, [...found.path, kind], scope);
      if (override) out[kind] = override;
    }
    return out;
  }

  /** The template parsed, or why it is invalid; undefined when there is no such file. */
  private readTemplate(file: string): SourceDocument | string | undefined {
    let parsed = this.parsedTemplates.get(file);
    if (parsed !== undefined) return parsed === MISSING ? undefined : parsed;
    const text = this.files.readText(file);
    if (text === undefined) parsed = MISSING;
    else {
      const result = parseYamlFile(file, text);
      const first = result.errors[0];
      if (first)
        parsed = `${file}:${String(first.pos.line)}:${String(first.pos.column)}: ${first.message}`;
      else if (result.documents.length !== 1)
        parsed = `${file} holds ${String(result.documents.length)} YAML documents; a crTemplate holds exactly one object`;
      else parsed = result.documents[0]!;
    }
    this.parsedTemplates.set(file, parsed);
    return parsed === MISSING ? undefined : parsed;
  }

  private renderTemplate(
    kind: string,
    ref: string,
    path: (string | number)[],
    scope: TemplateScope,
  ): TemplateOverride | undefined {
    const candidates = sitePathCandidates(this.siteFile, ref, this.root);
    const found = firstFound(candidates, (file) => this.readTemplate(file));
    if (!found) {
      this.problem(
        path,
        'TEMPLATE_NOT_FOUND',
        `crTemplate ${ref} for ${kind} not found: ${describeTried(candidates)}`,
        SITE_PATH_HINT,
      );
      return undefined;
    }
    const { path: file, value: parsed } = found;
    this.filesRead.push(file);
    if (typeof parsed === 'string') {
      this.problem(
        path,
        'TEMPLATE_INVALID',
        parsed,
        'a crTemplate is one YAML object of the kind it overrides',
      );
      return undefined;
    }
    const value = parsed.value as Record<string, unknown> | null;
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      this.problem(
        path,
        'TEMPLATE_INVALID',
        `${file} is not a YAML object`,
        `write a complete ${kind} object`,
      );
      return undefined;
    }
    if (value['kind'] !== kind) {
      this.problem(
        path,
        'TEMPLATE_WRONG_KIND',
        `${file} holds a ${String(value['kind'])}, not a ${kind}`,
        `point crTemplates.${kind} at a ${kind} template`,
      );
      return undefined;
    }
    const errors: string[] = [];
    const manifest = this.substitute(value, scope, file, errors, []) as Record<string, unknown>;
    for (const error of errors)
      this.problem(
        path,
        'TEMPLATE_PLACEHOLDER',
        error,
        'placeholders are whole values like "{{ .Cluster.ClusterName }}" naming an existing field',
      );
    return errors.length > 0 ? undefined : { kind, path, file, manifest };
  }

  private substitute(
    value: unknown,
    scope: TemplateScope,
    file: string,
    errors: string[],
    at: (string | number)[],
  ): unknown {
    if (Array.isArray(value))
      return value.map((item, i) => this.substitute(item, scope, file, errors, [...at, i]));
    if (value !== null && typeof value === 'object') {
      const out: Record<string, unknown> = {};
      for (const [key, child] of Object.entries(value))
        out[key] = this.substitute(child, scope, file, errors, [...at, key]);
      return out;
    }
    if (typeof value !== 'string' || !value.includes('{{')) return value;
    const where = `${file} at ${at.join('.')}`;
    const match = PLACEHOLDER.exec(value);
    if (!match) {
      errors.push(`${where}: ${quote(value)} is not a whole-value placeholder`);
      return value;
    }
    const root =
      match[1] === 'Site'
        ? scope.site.spec
        : match[1] === 'Cluster'
          ? computedCluster(scope.cluster)
          : scope.node;
    if (root === undefined) {
      errors.push(
        `${where}: .Node placeholders only work in node templates (BareMetalHost, NMStateConfig, HostFirmwareSettings)`,
      );
      return value;
    }
    let current: unknown = root;
    for (const name of match[2]!.slice(1).split('.')) current = field(current, name);
    if (current === undefined)
      errors.push(`${where}: ${value} names no field of the ${match[1]!.toLowerCase()}`);
    return current;
  }

  private bios(
    levels: { ref: { filePath: string } | undefined; path: (string | number)[] }[],
  ): Record<string, string> | undefined {
    const found = levels.find((l) => l.ref !== undefined);
    if (!found) return undefined;
    const ref = found.ref!.filePath;
    const candidates = sitePathCandidates(this.siteFile, ref, this.root);
    const read = firstFound(candidates, (path) => this.files.readText(path));
    if (!read) {
      this.problem(
        found.path,
        'BIOS_FILE_NOT_FOUND',
        `BIOS settings file ${ref} not found: ${describeTried(candidates)}`,
        SITE_PATH_HINT,
      );
      return undefined;
    }
    const { path: file, value: text } = read;
    this.filesRead.push(file);
    const parsed = parseYamlFile(file, text);
    const value = parsed.documents[0]?.value;
    if (
      parsed.errors.length > 0 ||
      value === null ||
      typeof value !== 'object' ||
      Array.isArray(value)
    ) {
      const first = parsed.errors[0];
      this.problem(
        found.path,
        'BIOS_FILE_INVALID',
        first
          ? `${file}:${String(first.pos.line)}:${String(first.pos.column)}: ${first.message}`
          : `${file} is not a map of BIOS settings`,
        'write one "Setting: value" per line, e.g. "ProcTurboMode: Disabled"',
      );
      return undefined;
    }
    const settings: Record<string, string> = {};
    for (const [key, setting] of Object.entries(value)) {
      if (setting === null || typeof setting === 'object') {
        this.problem(
          found.path,
          'BIOS_FILE_INVALID',
          `${file}: setting ${key} is not a single value`,
          'BIOS settings are strings or numbers',
        );
        return undefined;
      }
      settings[key] = String(setting);
    }
    return settings;
  }

  private secretFiles(
    name: string,
    required: readonly string[],
    path: (string | number)[],
    what: string,
  ): SecretFiles | undefined {
    if (!SECRET_DIRECTORY_NAME.test(name)) {
      this.problem(
        path,
        'SECRET_DIRECTORY_INVALID',
        posix.normalize(name).startsWith('..') || posix.isAbsolute(name)
          ? `fromDirectory ${quote(name)} leaves the secrets directory`
          : `fromDirectory ${quote(name)} is not the name of a sub-directory of the secrets directory`,
        'name one sub-directory of the secrets directory (letters, digits, ".", "_", "-"), e.g. du-sno-1-bmc',
      );
      return undefined;
    }
    const files = this.secrets.readDirectory(name);
    if (!files) {
      this.problem(
        path,
        'SECRET_DIRECTORY_NOT_FOUND',
        `${what} directory ${quote(name)} is not in the secrets directory`,
        'mount the credentials (siteforge --secrets-dir DIR, or the Argo CD plugin secret volume) with this sub-directory',
      );
      return undefined;
    }
    const missing = required.filter((key) => !Object.hasOwn(files, key));
    if (missing.length > 0) {
      this.problem(
        path,
        'SECRET_KEY_MISSING',
        `${what} directory ${quote(name)} has no ${missing.join(', ')} file`,
        `put ${required.join(' and ')} files in it`,
      );
      return undefined;
    }
    const texts: Record<string, string> = {};
    for (const key of required) {
      // Never quote the content: messages and logs must not show credentials.
      const text = credentialText(files[key]!);
      if ('problem' in text) {
        if (text.problem === 'empty')
          this.problem(
            path,
            'CREDENTIAL_EMPTY',
            `${what} file ${quote(`${name}/${key}`)} is empty`,
            'write the credential into the file (one trailing newline is ignored)',
          );
        else
          this.problem(
            path,
            'CREDENTIAL_NOT_UTF8',
            `${what} file ${quote(`${name}/${key}`)} is not UTF-8 text`,
            'credentials become Secret values that must read back unchanged; re-save the file as UTF-8',
          );
        continue;
      }
      texts[key] = text.value;
    }
    return Object.keys(texts).length === required.length ? texts : undefined;
  }

  /** A pull secret must be a Docker config: JSON with an `auths` map (kubelet reads no other). */
  private checkDockerConfig(files: SecretFiles, name: string, path: (string | number)[]): boolean {
    const text = files['.dockerconfigjson']!;
    let auths: unknown;
    try {
      auths = (JSON.parse(text) as { auths?: unknown } | null)?.auths;
    } catch {
      // The parser's message quotes the text: never show it.
      auths = undefined;
    }
    if (auths !== null && typeof auths === 'object' && !Array.isArray(auths)) return true;
    this.problem(
      path,
      'PULL_SECRET_INVALID',
      `pull secret file ${quote(`${name}/.dockerconfigjson`)} is not a Docker config: JSON with an "auths" map`,
      'write it as {"auths":{"registry.example.com":{"auth":"<base64 user:password>"}}}, e.g. the file `podman login --authfile` writes',
    );
    return false;
  }

  private bmcCredentials(node: SiteConfigNode, at: (string | number)[]): SecretFiles | undefined {
    const dir = node.bmcCredentials?.fromDirectory;
    if (dir === undefined) return undefined;
    return this.secretFiles(
      dir,
      ['username', 'password'],
      [...at, 'bmcCredentials', 'fromDirectory'],
      'BMC credentials',
    );
  }

  private pullSecret(site: SiteConfig): SecretFiles | undefined {
    const dir = site.spec.pullSecret?.fromDirectory;
    if (dir === undefined) return undefined;
    const path = ['spec', 'pullSecret', 'fromDirectory'];
    const files = this.secretFiles(dir, ['.dockerconfigjson'], path, 'pull secret');
    return files && this.checkDockerConfig(files, dir, path) ? files : undefined;
  }
}
