/**
 * Loading input: reads every SiteConfig and ClusterInstance document of a run, validates it
 * (validate.ts for SiteConfigs, cluster-instance/validate.ts for ClusterInstances), resolves what
 * each SiteConfig refers to, and reports every issue with its position. It sits above both
 * validators, so neither imports the other back.
 */
import { posix } from 'node:path';
import type { InputIssue } from '../shared/errors.js';
import { parseYamlFile } from '../shared/source-yaml.js';
import type { SourceDocument } from '../shared/source-yaml.js';
import { compileSiteConfig } from './compile.js';
import {
  buildExtraManifests,
  CONFIGMAP_DATA_LIMIT,
  configMapEntryBytes,
} from './extra-manifests/index.js';
import { TemplateBudget } from './extra-manifests/index.js';
import { defaultLimits } from '../shared/limits.js';
import type { Limits } from '../shared/limits.js';
import { NO_SECRETS, ResourceResolver } from './resources.js';
import type { ResourceProblem, SecretSource, SiteResources } from './resources.js';
import { KUSTOMIZATION_FILES, NO_FILES } from './site-files.js';
import type { SiteFiles } from './site-files.js';
import type { SiteConfig } from './types.js';
import { checkClusterInstance, isClusterInstanceDocument } from './cluster-instance/validate.js';
import type { ClusterInstanceRenderer } from './cluster-instance/validate.js';
import type { ClusterInstance } from './cluster-instance/types.js';
import { checkYamlLookalikes } from './yaml-lookalikes.js';
import { YAML11_LOOKALIKE, YAML11_LOOKALIKE_IN_CLUSTER_INSTANCE } from './rules/yaml.js';
import { normalize } from './normalize.js';
import { checkSemantics, checkStructure, FleetIndex, IssueCollector } from './validate.js';
import type { DocRef } from './validate.js';

/** A file to read: its path as it should appear in messages, and its text. */
export interface SourceFile {
  readonly path: string;
  readonly text: string;
}

/** A SiteConfig document that passed validation, with where it came from. */
export interface LoadedSiteConfig {
  readonly file: string;
  readonly documentIndex: number;
  readonly siteConfig: SiteConfig;
  /** The files it refers to, read and checked. */
  readonly resources: SiteResources;
  /**
   * What it read through the SiteFiles port, as resolved: the files (crTemplates, BIOS
   * settings) and the extra-manifest folders. A change to any of them may change its output.
   */
  readonly reads: SiteReads;
}

/** The files and extra-manifest folders one SiteConfig, or all the SiteConfigs of a run, read. */
export interface SiteReads {
  readonly files: ReadonlySet<string>;
  readonly folders: ReadonlySet<string>;
}

/** A ClusterInstance document that passed validation, with where it came from. */
export interface LoadedClusterInstance {
  readonly file: string;
  readonly documentIndex: number;
  readonly clusterInstance: ClusterInstance;
}

/** What loading a set of files found. */
export interface LoadResult {
  readonly sites: LoadedSiteConfig[];
  /** Valid ClusterInstance documents (empty when `onClusterInstance` receives them). */
  readonly clusterInstances: LoadedClusterInstance[];
  /** Errors, warnings and notes, in file order. */
  readonly issues: InputIssue[];
}

/** Options of loadSiteConfigs. */
export interface LoadOptions {
  /**
   * Receives each valid SiteConfig as soon as it is checked, instead of collecting them in the
   * result. Lets a caller compile a large fleet site by site, keeping only its output alive.
   * Cross-document rules (unique cluster names and MACs) may still fail a later document, so
   * the caller must not publish anything before the returned issues are known.
   */
  readonly onSite?: (site: LoadedSiteConfig) => void;
  /** Receives each valid ClusterInstance, as `onSite` receives SiteConfigs. */
  readonly onClusterInstance?: (clusterInstance: LoadedClusterInstance) => void;
  /** Files the SiteConfigs refer to (crTemplates, BIOS settings, extra manifests). @default none */
  readonly files?: SiteFiles;
  /**
   * The kustomization root of a SiteConfig file, in the terms of its path: relative paths in it
   * resolve there first (as siteconfig-generator, run by kustomize, resolves them), then in the
   * SiteConfig's folder. @default the SiteConfig's folder only
   */
  readonly kustomizationRoot?: (siteConfigFile: string) => string;
  /** Credentials kept outside git, for `fromDirectory`. @default none */
  readonly secrets?: SecretSource;
  /**
   * The shipped default extra-manifest sets (the package's `extra-manifests/` folder). Without
   * it, the extra-manifests ConfigMaps stay empty (the TypeScript API has no files to read).
   */
  readonly defaultExtraManifests?: { readonly files: SiteFiles; readonly dir: string };
  /**
   * The run's limits, for the YAML reader (aliases, nesting depth) and the template engine
   * (template output and work). The edges read them from flags and env. @default defaultLimits
   */
  readonly limits?: Limits;
  /**
   * Who renders the ClusterInstances read: SiteForge warns about the fields it does not carry
   * out, which the operator does. @default "siteforge"
   */
  readonly clusterInstanceRenderer?: ClusterInstanceRenderer;
}

/** Names of the SiteConfig kinds SiteForge reads; other kinds in the input are skipped. */
function isSiteConfigDocument(value: unknown): boolean {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const { apiVersion, kind } = value as { apiVersion?: unknown; kind?: unknown };
  return (
    kind === 'SiteConfig' ||
    (typeof apiVersion === 'string' && apiVersion.startsWith('ran.openshift.io/'))
  );
}

/**
 * SiteForge's own documents (`siteforge.io/*`, such as the rollout policy kept with the sites):
 * not sites, and skipped without a note, as they belong in the folder.
 */
function isSiteForgeDocument(value: unknown): boolean {
  const apiVersion = (value as { apiVersion?: unknown } | null)?.apiVersion;
  return typeof apiVersion === 'string' && apiVersion.startsWith('siteforge.io/');
}

/**
 * Reads, parses and validates SiteConfig and ClusterInstance files. Pure: the caller supplies the
 * file texts. Documents of other kinds are skipped with a note, unless a SiteConfig refers to
 * their file (a BIOS file, a crTemplate, an extra manifest in the input folder too) or the file is
 * a kustomization.
 */
export function loadSiteConfigs(
  files: readonly SourceFile[],
  options: LoadOptions = {},
): LoadResult {
  const report = new IssueCollector();
  const fleet = new FleetIndex();
  const sites: LoadedSiteConfig[] = [];
  const clusterInstances: LoadedClusterInstance[] = [];
  const texts = new Map<string, string>();
  /** Documents of other kinds, noted at the end unless a SiteConfig referred to their file. */
  const skipped: { doc: DocRef; kind: unknown }[] = [];
  const referenced: Referenced = { files: new Set(), folders: new Set() };
  const budget = new TemplateBudget(options.limits ?? defaultLimits);
  for (const file of files) {
    texts.set(file.path, file.text);
    const parsed = parseYamlFile(file.path, file.text, {
      locations: false,
      ...(options.limits ? { limits: options.limits } : {}),
    });
    for (const error of parsed.errors) {
      report.addPositioned({
        severity: 'error',
        code: error.code,
        message: error.message,
        hint: error.hint ?? 'fix the YAML syntax at this position',
        file: file.path,
        line: error.pos.line,
        column: error.pos.column,
        path: '/',
      });
    }
    for (const document of parsed.documents) {
      if (document.value === null) continue;
      const doc: DocRef = {
        file: file.path,
        index: document.index,
        root: document.value,
        pos: document.pos,
      };
      if (isClusterInstanceDocument(document.value)) {
        const lookalikes = checkYamlLookalikes(
          doc,
          document.lookalikes,
          YAML11_LOOKALIKE_IN_CLUSTER_INSTANCE,
          report,
        );
        const clusterInstance = checkClusterInstance(
          doc,
          report,
          fleet,
          options.clusterInstanceRenderer,
        );
        if (!clusterInstance || lookalikes > 0) continue;
        const loaded = { file: file.path, documentIndex: document.index, clusterInstance };
        if (options.onClusterInstance) options.onClusterInstance(loaded);
        else clusterInstances.push(loaded);
        continue;
      }
      if (!isSiteConfigDocument(document.value)) {
        if (!isSiteForgeDocument(document.value))
          skipped.push({ doc, kind: (document.value as { kind?: unknown }).kind });
        continue;
      }
      const before = report.errorCount;
      checkYamlLookalikes(doc, document.lookalikes, YAML11_LOOKALIKE, report);
      const broken = checkStructure(doc, report);
      const site = document.value as SiteConfig;
      checkSemantics(doc, site, report, fleet, broken);
      if (report.errorCount !== before) continue;
      const siteConfig = normalize(site);
      const reads: Referenced = { files: new Set(), folders: new Set() };
      const resources = resolveResources(doc, siteConfig, options, report, reads, budget);
      for (const f of reads.files) referenced.files.add(f);
      for (const f of reads.folders) referenced.folders.add(f);
      if (report.errorCount !== before || !resources) continue;
      const loaded = {
        file: file.path,
        documentIndex: document.index,
        siteConfig,
        resources,
        reads,
      };
      if (options.onSite) options.onSite(loaded);
      else sites.push(loaded);
    }
  }
  const read = skipped.length > 0 ? readByRun(referenced, options.files ?? NO_FILES) : undefined;
  for (const { doc, kind } of skipped) {
    if (read?.(doc.file)) continue;
    report.add(
      doc,
      'note',
      'SKIPPED_DOCUMENT',
      [],
      `skipping a document of kind ${typeof kind === 'string' ? kind : '(none)'}: not a SiteConfig`,
    );
  }
  const reparsed = new Map<string, SourceDocument[]>();
  const issues = report.resolve((doc) => {
    let documents = reparsed.get(doc.file);
    if (!documents) {
      documents = parseYamlFile(
        doc.file,
        texts.get(doc.file) ?? '',
        options.limits ? { limits: options.limits } : {},
      ).documents;
      reparsed.set(doc.file, documents);
    }
    const again = documents[doc.index];
    return again ? { ...doc, root: again.value, pos: again.pos } : undefined;
  });
  return { sites, clusterInstances, issues };
}

/** The files and extra-manifest folders the SiteConfigs of a run read. */
interface Referenced {
  readonly files: Set<string>;
  readonly folders: Set<string>;
}

/**
 * Whether a SiteConfig of the run read a file, itself or as an extra manifest of a folder; a
 * kustomization (which lists the SiteConfigs in upstream's layout) counts as read too. Paths are
 * compared by the files' identity: `../sites/hw.yaml` and `hw.yaml` may name one file.
 */
function readByRun(referenced: Referenced, files: SiteFiles): (file: string) => boolean {
  const key = (path: string): string => files.identity?.(path) ?? posix.normalize(path);
  const read = new Set([...referenced.files].map(key));
  const folders = new Set([...referenced.folders].map(key));
  return (file) =>
    KUSTOMIZATION_FILES.includes(posix.basename(file)) ||
    read.has(key(file)) ||
    folders.has(key(posix.dirname(file)));
}

/** Validates an in-memory SiteConfig (the TypeScript API); issues point at `label`. */
export function validateSiteConfig(
  siteConfig: SiteConfig,
  label: string,
  fleet = new FleetIndex(),
): InputIssue[] {
  const report = new IssueCollector();
  const doc: DocRef = { file: label, index: 0, root: siteConfig, pos: { line: 0, column: 0 } };
  const broken = checkStructure(doc, report);
  checkSemantics(doc, siteConfig, report, fleet, broken);
  if (report.errorCount === 0) resolveResources(doc, normalize(siteConfig), {}, report);
  return report.resolve();
}

/**
 * Reads what the SiteConfig refers to (templates, BIOS files, credentials, extra manifests)
 * and checks crTemplate overrides against the objects they replace. Problems are reported at
 * the referring field; returns undefined when there were any.
 */
function resolveResources(
  doc: DocRef,
  site: SiteConfig,
  options: LoadOptions,
  report: IssueCollector,
  referenced?: Referenced,
  budget = new TemplateBudget(options.limits ?? defaultLimits),
): SiteResources | undefined {
  const root = options.kustomizationRoot?.(doc.file);
  const resolver = new ResourceResolver(
    doc.file,
    options.files ?? NO_FILES,
    options.secrets ?? NO_SECRETS,
    root,
  );
  const extraProblems: ResourceProblem[] = [];
  const defaults = options.defaultExtraManifests;
  const resources = resolver.resolve(site, (clusterIndex) => {
    if (!defaults) return {};
    const built = buildExtraManifests({
      site,
      clusterIndex,
      siteFile: doc.file,
      ...(root === undefined ? {} : { root }),
      files: options.files ?? NO_FILES,
      defaults,
      budget,
    });
    for (const folder of built.folders) referenced?.folders.add(folder);
    for (const p of built.problems) {
      const path = ['spec', 'clusters', clusterIndex, ...p.path];
      if (p.severity === 'error')
        extraProblems.push({ path, code: p.code, message: p.message, hint: p.hint });
      else report.add(doc, 'warning', p.code, path, p.message, p.hint);
    }
    for (const [key, value] of Object.entries(built.data)) {
      const bytes = configMapEntryBytes(key, value);
      if (bytes > CONFIGMAP_DATA_LIMIT) {
        extraProblems.push({
          path: ['spec', 'clusters', clusterIndex, 'clusterName'],
          code: 'EXTRA_MANIFEST_TOO_LARGE',
          message: `extra manifest ${key} has ${String(bytes)} bytes; no ConfigMap can hold more than ${String(CONFIGMAP_DATA_LIMIT)}`,
          hint: 'split it into several files: SiteForge spreads files over several ConfigMaps, but not one file',
        });
      }
    }
    return built.data;
  });
  for (const file of resolver.filesRead) referenced?.files.add(file);
  const problems: ResourceProblem[] = [...resolver.problems, ...extraProblems];
  const hasTemplates = resources.clusters.some(
    (c) =>
      Object.keys(c.templates).length > 0 ||
      c.nodes.some((n) => Object.keys(n.templates).length > 0),
  );
  if (problems.length === 0 && hasTemplates)
    compileSiteConfig(site, resources, (p) => problems.push(p));
  for (const p of problems) report.add(doc, 'error', p.code, p.path, p.message, p.hint);
  return problems.length === 0 ? resources : undefined;
}
