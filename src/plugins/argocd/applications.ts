/**
 * The Argo CD Applications of a fleet: sites split into Applications of at most 1,000 (the hub's
 * per-Application figure, docs/argocd.md), each rendering its own sites through the plugin's
 * `sites` parameter, with the sync settings ZTP's `clusters` Application uses.
 *
 * **Stable assignment.** Once a site is in an Application it stays there: if a site moved, the
 * Application that lost it would prune it (deprovision the cluster) and the one that gained it
 * would install it again. So the assignment is state, kept where GitOps keeps state: in the
 * Applications generated last time (`--previous FILE`, or the file `-o` replaces). Sites still
 * in the fleet keep their Application; removed sites leave their lists (the Application that
 * rendered them prunes them); new sites, sorted by name, fill the free places of the existing
 * Applications in name order, then new Applications. Nothing is ever rebalanced. Without a
 * previous file, the sites, sorted by name, fill Applications in order (the last one partly), so
 * later additions go to the end.
 *
 * Hashing names into a fixed number of Applications would need no state, but cannot bound an
 * Application's size, and changing the number of Applications would move most sites.
 *
 * **Applications, not an ApplicationSet.** The ApplicationSet controller owns the Applications
 * it generates and reverts any edit to them, and `siteforge rollout run` holds new sites back by
 * editing an Application's `sites` parameter; the list of names would live in the ApplicationSet
 * anyway, one per element, so it would not be shorter.
 */
import { Ajv } from 'ajv';
import type { ValidateFunction } from 'ajv';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isNode, LineCounter, parseAllDocuments } from 'yaml';
import { SiteForgeError, quote } from '../../shared/errors.js';
import { packageRoot } from '../packaged-extra-manifests.js';

/** The hub's per-Application figure: 1,000 SNO ClusterInstances per Application (ACM scale docs). */
export const DEFAULT_MAX_SITES = 1000;

/** Labels every generated Application carries. */
export const MANAGED_BY = { 'app.kubernetes.io/managed-by': 'siteforge' } as const;
/** The label naming the fleet (the name prefix) an Application belongs to. */
export const FLEET_LABEL = 'siteforge.io/fleet';

/** How the Applications are written. */
export interface ApplicationsOptions {
  /** Applications are named `<prefix>-001`, `<prefix>-002`, ... */
  readonly prefix: string;
  readonly namespace: string;
  readonly project: string;
  readonly repoURL: string;
  readonly targetRevision: string;
  /** The folder of the site files, relative to the top of the repository. */
  readonly path: string;
  readonly plugin: string;
  readonly destinationServer: string;
  readonly maxSites: number;
  /** `automated`: Argo CD syncs on every change (prune and self-heal); `manual`: only on request. */
  readonly sync: 'automated' | 'manual';
}

/** One Application and its sites. */
export interface AppAssignment {
  readonly name: string;
  /** Cluster names, sorted. */
  readonly sites: readonly string[];
}

/** An assignment, and what became of the previous one. */
export interface Assignment {
  /** Applications with at least one site, by name. */
  readonly apps: readonly AppAssignment[];
  /** Previous Applications left with no site: their sites were all removed. */
  readonly emptied: readonly { readonly name: string; readonly removed: number }[];
  readonly added: number;
  readonly removed: number;
}

/** `<prefix>-NNN`. */
function appName(prefix: string, index: number): string {
  return `${prefix}-${String(index).padStart(3, '0')}`;
}

/**
 * Assigns the fleet's sites to Applications of at most `maxSites`, keeping every site of
 * `previous` where it was (see the module comment).
 */
export function assignSites(
  sites: readonly string[],
  previous: readonly AppAssignment[],
  prefix: string,
  maxSites: number,
): Assignment {
  const fleet = new Set(sites);
  const assigned = new Set<string>();
  let removed = 0;
  const apps = [...previous]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((app) => {
      const kept: string[] = [];
      for (const site of app.sites) {
        if (assigned.has(site)) continue; // listed twice: the first Application keeps it
        if (fleet.has(site)) {
          kept.push(site);
          assigned.add(site);
        } else removed++;
      }
      return { name: app.name, sites: kept, before: app.sites.length };
    });
  const fresh = [...fleet].filter((s) => !assigned.has(s)).sort();
  let next = 0;
  for (const app of apps) {
    while (app.sites.length < maxSites && next < fresh.length) app.sites.push(fresh[next++]!);
  }
  const taken = new Set(apps.map((a) => a.name));
  let index = 1;
  while (next < fresh.length) {
    while (taken.has(appName(prefix, index))) index++;
    const name = appName(prefix, index);
    taken.add(name);
    apps.push({ name, sites: fresh.slice(next, next + maxSites), before: 0 });
    next += maxSites;
  }
  return {
    apps: apps
      .filter((a) => a.sites.length > 0)
      .map((a) => ({ name: a.name, sites: [...a.sites].sort() }))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
    emptied: apps
      .filter((a) => a.sites.length === 0 && a.before > 0)
      .map((a) => ({ name: a.name, removed: a.before })),
    added: fresh.length,
    removed,
  };
}

/** The Application of one assignment. */
export function application(
  app: AppAssignment,
  options: ApplicationsOptions,
): Record<string, unknown> {
  return {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Application',
    metadata: {
      name: app.name,
      namespace: options.namespace,
      labels: { ...MANAGED_BY, [FLEET_LABEL]: options.prefix },
      annotations: { 'siteforge.io/sites': String(app.sites.length) },
    },
    spec: {
      project: options.project,
      source: {
        repoURL: options.repoURL,
        targetRevision: options.targetRevision,
        path: options.path,
        plugin: {
          name: options.plugin,
          parameters: [{ name: 'sites', array: [...app.sites] }],
        },
      },
      destination: { server: options.destinationServer },
      // ACM's controllers write ManagedCluster fields (labels such as vendor and cloud, the
      // hub accepted flag); let them, as ZTP's clusters Application does.
      ignoreDifferences: [
        {
          group: 'cluster.open-cluster-management.io',
          kind: 'ManagedCluster',
          managedFieldsManagers: ['controller'],
        },
      ],
      syncPolicy: {
        ...(options.sync === 'automated' && { automated: { prune: true, selfHeal: true } }),
        // Background propagation: a pruned site's objects go without Argo CD waiting on their
        // dependents (foreground prune left ManagedCluster and add-on debris behind).
        syncOptions: ['PrunePropagationPolicy=background', 'RespectIgnoreDifferences=true'],
      },
    },
  };
}

/** The previous Applications file cannot be read as Applications. */
export class PreviousApplicationsError extends SiteForgeError {
  constructor(file: string, problem: string, hint: string) {
    super(
      'PREVIOUS_APPLICATIONS_INVALID',
      `${file}: error PREVIOUS_APPLICATIONS_INVALID: ${problem}\n  hint: ${hint}`,
    );
  }
}

const PREVIOUS_HINT =
  'give the file siteforge argocd apps wrote last time (-o FILE or --previous FILE), or leave the Application out of it';

/**
 * The assignment of a previous run: the Applications of a YAML stream (or a `List`) that render
 * with `plugin` (by name) and whose name starts with `<prefix>-`, with the exact names of their
 * `sites` parameter (an array, or one string separated by commas or spaces, as the plugin reads
 * it). A pattern with glob characters or `!`, or no `sites` parameter (every site), is refused:
 * the file was not written by this command, and its sites cannot be known. Problems are reported
 * at their `file:line:column`.
 */
export function readPreviousApplications(
  file: string,
  text: string,
  prefix: string,
  plugin: string,
): AppAssignment[] {
  const found: AppAssignment[] = [];
  const lineCounter = new LineCounter();
  const docs = parseAllDocuments(text, { lineCounter });
  const where = (offset: number): string => {
    const { line, col } = lineCounter.linePos(offset);
    return `${file}:${String(line)}:${String(col)}`;
  };
  for (const doc of docs) {
    const error = doc.errors[0];
    if (error !== undefined)
      throw new PreviousApplicationsError(
        where(error.pos[0]),
        `not YAML: ${error.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '')}`,
        'fix the YAML syntax at this position',
      );
    const value = doc.toJS({ maxAliasCount: 100 }) as unknown;
    const list = isMap(value) && value['kind'] === 'List' && Array.isArray(value['items']);
    const items = list ? (value['items'] as unknown[]) : [value];
    items.forEach((item, index) => {
      if (!isMap(item) || item['kind'] !== 'Application') return;
      const name = at(item, 'metadata', 'name');
      if (typeof name !== 'string' || !name.startsWith(`${prefix}-`)) return;
      if (at(item, 'spec', 'source', 'plugin', 'name') !== plugin) return;
      const base = list ? ['items', index] : [];
      /** The position of the node at `path` in the item, or of the nearest node above it. */
      const position = (...path: (string | number)[]): string => {
        for (let n = path.length; n >= 0; n--) {
          const node = doc.getIn([...base, ...path.slice(0, n)], true);
          if (isNode(node) && node.range) return where(node.range[0]);
        }
        return where(doc.range[0]);
      };
      const parameters = at(item, 'spec', 'source', 'plugin', 'parameters');
      const sitesIndex = Array.isArray(parameters)
        ? (parameters as unknown[]).findIndex((p) => isMap(p) && p['name'] === 'sites')
        : -1;
      const parametersPath = ['spec', 'source', 'plugin', 'parameters'];
      if (sitesIndex < 0)
        throw new PreviousApplicationsError(
          position(...parametersPath),
          `Application ${quote(name)} has no sites parameter, so it renders every site of its folder; its sites cannot be kept in it`,
          PREVIOUS_HINT,
        );
      const sites = (parameters as unknown[])[sitesIndex] as Json;
      const listed: unknown[] = Array.isArray(sites['array'])
        ? (sites['array'] as unknown[])
        : typeof sites['string'] === 'string'
          ? sites['string'].split(/[\s,]+/).filter((n) => n !== '')
          : [];
      // `!NAME` entries exclude (siteforge rollout run holds new sites back with them): they
      // place no site.
      const names = listed.filter((n) => !(typeof n === 'string' && n.startsWith('!')));
      for (const n of names)
        if (typeof n !== 'string' || /[*?[\]{}!,\s]/.test(n) || n === '')
          throw new PreviousApplicationsError(
            position(
              ...parametersPath,
              sitesIndex,
              Array.isArray(sites['array']) ? 'array' : 'string',
            ),
            `Application ${quote(name)} selects sites by the pattern ${quote(String(n))}, not by name`,
            PREVIOUS_HINT,
          );
      found.push({ name, sites: names as string[] });
    });
  }
  return found;
}

type Json = Record<string, unknown>;
function isMap(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
function at(v: unknown, ...path: string[]): unknown {
  let x = v;
  for (const key of path) x = isMap(x) ? x[key] : undefined;
  return x;
}

/**
 * A CRD's schema as JSON Schema that also refuses what the API server would silently drop: a
 * field the schema does not name, outside `x-kubernetes-preserve-unknown-fields`.
 */
function strictSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(strictSchema);
  if (!isMap(schema)) return schema;
  const out: Json = {};
  for (const [key, value] of Object.entries(schema))
    out[key] =
      key === 'properties' && isMap(value)
        ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, strictSchema(v)]))
        : key === 'items' || key === 'additionalProperties'
          ? strictSchema(value)
          : value;
  if (
    isMap(schema['properties']) &&
    schema['x-kubernetes-preserve-unknown-fields'] !== true &&
    schema['additionalProperties'] === undefined
  )
    out['additionalProperties'] = false;
  return out;
}

let validator: ValidateFunction | undefined;

/**
 * Checks Applications against the Application CRD SiteForge ships (crds/argoproj.io_applications
 * .yaml, written from Argo CD's Application API). Throws on the first one that does not fit: a
 * bug in SiteForge, never output.
 */
export function checkApplications(apps: readonly unknown[]): void {
  if (!validator) {
    const crd = parseAllDocuments(
      readFileSync(join(packageRoot(), 'crds', 'argoproj.io_applications.yaml'), 'utf8'),
    )[0]!.toJS() as { spec: { versions: { schema: { openAPIV3Schema: unknown } }[] } };
    const ajv = new Ajv({ strict: false, validateFormats: false, allErrors: true });
    validator = ajv.compile(strictSchema(crd.spec.versions[0]!.schema.openAPIV3Schema) as object);
  }
  for (const app of apps) {
    if (validator(app)) continue;
    const problems = (validator.errors ?? [])
      .map(
        (e) =>
          `${e.instancePath || '/'} ${e.message ?? ''}${e.params['additionalProperty'] ? ` (${String(e.params['additionalProperty'])})` : ''}`,
      )
      .join('; ');
    throw new Error(
      `internal: Application ${String(at(app, 'metadata', 'name'))} does not fit the Application CRD: ${problems}`,
    );
  }
}
