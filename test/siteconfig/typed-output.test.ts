/**
 * The compilers build their objects against the types generated from crds/ (and client-node's
 * for core kinds). These tests type-check the real compiler sources with one field misspelt or
 * mis-typed at a time, the way a developer would get it wrong, and expect tsc to refuse it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../support/sites.js';

const COMPILER = join(repoRoot, 'src', 'siteconfig', 'compile.ts');
const CI_COMPILER = join(repoRoot, 'src', 'siteconfig', 'cluster-instance', 'compile.ts');
const CI_FROM_SITECONFIG = join(
  repoRoot,
  'src',
  'siteconfig',
  'cluster-instance',
  'from-siteconfig.ts',
);
const CI_RENDER = join(repoRoot, 'src', 'siteconfig', 'cluster-instance', 'render.ts');
const CI_TYPES = join(repoRoot, 'src', 'siteconfig', 'cluster-instance', 'types.ts');
const SITE_TYPES = join(repoRoot, 'src', 'siteconfig', 'types.ts');

function compilerOptions(): ts.CompilerOptions {
  const path = join(repoRoot, 'tsconfig.json');
  const config = ts.readConfigFile(path, (file) => ts.sys.readFile(file));
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, repoRoot);
  return { ...parsed.options, noEmit: true };
}

/** Type-checks the compilers, with `edits` (file → new text) in place of the files on disk. */
class Checker {
  private readonly options = compilerOptions();
  /** Files as read from disk, parsed once and shared by every program. */
  private readonly parsed = new Map<string, ts.SourceFile | undefined>();

  diagnostics(edits: ReadonlyMap<string, string>, file: string): string[] {
    const host = ts.createCompilerHost(this.options);
    const getSourceFile = host.getSourceFile.bind(host);
    host.getSourceFile = (name, language, onError) => {
      const edited = edits.get(name);
      if (edited !== undefined) return ts.createSourceFile(name, edited, language);
      if (!this.parsed.has(name)) this.parsed.set(name, getSourceFile(name, language, onError));
      return this.parsed.get(name);
    };
    const program = ts.createProgram([COMPILER, CI_COMPILER, CI_RENDER], this.options, host);
    const source = program.getSourceFile(file);
    if (!source) throw new Error(`${file} is not part of the program`);
    return program
      .getSemanticDiagnostics(source)
      .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
  }
}

/** One mistake: `from` (found exactly once in `file`) written as `to`. */
interface Mistake {
  readonly name: string;
  readonly file: string;
  readonly from: string;
  readonly to: string;
  /** Where tsc reports it, when not in `file`. */
  readonly reportedIn?: string;
  readonly error: string;
}

const MISTAKES: readonly Mistake[] = [
  {
    name: 'a BareMetalHost field camelCased the way cdk8s import spells it',
    file: COMPILER,
    from: 'bootMACAddress: node.bootMACAddress,',
    to: 'bootMacAddress: node.bootMACAddress,',
    error: "'bootMacAddress' does not exist",
  },
  {
    name: 'a BareMetalHost field of the wrong type',
    file: COMPILER,
    from: 'online: true,',
    to: "online: 'true',",
    error: "Type 'string' is not assignable to type 'boolean'",
  },
  {
    name: 'a misspelt AgentClusterInstall field inside compact()',
    file: COMPILER,
    from: 'apiVIPs: cluster.apiVIPs,',
    to: 'apiVips: cluster.apiVIPs,',
    error: "'apiVips' does not exist",
  },
  {
    name: 'a misspelt field nested in the ClusterDeployment',
    file: COMPILER,
    from: "version: 'v1beta1',",
    to: "verison: 'v1beta1',",
    error: "'verison' does not exist",
  },
  {
    name: 'an ExternalSecret enum value the CRD does not allow',
    file: COMPILER,
    from: "creationPolicy: 'Owner'",
    to: "creationPolicy: 'Owned'",
    error: `Type '"Owned"' is not assignable`,
  },
  {
    name: 'a misspelt field of a core Secret',
    file: COMPILER,
    from: '      type,\n      data,',
    to: '      type,\n      datta: data,',
    error: "'datta' does not exist",
  },
  {
    name: 'a misspelt HostFirmwareSettings field',
    file: COMPILER,
    from: 'spec: { settings: { ...settings } },',
    to: 'spec: { setings: { ...settings } },',
    error: "'setings' does not exist",
  },
  {
    name: 'a misspelt NMStateConfig interface field',
    file: COMPILER,
    from: 'macAddress: nic.macAddress',
    to: 'macAdress: nic.macAddress',
    error: "Property 'macAddress' is missing",
  },
  {
    name: 'a misspelt optional field in the keys of an ExternalSecret',
    file: COMPILER,
    from: 'remoteRef: { key: external.key, property },',
    to: 'remoteRef: { key: external.key, propery: property },',
    error: "'propery' does not exist",
  },
  {
    name: 'a misspelt KlusterletAddonConfig add-on setting',
    file: COMPILER,
    from: 'policyController: { enabled: true },',
    to: 'policyController: { enable: true },',
    error: "'enable' does not exist",
  },
  {
    name: 'a misspelt InfraEnv field in the ClusterInstance compiler',
    file: CI_COMPILER,
    from: 'additionalNTPSources: nonEmpty(spec.additionalNTPSources),',
    to: 'additionalNtpSources: nonEmpty(spec.additionalNTPSources),',
    error: "'additionalNtpSources' does not exist",
  },
  {
    name: 'a ManagedCluster field of the wrong type in the ClusterInstance compiler',
    file: CI_COMPILER,
    from: 'spec: { hubAcceptsClient: true },',
    to: "spec: { hubAcceptsClient: 'yes' },",
    error: "Type 'string' is not assignable to type 'boolean'",
  },
  {
    name: 'a misspelt optional node field of a ClusterInstance made from a SiteConfig',
    file: CI_FROM_SITECONFIG,
    from: "ironicInspect: node.ironicInspect === 'disabled' ? 'disabled' : undefined,",
    to: "ironicInspekt: node.ironicInspect === 'disabled' ? 'disabled' : undefined,",
    error: "'ironicInspekt' does not exist",
  },
  {
    name: 'a SiteConfig root device hint the BareMetalHost does not have, copied whole',
    file: SITE_TYPES,
    from: '  readonly wwn?: string;\n',
    to: '  readonly wwn?: string;\n  readonly minSizeGigaBytes?: number;\n',
    reportedIn: COMPILER,
    error: 'minSizeGigaBytes',
  },
  {
    name: 'a ClusterInstance node field the CRD does not have, rendered as it is',
    file: CI_TYPES,
    from: '  readonly hostName: string;\n',
    to: '  readonly hostName: string;\n  readonly hostname?: string;\n',
    reportedIn: CI_RENDER,
    error: "'hostname'",
  },
];

// The first check loads the compilers' whole program (about 12 s on an idle machine).
describe('the compilers type their output with the CRD types', { timeout: 120_000 }, () => {
  const checker = new Checker();
  const files = new Map<string, string>();
  beforeAll(() => {
    for (const file of [COMPILER, CI_COMPILER, CI_FROM_SITECONFIG, CI_RENDER, CI_TYPES, SITE_TYPES])
      files.set(file, readFileSync(file, 'utf8'));
  });

  it('compile as they are', () => {
    for (const file of [COMPILER, CI_COMPILER, CI_FROM_SITECONFIG, CI_RENDER])
      expect(checker.diagnostics(new Map(), file), file).toEqual([]);
  });

  it.each(MISTAKES)('refuse $name', (mistake) => {
    const text = files.get(mistake.file)!;
    expect(text.split(mistake.from).length - 1, 'the text to change occurs once').toBe(1);
    const edits = new Map([[mistake.file, text.replace(mistake.from, mistake.to)]]);
    const errors = checker.diagnostics(edits, mistake.reportedIn ?? mistake.file);
    expect(errors.join('\n---\n')).toContain(mistake.error);
  });
});
