/**
 * Validation of SiteConfig input: YAML syntax, the JSON Schema, then the semantic rules that no
 * generator checked before (networks, VIPs, topology, MACs, names, nmstate, JSON fields).
 * Every issue is collected with its position; nothing stops at the first one.
 */
import type { ErrorObject, ValidateFunction } from 'ajv';
import { quote } from '../shared/errors.js';
import type { InputIssue, Severity } from '../shared/errors.js';
import { cidrContains, cidrsOverlap, formatCidrNetwork, parseCidr, parseIp } from '../shared/ip.js';
import type { Cidr, IpAddress, IpFamily } from '../shared/ip.js';
import { hasLocations, locate, rawText } from '../shared/source-yaml.js';
import type { SourcePos } from '../shared/source-yaml.js';
import { validate as validateSchema } from './schema-validator.generated.js';
import {
  ANNOTATIONS_TOTAL_LIMIT,
  annotationKeyProblem,
  annotationsBytes,
  baseDomainProblem,
  closest,
  DNS_LABEL,
  isDnsSubdomain,
  labelKeyProblem,
  labelValueProblem,
  MAC,
  namespaceNameProblem,
  objectNameProblem,
  parseBmcAddress,
  parseJsonField,
} from './rules/predicates.js';
import type { SiteConfig, SiteConfigCluster, SiteConfigNode } from './types.js';

/** A document being validated: where messages point and how to find positions in it. */
export interface DocRef {
  readonly file: string;
  /** 0-based index of the document in its file. */
  readonly index: number;
  readonly root: unknown;
  readonly pos: SourcePos;
}

type Path = readonly (string | number)[];

/** A place in a document, for messages that mention a second location. */
export interface DocPlace {
  readonly doc: DocRef;
  readonly path: Path;
}

/** Placeholder in a message for the `file:line` of the issue's related place. */
const RELATED = '{related}';

interface PendingIssue {
  readonly doc: DocRef;
  readonly path: Path;
  readonly at: 'value' | 'key';
  readonly related: DocPlace | undefined;
  readonly issue: Omit<InputIssue, 'line' | 'column'>;
}

/**
 * Collects issues. Positions are resolved at the end: documents parsed without positions (the
 * fast path) are parsed again with positions, only when they have something to report.
 */
export class IssueCollector {
  private readonly pending: PendingIssue[] = [];
  private errors = 0;

  add(
    doc: DocRef,
    severity: Severity,
    code: string,
    path: Path,
    message: string,
    hint?: string,
    at: 'value' | 'key' = 'value',
    related?: DocPlace,
  ): void {
    if (severity === 'error') this.errors++;
    this.pending.push({
      doc,
      path,
      at,
      related,
      issue: {
        severity,
        code,
        message,
        ...(hint === undefined ? {} : { hint }),
        file: doc.file,
        path: `/${path.join('/')}`,
      },
    });
  }

  /** Adds an issue whose position is already known (YAML syntax errors). */
  addPositioned(issue: InputIssue): void {
    if (issue.severity === 'error') this.errors++;
    const doc: DocRef = {
      file: issue.file,
      index: -1,
      root: undefined,
      pos: { line: issue.line, column: issue.column },
    };
    this.pending.push({ doc, path: [], at: 'value', related: undefined, issue });
  }

  get errorCount(): number {
    return this.errors;
  }

  /**
   * Resolves every position. `withPositions(doc)` returns the same document parsed with
   * positions (or undefined when there is no source to parse again).
   */
  resolve(withPositions: (doc: DocRef) => DocRef | undefined = () => undefined): InputIssue[] {
    const cache = new Map<DocRef, DocRef>();
    const located = (doc: DocRef): DocRef => {
      if (doc.root === undefined || (doc.root !== null && hasLocations(doc.root))) return doc;
      let found = cache.get(doc);
      if (!found) {
        found = withPositions(doc) ?? doc;
        cache.set(doc, found);
      }
      return found;
    };
    return this.pending.map(({ doc, path, at, related, issue }) => {
      const target = located(doc);
      const pos =
        target.root === undefined ? target.pos : locate(target.root, target.pos, path, at);
      let message = issue.message;
      if (related) {
        const other = located(related.doc);
        const line = locate(other.root, other.pos, related.path).line;
        message = message.replace(RELATED, `${other.file}:${String(line)}`);
      }
      return { ...issue, message, line: pos.line, column: pos.column };
    });
  }
}

/** The schema, compiled ahead of time (scripts/generate-schema-validator.js). */
const schemaValidator = validateSchema as unknown as ValidateFunction;

// ---------------------------------------------------------------------------------------------
// Structure (JSON Schema)

/** Runs the schema; returns the JSON paths below which the document is structurally broken. */
export function checkStructure(
  doc: DocRef,
  report: IssueCollector,
  validate: ValidateFunction = schemaValidator,
): string[] {
  if (!validate(doc.root) && coerceScalarsToStrings(doc.root, validate.errors ?? []))
    validate(doc.root);
  const broken: string[] = [];
  const notIntegers = new Set<string>();
  for (const error of validate.errors ?? []) {
    const path = pointerToPath(error.instancePath);
    const issue = describeSchemaError(error, path);
    if (!issue) continue;
    // .nan fails type, minimum and maximum at once: one message is enough.
    if (issue.code === 'NUMBER_NOT_INTEGER') {
      if (notIntegers.has(error.instancePath)) continue;
      notIntegers.add(error.instancePath);
    }
    report.add(doc, issue.severity, issue.code, issue.path, issue.message, issue.hint, issue.at);
    if (issue.severity !== 'error') continue;
    // A missing field breaks only itself: its siblings can still be checked.
    const brokenPath =
      error.keyword === 'required'
        ? [...path, (error.params as { missingProperty: string }).missingProperty]
        : issue.path;
    broken.push(brokenPath.length === 0 ? '' : `/${brokenPath.join('/')}`);
  }
  return broken;
}

/**
 * YAML readers in Go fill a string field with the source text of `true` or `0x10`. Do the same:
 * where the schema wants a string and the source had a plain scalar, use its text.
 */
function coerceScalarsToStrings(root: unknown, errors: readonly ErrorObject[]): boolean {
  let changed = false;
  for (const error of errors) {
    // A Go reader leaves a string empty for null, never "null": let the type error stand.
    if (error.keyword !== 'type' || error.data === null) continue;
    const wanted = (error.params as { type: string | string[] }).type;
    if (!(Array.isArray(wanted) ? wanted : [wanted]).includes('string')) continue;
    const path = pointerToPath(error.instancePath);
    const key = path[path.length - 1];
    if (key === undefined) continue;
    const parent = path
      .slice(0, -1)
      .reduce<unknown>((node, k) => (node as Record<string, unknown>)[k], root);
    const raw = rawText(parent, key);
    if (raw !== undefined) {
      (parent as Record<string | number, unknown>)[key] = raw;
      changed = true;
    }
  }
  return changed;
}

function pointerToPath(pointer: string): (string | number)[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((segment) => (/^(0|[1-9][0-9]*)$/.test(segment) ? Number(segment) : segment));
}

const NOT_INTEGER_HINT =
  'write an integer, e.g. 64: .inf, .nan, fractions and numbers beyond 2^53 are not integers';

/** True for a number in an integer field that no Go int or JavaScript number holds exactly. */
function isNotInteger(error: ErrorObject): boolean {
  const parent = error.parentSchema as { type?: unknown } | undefined;
  return (
    parent?.type === 'integer' &&
    (error.keyword === 'type' || error.keyword === 'minimum' || error.keyword === 'maximum') &&
    typeof error.data === 'number' &&
    !Number.isSafeInteger(error.data)
  );
}

/** A number as YAML writes it: `.inf`, `.nan`, `1e+30`. */
function numberText(value: number): string {
  if (Number.isNaN(value)) return '.nan';
  if (!Number.isFinite(value)) return value > 0 ? '.inf' : '-.inf';
  return String(value);
}

interface DescribedIssue {
  severity: Severity;
  code: string;
  path: Path;
  message: string;
  hint?: string;
  at?: 'value' | 'key';
}

function describeSchemaError(error: ErrorObject, path: Path): DescribedIssue | undefined {
  const where = path.length === 0 ? 'the document' : quote(path.join('.'));
  const params = error.params as Record<string, unknown>;
  // The branches of an anyOf are alternatives: only the anyOf itself is worth reporting.
  if (error.schemaPath.includes('/anyOf/')) return undefined;
  if (isNotInteger(error))
    return {
      severity: 'error',
      code: 'NUMBER_NOT_INTEGER',
      path,
      message: `${where} must be a whole number, not ${numberText(error.data as number)}`,
      hint: NOT_INTEGER_HINT,
    };
  switch (error.keyword) {
    case 'anyOf':
      return {
        severity: 'error',
        code: 'MISSING_FIELD',
        path,
        message: `${where} names no BMC credentials`,
        hint: 'add bmcCredentialsName (an existing Secret) or bmcCredentials (externalSecret or fromDirectory)',
      };
    case 'minProperties':
    case 'maxProperties':
      return {
        severity: 'error',
        code: 'INVALID_VALUE',
        path,
        message: `${where} must set exactly one of externalSecret or fromDirectory`,
        hint: 'keep the one source the credentials come from',
      };
    case 'required': {
      const field = String(params['missingProperty']);
      return {
        severity: 'error',
        code: 'MISSING_FIELD',
        path,
        message: `${where} is missing the required field ${quote(field)}`,
        hint: `add ${quote(field)} here`,
      };
    }
    case 'additionalProperties': {
      const field = String(params['additionalProperty']);
      const known = Object.keys(
        (error.parentSchema as { properties?: object } | undefined)?.properties ?? {},
      );
      const suggestion = closest(field, known);
      return {
        severity: 'warning',
        code: 'UNKNOWN_FIELD',
        path: [...path, field],
        at: 'key',
        message: `unknown field ${quote(field)} is ignored`,
        hint: suggestion
          ? `did you mean ${quote(suggestion)}?`
          : `known fields here: ${known.join(', ')}`,
      };
    }
    case 'propertyNames':
      return undefined; // reported by the enum error on the name itself
    case 'enum': {
      const allowed = (params['allowedValues'] as unknown[])
        .map((v) => JSON.stringify(v))
        .join(', ');
      const isKey = error.propertyName !== undefined;
      const value = quote(isKey ? error.propertyName : error.data);
      const suggestion = closest(
        String(isKey ? error.propertyName : error.data),
        (params['allowedValues'] as unknown[]).map(String),
      );
      return {
        severity: 'error',
        code: isKey ? 'UNKNOWN_KIND' : 'INVALID_VALUE',
        path: isKey ? [...path, String(error.propertyName)] : path,
        at: isKey ? 'key' : 'value',
        message: `${value} is not allowed for ${where}`,
        hint: suggestion
          ? `did you mean ${JSON.stringify(suggestion)}? allowed: ${allowed}`
          : `allowed: ${allowed}`,
      };
    }
    case 'const':
      return {
        severity: 'error',
        code: 'INVALID_VALUE',
        path,
        message: `${where} must be ${JSON.stringify(params['allowedValue'])}`,
        hint: `set it to ${JSON.stringify(params['allowedValue'])}`,
      };
    case 'type': {
      const wanted = String(params['type']).replace(/,/g, ' or ');
      const got =
        error.data === null ? 'null' : Array.isArray(error.data) ? 'a list' : typeof error.data;
      return {
        severity: 'error',
        code: 'INVALID_TYPE',
        path,
        message: `${where} must be ${wanted === 'object' ? 'a map' : wanted === 'array' ? 'a list' : `a ${wanted}`}, not ${got}`,
        hint:
          wanted === 'string'
            ? 'quote the value'
            : `write ${where} as ${wanted === 'array' ? 'a YAML list' : wanted === 'object' ? 'a YAML map' : `a ${wanted}`}`,
      };
    }
    case 'minItems':
    case 'maxItems':
    case 'minLength':
    case 'minimum':
    case 'maximum':
    case 'pattern':
      return {
        severity: 'error',
        code: 'INVALID_VALUE',
        path,
        message: `${where} ${String(error.message)}`,
        hint:
          error.keyword === 'pattern'
            ? `it must match ${String(params['pattern'])}`
            : 'see `siteforge schema` for the allowed values',
      };
    default:
      return {
        severity: 'error',
        code: 'INVALID_VALUE',
        path,
        message: `${where} ${String(error.message)}`,
      };
  }
}

// ---------------------------------------------------------------------------------------------
// Semantics

/** Facts gathered across all input documents, for uniqueness rules. */
export class FleetIndex {
  readonly clusterNames = new Map<string, DocPlace>();
  readonly macs = new Map<string, { place: DocPlace; owner: string }>();

  /** A place that does not keep its document alive; positions are found again when reported. */
  static place(doc: DocRef, path: Path): DocPlace {
    return { doc: { file: doc.file, index: doc.index, root: null, pos: doc.pos }, path };
  }
}

/** True when a structural error lies at, below or above `pointer`. */
export function isBroken(broken: readonly string[], pointer: string): boolean {
  return broken.some(
    (p) => p === '' || p === pointer || p.startsWith(`${pointer}/`) || pointer.startsWith(`${p}/`),
  );
}

/** True when a structural error lies at or above `pointer` (the value itself is unusable). */
function isBrokenAt(broken: readonly string[], pointer: string): boolean {
  return broken.some((p) => p === '' || p === pointer || pointer.startsWith(`${p}/`));
}

/**
 * True when the cluster rules can run on a cluster with structural errors: the cluster is a map
 * and its nodes a list of maps. Each rule then skips what it reads from a broken value. Also
 * asked of a ClusterInstance spec (cluster-instance/validate.ts).
 */
export function hasSoundShape(
  broken: readonly string[],
  pointer: string,
  cluster: object,
): boolean {
  if (isBrokenAt(broken, pointer) || isBrokenAt(broken, `${pointer}/nodes`)) return false;
  const nodes = (cluster as { nodes?: unknown }).nodes;
  return Array.isArray(nodes) && nodes.every((node) => isPlainObject(node));
}

export function checkSemantics(
  doc: DocRef,
  site: SiteConfig,
  report: IssueCollector,
  fleet: FleetIndex,
  broken: string[],
): void {
  const spec = (site as Partial<SiteConfig>).spec as unknown;
  if (!isPlainObject(spec)) return;
  checkSiteFields(doc, spec, report);
  if (!Array.isArray(spec['clusters'])) return;
  // Structurally unchecked input: clusters may be anything until the schema says otherwise.
  const clusters = spec['clusters'] as readonly (SiteConfigCluster | null)[];
  clusters.forEach((cluster, index) => {
    const pointer = `/spec/clusters/${String(index)}`;
    if (cluster === null || typeof cluster !== 'object') return;
    if (hasSoundShape(broken, pointer, cluster)) {
      // A structural error elsewhere in the cluster only skips the checks that read it.
      new ClusterChecker(
        doc,
        site,
        cluster,
        ['spec', 'clusters', index],
        report,
        fleet,
        broken,
      ).run();
    } else if (!isBroken(broken, `${pointer}/clusterName`)) {
      // The cluster or its node list is no map or list: only its name can still be checked.
      checkClusterName(doc, cluster, ['spec', 'clusters', index], report, fleet);
    }
  });
  if (site.apiVersion === 'ran.openshift.io/v1') {
    clusters.forEach((cluster, index) => {
      if (cluster?.siteConfigMap !== undefined) {
        report.add(
          doc,
          'warning',
          'V2_ONLY_FIELD',
          ['spec', 'clusters', index, 'siteConfigMap'],
          'siteConfigMap is only generated for ran.openshift.io/v2',
          'change apiVersion to ran.openshift.io/v2, or remove siteConfigMap',
          'key',
        );
      }
    });
  }
}

/** Field `key` of a structurally unchecked value, or undefined when it is no map or lacks it. */
function fieldOf(value: unknown, key: string): unknown {
  return isPlainObject(value) && Object.hasOwn(value, key) ? value[key] : undefined;
}

/**
 * Checks a name that another object refers to or that names an emitted object (a Secret, a
 * ClusterImageSet, a SecretStore): the hub rejects or never finds a name Kubernetes cannot hold.
 * `path` is built only for a report (this runs for every site of a fleet).
 */
export function checkObjectName(
  doc: DocRef,
  report: IssueSink,
  name: unknown,
  what: string,
  path: () => Path,
  namespace = false,
): void {
  if (typeof name !== 'string') return;
  const problem = namespace ? namespaceNameProblem(name) : objectNameProblem(name);
  if (problem)
    report.add(
      doc,
      'error',
      'REFERENCE_NAME_INVALID',
      path(),
      `${what} ${quote(name)} is not a valid ${namespace ? 'namespace' : 'object'} name: ${problem}`,
      'Kubernetes names are lowercase RFC 1123 names; use the exact name of the object on the hub',
    );
}

/** Checks the base domain, which every cluster's API and ingress names end in. */
export function checkBaseDomain(doc: DocRef, report: IssueSink, path: Path, domain: unknown): void {
  if (typeof domain !== 'string') return;
  const problem = baseDomainProblem(domain);
  if (problem)
    report.add(
      doc,
      'error',
      'BASE_DOMAIN_INVALID',
      path,
      `baseDomain ${quote(domain)} is not a DNS domain: ${problem}`,
      'write the domain the clusters live under, e.g. edge.example.com',
    );
}

/**
 * Checks annotations a SiteConfig adds per kind (`crAnnotations.add`, or a ClusterInstance's
 * `extraAnnotations`): keys as the API server checks them, and their total size.
 */
export function checkAnnotationMaps(
  doc: DocRef,
  report: IssueSink,
  byKind: unknown,
  path: () => Path,
): void {
  if (!isPlainObject(byKind)) return;
  const at = path();
  for (const [kind, annotations] of Object.entries(byKind)) {
    if (!isPlainObject(annotations)) continue;
    for (const key of Object.keys(annotations)) {
      const problem = annotationKeyProblem(key);
      if (problem)
        report.add(
          doc,
          'error',
          'ANNOTATION_INVALID',
          [...at, kind, key],
          `annotation key ${quote(key)} is invalid: ${problem}`,
          `Kubernetes would reject the ${kind}; rename the annotation`,
          'key',
        );
    }
    const bytes = annotationsBytes(annotations);
    if (bytes > ANNOTATIONS_TOTAL_LIMIT)
      report.add(
        doc,
        'error',
        'ANNOTATION_INVALID',
        [...at, kind],
        `the annotations for ${kind} have ${String(bytes)} bytes; Kubernetes takes at most ${String(ANNOTATIONS_TOTAL_LIMIT)} per object`,
        'keep large data in a ConfigMap and annotate a reference to it',
        'key',
      );
  }
}

/** The site's own fields: base domain, the names it refers to, its annotations. */
function checkSiteFields(doc: DocRef, spec: Record<string, unknown>, report: IssueSink): void {
  checkBaseDomain(doc, report, ['spec', 'baseDomain'], spec['baseDomain']);
  checkObjectName(doc, report, fieldOf(spec['pullSecretRef'], 'name'), 'pull secret Secret', () => [
    'spec',
    'pullSecretRef',
    'name',
  ]);
  checkObjectName(
    doc,
    report,
    fieldOf(spec['sshPrivateKeySecretRef'], 'name'),
    'SSH private key Secret',
    () => ['spec', 'sshPrivateKeySecretRef', 'name'],
  );
  checkObjectName(doc, report, spec['clusterImageSetNameRef'], 'ClusterImageSet', () => [
    'spec',
    'clusterImageSetNameRef',
  ]);
  checkObjectName(
    doc,
    report,
    fieldOf(fieldOf(fieldOf(spec['pullSecret'], 'externalSecret'), 'storeRef'), 'name'),
    'secret store',
    () => ['spec', 'pullSecret', 'externalSecret', 'storeRef', 'name'],
  );
  if (isPlainObject(spec['crAnnotations']))
    checkAnnotationMaps(doc, report, spec['crAnnotations']['add'], () => [
      'spec',
      'crAnnotations',
      'add',
    ]);
}

export function checkClusterName(
  doc: DocRef,
  cluster: SiteConfigCluster,
  at: Path,
  report: IssueSink,
  fleet: FleetIndex,
): void {
  const name = cluster.clusterName;
  if (typeof name !== 'string') return;
  const path = [...at, 'clusterName'];
  if (!DNS_LABEL.test(name) || name.length > 63) {
    report.add(
      doc,
      'error',
      'CLUSTER_NAME_INVALID',
      path,
      `clusterName ${quote(name)} is not a valid namespace name`,
      'use at most 63 lowercase letters, digits and "-", starting and ending with a letter or digit',
    );
  }
  if (name.startsWith('ztp')) {
    // siteconfig-generator and the hub take the name; it only risks the ZTP policy namespaces.
    report.add(
      doc,
      'warning',
      'CLUSTER_NAME_RESERVED',
      path,
      `clusterName ${quote(name)} starts with "ztp"`,
      'namespaces starting with "ztp" are reserved for the ZTP policies; rename the cluster',
    );
  }
  const first = fleet.clusterNames.get(name);
  if (first !== undefined) {
    report.add(
      doc,
      'error',
      'CLUSTER_NAME_DUPLICATE',
      path,
      `clusterName ${quote(name)} is already used at ${RELATED}`,
      'every cluster needs its own name: it names the namespace and the hub objects',
      'value',
      first,
    );
  } else {
    fleet.clusterNames.set(name, FleetIndex.place(doc, path));
  }
}

const DEPRECATED_VIP_HINT =
  'write the plural form (apiVIPs / ingressVIPs) as a list; keep the singular form only for clusters already installed with it';

/** Where the cluster rules report; an IssueCollector, or an adapter in front of one. */
export type IssueSink = Pick<IssueCollector, 'add'>;

/** The rules of one SiteConfig cluster (also run on ClusterInstances, see cluster-instance/). */
export class ClusterChecker {
  private readonly masters: number;
  private readonly workers: number;
  private machineNetworks: { cidr: Cidr; path: Path }[] = [];
  private nodeIps: { ip: IpAddress; path: Path; host: string }[] = [];
  /** False when a node's role has a structural error: the node counts are then unknown. */
  private readonly topologySound: boolean;

  /**
   * `broken` lists the JSON pointers of the document's structural errors: every rule skips what
   * it would read from a broken value, and runs on the rest.
   */
  constructor(
    private readonly doc: DocRef,
    private readonly site: SiteConfig,
    private readonly cluster: SiteConfigCluster,
    private readonly at: Path,
    private readonly report: IssueSink,
    private readonly fleet: FleetIndex,
    private readonly broken: readonly string[] = [],
  ) {
    this.masters = cluster.nodes.filter((node) => (node.role ?? 'master') === 'master').length;
    this.workers = cluster.nodes.length - this.masters;
    this.topologySound = cluster.nodes.every((_, index) => this.sound('nodes', index, 'role'));
  }

  /** True when no structural error lies at, below or above the cluster's field `path`. */
  private sound(...path: Path): boolean {
    return (
      this.broken.length === 0 || !isBroken(this.broken, `/${[...this.at, ...path].join('/')}`)
    );
  }

  private error(
    code: string,
    path: Path,
    message: string,
    hint?: string,
    at: 'value' | 'key' = 'value',
  ): void {
    this.report.add(this.doc, 'error', code, path, message, hint, at);
  }

  private warn(code: string, path: Path, message: string, hint?: string): void {
    this.report.add(this.doc, 'warning', code, path, message, hint, 'key');
  }

  private get isSno(): boolean {
    return this.masters === 1;
  }

  run(): void {
    const { cluster, at } = this;
    if (this.sound('clusterName')) checkClusterName(this.doc, cluster, at, this.report, this.fleet);
    if (
      cluster.clusterImageSetNameRef === undefined &&
      this.site.spec.clusterImageSetNameRef === undefined
    ) {
      this.error(
        'IMAGE_SET_MISSING',
        [...at, 'clusterName'],
        `cluster ${quote(cluster.clusterName)} names no ClusterImageSet`,
        'set clusterImageSetNameRef on the cluster or once for the whole site in spec',
      );
    }
    for (const field of ['baseDomain', 'manifestsConfig'] as const) {
      if ((cluster as unknown as Record<string, unknown>)[field] !== undefined) {
        this.warn(
          'IGNORED_FIELD',
          [...at, field],
          `clusters[].${field} is in the upstream CRD but no generator uses it`,
          field === 'baseDomain' ? 'set baseDomain once in spec' : 'remove it',
        );
      }
    }
    this.checkJsonFields();
    this.checkReferences();
    this.checkLabels();
    this.checkProxyAndNtp();
    this.checkNodes();
    this.checkNetworks();
    this.checkTopologyAndVips();
    this.checkDeferredFields();
  }

  private checkJsonFields(): void {
    const { cluster, at } = this;
    if (cluster.installConfigOverrides !== undefined && this.sound('installConfigOverrides')) {
      const parsed = parseJsonField(cluster.installConfigOverrides);
      if ('problem' in parsed || !isPlainObject(parsed.value)) {
        this.error(
          'INSTALL_CONFIG_OVERRIDES_INVALID',
          [...at, 'installConfigOverrides'],
          `installConfigOverrides is not a JSON object${'problem' in parsed ? `: ${parsed.problem}` : ''}`,
          `write a JSON object in a string, e.g. '{"capabilities":{"baselineCapabilitySet":"None"}}'`,
        );
      }
    }
    if (cluster.ignitionConfigOverride !== undefined && this.sound('ignitionConfigOverride'))
      this.checkIgnition([...at, 'ignitionConfigOverride'], cluster.ignitionConfigOverride);
  }

  private checkIgnition(path: Path, text: string): void {
    const parsed = parseJsonField(text);
    if ('problem' in parsed || !isPlainObject(parsed.value)) {
      this.error(
        'IGNITION_OVERRIDE_INVALID',
        path,
        `ignitionConfigOverride is not a JSON object${'problem' in parsed ? `: ${parsed.problem}` : ''}`,
        `write an Ignition config as a JSON string, e.g. '{"ignition":{"version":"3.2.0"},"storage":{...}}'`,
      );
      return;
    }
    const version = (parsed.value as { ignition?: { version?: unknown } }).ignition?.version;
    if (typeof version !== 'string' || !/^3\.[0-9]+\.[0-9]+$/.test(version)) {
      this.error(
        'IGNITION_OVERRIDE_INVALID',
        path,
        'ignitionConfigOverride has no "ignition": {"version": "3.x.y"}',
        'assisted-service merges only Ignition spec 3 configs; add "ignition":{"version":"3.2.0"}',
      );
    }
  }

  /** Names of objects the cluster refers to or emits, and the annotations it adds. */
  private checkReferences(): void {
    const { cluster, at, doc, report } = this;
    checkObjectName(doc, report, cluster.clusterImageSetNameRef, 'ClusterImageSet', () => [
      ...at,
      'clusterImageSetNameRef',
    ]);
    const map = cluster.siteConfigMap;
    if (map?.name !== undefined && map.name !== '')
      checkObjectName(doc, report, map.name, 'site ConfigMap', () => [
        ...at,
        'siteConfigMap',
        'name',
      ]);
    checkObjectName(
      doc,
      report,
      map?.namespace,
      'site ConfigMap namespace',
      () => [...at, 'siteConfigMap', 'namespace'],
      true,
    );
    checkAnnotationMaps(doc, report, cluster.crAnnotations?.add, () => [
      ...at,
      'crAnnotations',
      'add',
    ]);
    cluster.nodes.forEach((node, index) => {
      const nodeAt = (): Path => [...at, 'nodes', index];
      if (
        !this.sound('nodes', index, 'bmcCredentialsName') ||
        !this.sound('nodes', index, 'bmcCredentials')
      )
        return;
      checkObjectName(doc, report, node.bmcCredentialsName?.name, 'BMC credentials Secret', () => [
        ...nodeAt(),
        'bmcCredentialsName',
        'name',
      ]);
      checkObjectName(
        doc,
        report,
        node.bmcCredentials?.externalSecret?.storeRef.name,
        'secret store',
        () => [...nodeAt(), 'bmcCredentials', 'externalSecret', 'storeRef', 'name'],
      );
      checkAnnotationMaps(doc, report, node.crAnnotations?.add, () => [
        ...nodeAt(),
        'crAnnotations',
        'add',
      ]);
    });
  }

  private checkLabels(): void {
    if (!this.sound('clusterLabels')) return;
    const labels = this.cluster.clusterLabels ?? {};
    for (const [key, value] of Object.entries(labels)) {
      const path = [...this.at, 'clusterLabels', key];
      const keyProblem = labelKeyProblem(key);
      if (keyProblem)
        this.error(
          'LABEL_INVALID',
          path,
          `label key ${quote(key)} is invalid: ${keyProblem}`,
          'Kubernetes would reject the ManagedCluster; rename the label',
          'key',
        );
      const text = scalarText(labels, key, value);
      const valueProblem = labelValueProblem(text);
      if (valueProblem)
        this.error(
          'LABEL_INVALID',
          path,
          `label value ${quote(text)} of ${quote(key)} is invalid: ${valueProblem}`,
          'Kubernetes would reject the ManagedCluster; shorten or simplify the value',
        );
    }
  }

  private checkProxyAndNtp(): void {
    const { cluster, at } = this;
    for (const field of ['httpProxy', 'httpsProxy'] as const) {
      const url = cluster.proxy?.[field];
      if (url === undefined || url === '' || !this.sound('proxy', field)) continue;
      let ok = false;
      try {
        const parsed = new URL(url);
        ok =
          (parsed.protocol === 'http:' ||
            (field === 'httpsProxy' && parsed.protocol === 'https:')) &&
          parsed.hostname !== '';
      } catch {
        ok = false;
      }
      if (!ok)
        this.error(
          'PROXY_URL_INVALID',
          [...at, 'proxy', field],
          `${field} ${quote(url)} is not an http${field === 'httpsProxy' ? '(s)' : ''}:// URL`,
          'write it as http://user:pass@proxy.example.com:3128',
        );
    }
    if (!this.sound('additionalNTPSources')) return;
    (cluster.additionalNTPSources ?? []).forEach((source, index) => {
      if (!parseIp(source) && !isDnsSubdomain(source.toLowerCase())) {
        this.error(
          'NTP_SOURCE_INVALID',
          [...at, 'additionalNTPSources', index],
          `NTP source ${quote(source)} is neither an IP address nor a host name`,
          'list IP addresses or DNS names of NTP servers',
        );
      }
    });
  }

  // -- networks ---------------------------------------------------------------------------

  private parseCidrList(
    field: string,
    entries: readonly { cidr: string }[] | readonly string[] | undefined,
    viaCidr: boolean,
  ): { cidr: Cidr; path: Path }[] {
    const result: { cidr: Cidr; path: Path }[] = [];
    if (!this.sound(field)) return result;
    (entries ?? []).forEach((entry, index) => {
      const path = viaCidr ? [...this.at, field, index, 'cidr'] : [...this.at, field, index];
      const text = typeof entry === 'string' ? entry : entry.cidr;
      const cidr = parseCidr(text);
      if (!cidr) {
        this.error(
          'CIDR_INVALID',
          path,
          `${field} ${quote(text)} is not a CIDR`,
          'write address/prefix, e.g. 10.16.231.0/24 or fd01::/48',
        );
        return;
      }
      if (cidr.hostBitsSet) {
        this.error(
          'CIDR_HOST_BITS_SET',
          path,
          `${field} ${quote(text)} has host bits set`,
          `the network address is ${formatCidrNetwork(cidr)}`,
        );
      }
      result.push({ cidr, path });
    });
    return result;
  }

  private checkNetworks(): void {
    const { cluster, at } = this;
    this.machineNetworks = this.parseCidrList('machineNetwork', cluster.machineNetwork, true);
    const clusterNetworks = this.parseCidrList('clusterNetwork', cluster.clusterNetwork, true);
    const serviceNetworks = this.parseCidrList('serviceNetwork', cluster.serviceNetwork, false);
    (this.sound('clusterNetwork') ? (cluster.clusterNetwork ?? []) : []).forEach((entry, index) => {
      const cidr = parseCidr(entry.cidr);
      if (!cidr || entry.hostPrefix === undefined) return;
      const bits = cidr.family === 4 ? 32 : 128;
      if (entry.hostPrefix < cidr.prefix || entry.hostPrefix > bits) {
        this.error(
          'HOST_PREFIX_INVALID',
          [...at, 'clusterNetwork', index, 'hostPrefix'],
          `hostPrefix ${String(entry.hostPrefix)} does not fit ${entry.cidr}`,
          `use a value between ${String(cidr.prefix)} and ${String(bits)} (commonly 23 for IPv4, 64 for IPv6)`,
        );
      }
    });
    const named = [
      ...this.machineNetworks.map((n) => ({ ...n, kind: 'machineNetwork' })),
      ...clusterNetworks.map((n) => ({ ...n, kind: 'clusterNetwork' })),
      ...serviceNetworks.map((n) => ({ ...n, kind: 'serviceNetwork' })),
    ];
    for (let i = 0; i < named.length; i++) {
      for (let j = i + 1; j < named.length; j++) {
        const a = named[i]!;
        const b = named[j]!;
        if (cidrsOverlap(a.cidr, b.cidr)) {
          this.error(
            'NETWORK_OVERLAP',
            b.path,
            `${b.kind} ${b.cidr.text} overlaps ${a.kind} ${a.cidr.text}`,
            'machine, cluster and service networks must not share addresses; pick disjoint ranges',
          );
        }
      }
    }
    this.checkStacks([
      { field: 'machineNetwork', list: this.machineNetworks },
      { field: 'clusterNetwork', list: clusterNetworks },
      { field: 'serviceNetwork', list: serviceNetworks },
    ]);
  }

  /** Single or dual stack, the same for every network, with the same primary family. */
  private checkStacks(lists: { field: string; list: { cidr: Cidr; path: Path }[] }[]): void {
    let reference: { field: string; shape: string } | undefined;
    for (const { field, list } of lists) {
      if (list.length === 0) continue;
      const families: IpFamily[] = [];
      for (const { cidr } of list) if (!families.includes(cidr.family)) families.push(cidr.family);
      const shape = families.map((f) => `IPv${String(f)}`).join('+');
      if (families.length === 2 && list.length === 2) {
        // dual stack: one network per family
      } else if (families.length === 2) {
        this.error(
          'STACK_MISMATCH',
          [...this.at, field],
          `${field} mixes address families in ${String(list.length)} entries`,
          'a dual-stack network lists exactly one IPv4 and one IPv6 CIDR',
        );
        continue;
      }
      if (!reference) {
        reference = { field, shape };
      } else if (reference.shape !== shape) {
        this.error(
          'STACK_MISMATCH',
          [...this.at, field],
          `${field} is ${shape} but ${reference.field} is ${reference.shape}`,
          'all networks must be single stack of the same family, or all dual stack with the same primary family first',
        );
      }
    }
  }

  private checkTopologyAndVips(): void {
    const { cluster, at } = this;
    // Which VIPs a cluster needs depends on its topology: both must be sound to check either.
    if (!['apiVIPs', 'apiVIP', 'ingressVIPs', 'ingressVIP'].every((field) => this.sound(field)))
      return;
    const apiVips = this.vipList('apiVIPs', 'apiVIP');
    const ingressVips = this.vipList('ingressVIPs', 'ingressVIP');
    const hasVips = apiVips.length > 0 || ingressVips.length > 0;
    const topology = `${String(this.masters)} control-plane and ${String(this.workers)} worker node(s)`;
    if (!this.topologySound) {
      // A node role is broken: the counts are unknown, and so is whether VIPs are needed.
    } else if (this.masters === 1) {
      if (hasVips) {
        this.error(
          'SNO_WITH_VIPS',
          [...at, apiVips.length > 0 ? apiVips[0]!.field : ingressVips[0]!.field],
          'a single-node cluster takes no API or ingress VIPs',
          'remove apiVIPs/ingressVIPs: single-node clusters use the node address, set machineNetwork instead',
        );
      }
    } else if (this.masters === 3) {
      if (apiVips.length === 0 || ingressVips.length === 0) {
        this.error(
          'VIPS_REQUIRED',
          [...at, 'clusterName'],
          `a ${this.workers === 0 ? 'compact' : 'standard'} cluster (${topology}) needs apiVIPs and ingressVIPs`,
          'add apiVIPs and ingressVIPs: free addresses inside the machine network',
        );
      }
    } else {
      this.error(
        'TOPOLOGY_INVALID',
        [...at, 'nodes'],
        `cluster ${quote(cluster.clusterName)} has ${topology}`,
        'use 1 control-plane node (single-node, optionally with workers added later), or 3 control-plane nodes with 0 workers (compact) or 2+ workers (standard)',
      );
    }
    if (this.topologySound && this.masters === 3 && this.workers === 1) {
      this.error(
        'TOPOLOGY_INVALID',
        [...at, 'nodes'],
        `cluster ${quote(cluster.clusterName)} has ${topology}`,
        'a standard cluster needs at least 2 workers to run the ingress routers highly available; add a worker or make it compact',
      );
    }
    this.checkVips(apiVips, ingressVips);
  }

  private vipList(
    plural: 'apiVIPs' | 'ingressVIPs',
    singular: 'apiVIP' | 'ingressVIP',
  ): { text: string; path: Path; field: string }[] {
    const { cluster, at } = this;
    const list = (cluster[plural] ?? []).map((text, index) => ({
      text,
      path: [...at, plural, index],
      field: plural,
    }));
    const single = cluster[singular];
    if (single !== undefined) {
      this.report.add(
        this.doc,
        'warning',
        'DEPRECATED_FIELD',
        [...at, singular],
        `${singular} is deprecated`,
        DEPRECATED_VIP_HINT,
        'key',
      );
      if (list.length > 0 && list[0]!.text !== single) {
        this.error(
          'VIP_CONFLICT',
          [...at, singular],
          `${singular} ${quote(single)} differs from the first of ${plural} ${quote(list[0]!.text)}`,
          `set only ${plural}, or make ${singular} equal to its first entry`,
        );
      }
      if (list.length === 0) return [{ text: single, path: [...at, singular], field: singular }];
    }
    return list;
  }

  private checkVips(
    apiVips: { text: string; path: Path }[],
    ingressVips: { text: string; path: Path }[],
  ): void {
    const seen = new Map<string, string>();
    const networkFamilies = this.machineNetworks.map((n) => n.cidr.family);
    const primary = networkFamilies[0];
    for (const [name, list] of [
      ['apiVIPs', apiVips],
      ['ingressVIPs', ingressVips],
    ] as const) {
      const families: IpFamily[] = [];
      for (const vip of list) {
        const ip = parseIp(vip.text);
        if (!ip) {
          this.error(
            'VIP_INVALID',
            vip.path,
            `VIP ${quote(vip.text)} is not an IP address`,
            'write a single address, without a prefix length',
          );
          continue;
        }
        families.push(ip.family);
        const key = ip.value.toString() + String(ip.family);
        const other = seen.get(key);
        if (other !== undefined)
          this.error(
            'VIP_DUPLICATE',
            vip.path,
            `VIP ${vip.text} is also used as ${other}`,
            'API and ingress VIPs must be distinct addresses',
          );
        else seen.set(key, name);
        if (
          this.machineNetworks.length > 0 &&
          !this.machineNetworks.some((n) => cidrContains(n.cidr, ip))
        ) {
          this.error(
            'VIP_OUTSIDE_MACHINE_NETWORK',
            vip.path,
            `VIP ${vip.text} is outside the machine network (${this.machineNetworks.map((n) => n.cidr.text).join(', ')})`,
            'pick a free address inside machineNetwork, or fix machineNetwork',
          );
        }
        const node = this.nodeIps.find((n) => n.ip.family === ip.family && n.ip.value === ip.value);
        if (node)
          this.error(
            'VIP_IS_NODE_IP',
            vip.path,
            `VIP ${vip.text} is the address of node ${node.host}`,
            'a VIP must be a free address that no node owns',
          );
      }
      if (list.length === 2 && families.length === 2 && families[0] === families[1]) {
        this.error(
          'STACK_MISMATCH',
          list[1]!.path,
          `${name} lists two IPv${String(families[0])} addresses`,
          'a dual-stack cluster lists one VIP per family, primary family first',
        );
      } else if (
        networkFamilies.length === 2 &&
        new Set(networkFamilies).size === 2 &&
        list.length === 1
      ) {
        this.error(
          'STACK_MISMATCH',
          list[0]!.path,
          `the cluster is dual stack but ${name} has one address`,
          `add the IPv${String(families[0] === 4 ? 6 : 4)} VIP as second entry`,
        );
      } else if (primary !== undefined && families.length > 0 && families[0] !== primary) {
        this.error(
          'STACK_MISMATCH',
          list[0]!.path,
          `${name} starts with an IPv${String(families[0])} address but the primary machine network is IPv${String(primary)}`,
          'list VIPs in the same family order as the networks',
        );
      }
    }
  }

  // -- nodes ------------------------------------------------------------------------------

  private checkNodes(): void {
    const hostNames = new Map<string, number>();
    this.cluster.nodes.forEach((node, index) => {
      const at = [...this.at, 'nodes', index];
      if (!this.sound('nodes', index, 'hostName')) {
        this.checkNode(node, at);
        return;
      }
      const first = hostNames.get(node.hostName);
      if (!isDnsSubdomain(node.hostName)) {
        this.error(
          'HOSTNAME_INVALID',
          [...at, 'hostName'],
          `hostName ${quote(node.hostName)} is not a valid DNS name`,
          'use lowercase letters, digits, "-" and ".", each label starting and ending with a letter or digit',
        );
      }
      const secretName = `${node.hostName}-bmc-secret`;
      if (
        node.bmcCredentials !== undefined &&
        node.bmcCredentialsName === undefined &&
        secretName.length > 253 &&
        node.hostName.length <= 253
      ) {
        this.error(
          'HOSTNAME_INVALID',
          [...at, 'hostName'],
          `hostName has ${String(node.hostName.length)} characters: the BMC Secret named after it (<hostName>-bmc-secret) would exceed Kubernetes' 253`,
          'use a host name of at most 242 characters, or name the Secret with bmcCredentialsName',
        );
      }
      if (first !== undefined) {
        this.error(
          'HOSTNAME_DUPLICATE',
          [...at, 'hostName'],
          `hostName ${quote(node.hostName)} is already used by node ${String(first)} of this cluster`,
          'each node needs its own hostName: it names the BareMetalHost',
        );
      } else {
        hostNames.set(node.hostName, index);
      }
      this.checkNode(node, at);
    });
  }

  private checkNode(node: SiteConfigNode, at: Path): void {
    const sound = (...path: Path): boolean => this.sound(...at.slice(this.at.length), ...path);
    if (node.remove === true && (node.role ?? 'master') === 'master' && this.topologySound) {
      if (this.isSno) {
        this.error(
          'REMOVE_SNO_CONTROL_PLANE',
          [...at, 'remove'],
          'remove: true on the only control-plane node would destroy the cluster',
          'to decommission a single-node cluster, delete its cluster entry instead',
        );
      } else {
        this.warn(
          'REMOVE_CONTROL_PLANE',
          [...at, 'remove'],
          'removing a control-plane node leaves etcd with two members until it is replaced',
          'add the replacement node in the same change, or follow the control-plane replacement procedure',
        );
      }
    }
    const bmc = sound('bmcAddress') ? parseBmcAddress(node.bmcAddress) : undefined;
    if (bmc === undefined) {
      // reported by the schema
    } else if ('problem' in bmc) {
      this.error(
        'BMC_ADDRESS_INVALID',
        [...at, 'bmcAddress'],
        `bmcAddress: ${bmc.problem}`,
        bmc.hint,
      );
    } else if (!bmc.virtualMedia) {
      this.report.add(
        this.doc,
        'warning',
        'BMC_NEEDS_PROVISIONING_NETWORK',
        [...at, 'bmcAddress'],
        `BMC scheme ${quote(bmc.scheme)} boots over a provisioning network, which edge sites do not have`,
        'use redfish-virtualmedia, idrac-virtualmedia or ilo5-virtualmedia to boot the discovery ISO',
      );
    }
    const macs = new Map<string, Path>();
    const bootPath = [...at, 'bootMACAddress'];
    const bootKey = sound('bootMACAddress')
      ? this.macKey(bootPath, node.bootMACAddress)
      : undefined;
    if (bootKey) macs.set(bootKey, bootPath);
    const interfaces = sound('nodeNetwork', 'interfaces')
      ? (node.nodeNetwork?.interfaces ?? [])
      : [];
    const interfaceNames = new Set<string>();
    const interfaceMacs = new Set<string>();
    interfaces.forEach((nic, index) => {
      const path = [...at, 'nodeNetwork', 'interfaces', index, 'macAddress'];
      interfaceNames.add(nic.name);
      const key = this.macKey(path, nic.macAddress);
      if (!key) return;
      if (interfaceMacs.has(key)) {
        this.error(
          'MAC_DUPLICATE',
          path,
          `MAC ${nic.macAddress} is listed twice for node ${node.hostName}`,
          'each interface has its own MAC',
        );
      }
      interfaceMacs.add(key);
      if (!macs.has(key)) macs.set(key, path);
    });
    // An interface MAC that is no MAC is reported already; it may well be the boot MAC mistyped.
    if (
      bootKey &&
      interfaces.length > 0 &&
      !interfaceMacs.has(bootKey) &&
      interfaces.every((nic) => MAC.test(nic.macAddress))
    ) {
      // A warning: the host boots from virtual media and is matched by any of its MACs.
      this.report.add(
        this.doc,
        'warning',
        'BOOT_MAC_NOT_IN_INTERFACES',
        bootPath,
        `bootMACAddress ${node.bootMACAddress} is not among nodeNetwork.interfaces`,
        `add {name: <nic>, macAddress: ${quote(node.bootMACAddress)}} to nodeNetwork.interfaces, or fix the MAC`,
      );
    }
    for (const [key, path] of macs) this.claimMac(node, key, path);
    if (node.nodeNetwork?.config !== undefined && sound('nodeNetwork', 'config'))
      this.checkNmstate(
        node,
        [...at, 'nodeNetwork', 'config'],
        node.nodeNetwork.config,
        interfaceNames,
      );
    const minSize = node.rootDeviceHints?.minSizeGigabytes;
    if (minSize !== undefined && sound('rootDeviceHints', 'minSizeGigabytes'))
      this.checkInteger([...at, 'rootDeviceHints', 'minSizeGigabytes'], minSize);
    if (node.hardwareProfile !== undefined) {
      this.warn(
        'IGNORED_FIELD',
        [...at, 'hardwareProfile'],
        'hardwareProfile is in the upstream CRD but no generator uses it',
        'remove it',
      );
    }
    if (node.installerArgs !== undefined && sound('installerArgs')) {
      const parsed = parseJsonField(node.installerArgs);
      if (
        'problem' in parsed ||
        !Array.isArray(parsed.value) ||
        !parsed.value.every((arg) => typeof arg === 'string')
      ) {
        this.error(
          'INSTALLER_ARGS_INVALID',
          [...at, 'installerArgs'],
          `installerArgs is not a JSON array of strings${'problem' in parsed ? `: ${parsed.problem}` : ''}`,
          `write it as a string holding a JSON list, e.g. '["--append-karg","nameserver=8.8.8.8"]'`,
        );
      }
    }
    if (node.ignitionConfigOverride !== undefined && sound('ignitionConfigOverride'))
      this.checkIgnition([...at, 'ignitionConfigOverride'], node.ignitionConfigOverride);
    const nodeLabels = sound('nodeLabels') ? (node.nodeLabels ?? {}) : {};
    for (const [key, value] of Object.entries(nodeLabels)) {
      const problem = labelKeyProblem(key);
      if (problem)
        this.error(
          'LABEL_INVALID',
          [...at, 'nodeLabels', key],
          `node label key ${quote(key)} is invalid: ${problem}`,
          'the label is applied to the Node object; rename it',
          'key',
        );
      const text = scalarText(nodeLabels, key, value);
      const valueProblem = labelValueProblem(text);
      if (valueProblem)
        this.error(
          'LABEL_INVALID',
          [...at, 'nodeLabels', key],
          `node label value ${quote(text)} of ${quote(key)} is invalid: ${valueProblem}`,
          'the label is applied to the Node object; shorten or simplify the value',
        );
    }
  }

  /** Checks MAC syntax; returns the MAC in lower case, or undefined when it is not one. */
  private macKey(path: Path, mac: string): string | undefined {
    if (MAC.test(mac)) return mac.toLowerCase();
    this.error(
      'MAC_INVALID',
      path,
      `${quote(mac)} is not a MAC address`,
      'write six hex pairs separated by colons, e.g. 0c:42:a1:8a:74:ec',
    );
    return undefined;
  }

  /** Records that a host owns a MAC; a second host with the same MAC anywhere in the input is an error. */
  private claimMac(node: SiteConfigNode, key: string, path: Path): void {
    const owner = `${this.cluster.clusterName}/${node.hostName}`;
    const first = this.fleet.macs.get(key);
    if (!first) this.fleet.macs.set(key, { place: FleetIndex.place(this.doc, path), owner });
    else if (first.owner !== owner) {
      this.report.add(
        this.doc,
        'error',
        'MAC_DUPLICATE',
        path,
        `MAC ${key} is also used by ${first.owner} (${RELATED})`,
        'MAC addresses identify hosts; every host in the fleet needs its own',
        'value',
        first.place,
      );
    }
  }

  private checkNmstate(
    node: SiteConfigNode,
    at: Path,
    config: Readonly<Record<string, unknown>>,
    mappedNames: Set<string>,
  ): void {
    const ifaces = Array.isArray(config['interfaces']) ? (config['interfaces'] as unknown[]) : [];
    const names = new Set<string>();
    ifaces.forEach((raw, index) => {
      if (!isPlainObject(raw)) return;
      const iface = raw;
      const name = iface['name'];
      if (typeof name === 'string') names.add(name);
      if (
        typeof name === 'string' &&
        iface['type'] === 'ethernet' &&
        mappedNames.size > 0 &&
        !mappedNames.has(name)
      ) {
        this.report.add(
          this.doc,
          'warning',
          'NMSTATE_INTERFACE_UNMAPPED',
          [...at, 'interfaces', index, 'name'],
          `ethernet interface ${quote(name)} has no MAC in nodeNetwork.interfaces`,
          `add {name: ${name}, macAddress: ...} to nodeNetwork.interfaces so the discovery image can find the NIC`,
        );
      }
      for (const family of [4, 6] as const) {
        const stack = iface[`ipv${String(family)}`];
        if (!isPlainObject(stack)) continue;
        const addresses = stack['address'];
        if (!Array.isArray(addresses)) continue;
        addresses.forEach((entry: unknown, k) => {
          if (!isPlainObject(entry)) return;
          const { ip, 'prefix-length': prefix } = entry as {
            ip?: unknown;
            'prefix-length'?: unknown;
          };
          const path = [...at, 'interfaces', index, `ipv${String(family)}`, 'address', k];
          const parsed = typeof ip === 'string' ? parseIp(ip) : undefined;
          if (parsed?.family !== family) {
            this.error(
              'NMSTATE_ADDRESS_INVALID',
              [...path, 'ip'],
              `${String(ip)} is not an IPv${String(family)} address`,
              `list IPv${String(family)} addresses under ipv${String(family)}.address`,
            );
            return;
          }
          const bits = family === 4 ? 32 : 128;
          if (
            typeof prefix !== 'number' ||
            !Number.isInteger(prefix) ||
            prefix < 1 ||
            prefix > bits
          ) {
            this.error(
              'NMSTATE_ADDRESS_INVALID',
              [...path, 'prefix-length'],
              `prefix-length ${String(prefix)} is not valid for IPv${String(family)}`,
              `use an integer from 1 to ${String(bits)}`,
            );
            return;
          }
          const duplicate = this.nodeIps.find(
            (n) => n.ip.family === family && n.ip.value === parsed.value,
          );
          if (duplicate && duplicate.host !== node.hostName) {
            this.error(
              'NODE_IP_DUPLICATE',
              [...path, 'ip'],
              `address ${ip as string} is also configured on node ${duplicate.host}`,
              'every node needs its own address',
            );
          }
          this.nodeIps.push({ ip: parsed, path: [...path, 'ip'], host: node.hostName });
        });
      }
    });
    const routes = isPlainObject(config['routes']) ? config['routes']['config'] : undefined;
    if (Array.isArray(routes)) {
      routes.forEach((raw: unknown, index) => {
        if (!isPlainObject(raw)) return;
        const route = raw;
        const path = [...at, 'routes', 'config', index];
        const dest = route['destination'];
        if (typeof dest === 'string' && !parseCidr(dest))
          this.error(
            'NMSTATE_ROUTE_INVALID',
            [...path, 'destination'],
            `route destination ${quote(dest)} is not a CIDR`,
            'use 0.0.0.0/0 or ::/0 for a default route',
          );
        const hop = route['next-hop-address'];
        if (typeof hop === 'string' && !parseIp(hop))
          this.error(
            'NMSTATE_ROUTE_INVALID',
            [...path, 'next-hop-address'],
            `next-hop-address ${quote(hop)} is not an IP address`,
            'write the gateway address',
          );
        const via = route['next-hop-interface'];
        if (typeof via === 'string' && !names.has(via)) {
          this.error(
            'NMSTATE_ROUTE_INTERFACE_UNKNOWN',
            [...path, 'next-hop-interface'],
            `route uses interface ${quote(via)}, which config.interfaces does not define`,
            names.size > 0
              ? `use one of: ${[...names].join(', ')}`
              : 'define the interface under nodeNetwork.config.interfaces',
          );
        }
      });
    }
    const dns = isPlainObject(config['dns-resolver'])
      ? config['dns-resolver']['config']
      : undefined;
    const servers = isPlainObject(dns) ? dns['server'] : undefined;
    if (Array.isArray(servers)) {
      servers.forEach((server: unknown, index) => {
        if (typeof server !== 'string' || !parseIp(server)) {
          this.error(
            'NMSTATE_DNS_INVALID',
            [...at, 'dns-resolver', 'config', 'server', index],
            `DNS server ${quote(server)} is not an IP address`,
            'list name server IP addresses',
          );
        }
      });
    }
    this.checkNodeInMachineNetwork(node);
  }

  /** A node with static addresses needs one inside the machine network of each family it uses. */
  private checkNodeInMachineNetwork(node: SiteConfigNode): void {
    if (this.cluster.machineNetwork === undefined || !this.sound('machineNetwork')) return;
    const networks = this.cluster.machineNetwork
      .map((n) => parseCidr(n.cidr))
      .filter((c): c is Cidr => c !== undefined);
    const mine = this.nodeIps.filter((n) => n.host === node.hostName);
    for (const family of [4, 6] as const) {
      const familyNetworks = networks.filter((n) => n.family === family);
      const familyIps = mine.filter((n) => n.ip.family === family);
      if (familyNetworks.length === 0 || familyIps.length === 0) continue;
      if (!familyIps.some((n) => familyNetworks.some((net) => cidrContains(net, n.ip)))) {
        this.error(
          'NODE_IP_OUTSIDE_MACHINE_NETWORK',
          familyIps[0]!.path,
          `node ${node.hostName} has no IPv${String(family)} address inside machineNetwork ${familyNetworks.map((n) => n.text).join(', ')}`,
          'the installer picks the node address from the machine network; fix the address or machineNetwork',
        );
      }
    }
  }

  /**
   * JSON Schema's "integer" lets `.inf` and `1e+30` through (they have no fraction); the hub and
   * Go readers take neither. Fractions and `.nan` fail the schema already (isNotInteger).
   */
  private checkInteger(path: Path, value: number): void {
    if (!Number.isSafeInteger(value))
      this.error(
        'NUMBER_NOT_INTEGER',
        path,
        `${quote(path.join('.'))} must be a whole number, not ${numberText(value)}`,
        NOT_INTEGER_HINT,
      );
  }

  // -- fields generated by later stages, validated now -------------------------------------

  private checkDeferredFields(): void {
    const { cluster, at } = this;
    cluster.nodes.forEach((node, index) => {
      const nodeAt = [...at, 'nodes', index];
      if (node.cpuset !== undefined && this.sound('nodes', index, 'cpuset')) {
        this.report.add(
          this.doc,
          'warning',
          'DEPRECATED_FIELD',
          [...nodeAt, 'cpuset'],
          'cpuset is deprecated since OpenShift 4.15',
          'set cpuPartitioningMode: AllNodes on the cluster and a PerformanceProfile instead',
          'key',
        );
        // siteconfig-generator ignores cpuset on multi-node clusters, and so does the compiler.
        if (!this.isSno && this.topologySound)
          this.warn(
            'SNO_ONLY_FIELD',
            [...nodeAt, 'cpuset'],
            'cpuset is ignored: workload partitioning by cpuset applies to single-node clusters only',
            'remove cpuset, or use cpuPartitioningMode: AllNodes',
          );
      }
      if (!this.sound('nodes', index, 'diskPartition')) return;
      if ((node.diskPartition ?? []).length > 0 && !this.isSno && this.topologySound) {
        this.error(
          'SNO_ONLY_FIELD',
          [...nodeAt, 'diskPartition'],
          'diskPartition is only supported on single-node clusters',
          'remove diskPartition, or use ignitionConfigOverride on multi-node clusters',
          'key',
        );
      }
      (node.diskPartition ?? []).forEach((disk, d) => {
        disk.partitions.forEach((part, p) => {
          const path = [...nodeAt, 'diskPartition', d, 'partitions', p];
          this.checkInteger([...path, 'start'], part.start);
          this.checkInteger([...path, 'size'], part.size);
          if (part.start < 25000)
            this.error(
              'DISK_PARTITION_INVALID',
              [...path, 'start'],
              `partition start ${String(part.start)} MiB overlaps the OS`,
              'start data partitions at 25000 MiB or later',
            );
          if (part.size <= 0)
            this.error(
              'DISK_PARTITION_INVALID',
              [...path, 'size'],
              `partition size ${String(part.size)} must be positive`,
              'give the size in MiB',
            );
          if (!part.mount_point.startsWith('/'))
            this.error(
              'DISK_PARTITION_INVALID',
              [...path, 'mount_point'],
              `mount_point ${quote(part.mount_point)} is not an absolute path`,
              'write it as /var/imageregistry',
            );
        });
      });
    });
    const filter = cluster.extraManifests?.filter;
    if (filter && this.sound('extraManifests', 'filter')) {
      const mode = filter.inclusionDefault ?? 'include';
      const wrong = mode === 'include' ? 'include' : 'exclude';
      if (filter[wrong] !== undefined) {
        // siteconfig-generator refuses entries in the wrong list and takes an empty one.
        this.report.add(
          this.doc,
          filter[wrong].length > 0 ? 'error' : 'warning',
          'FILTER_INVALID',
          [...at, 'extraManifests', 'filter', wrong],
          `filter.${wrong} has no effect when inclusionDefault is ${mode}`,
          mode === 'include'
            ? 'list files to drop under exclude, or set inclusionDefault: exclude'
            : 'list files to keep under include, or set inclusionDefault: include',
          'key',
        );
      }
    }
    if (cluster.extraManifestPath !== undefined) {
      this.report.add(
        this.doc,
        'warning',
        'DEPRECATED_FIELD',
        [...at, 'extraManifestPath'],
        'extraManifestPath is deprecated since 4.14',
        'use extraManifests.searchPaths',
        'key',
      );
      if (cluster.extraManifests?.searchPaths !== undefined)
        this.report.add(
          this.doc,
          'warning',
          'IGNORED_FIELD',
          [...at, 'extraManifestPath'],
          'extraManifestPath is ignored because extraManifests.searchPaths is set',
          'move the directory into searchPaths',
          'key',
        );
    }
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The text of a scalar map value as a Go YAML reader would give it to a string field. */
export function scalarText(container: unknown, key: string, value: unknown): string {
  if (typeof value === 'string') return value;
  const raw = rawText(container, key);
  if (raw !== undefined) return value === null ? '' : raw;
  return value === null || value === undefined ? '' : JSON.stringify(value);
}

/** A deep copy of parsed YAML data without the source-location tables. */
export function toPlain(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(toPlain);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) out[key] = toPlain((value as Record<string, unknown>)[key]);
  return out;
}

/**
 * Copies a validated SiteConfig into plain data (no location tables), with label and annotation
 * values as the strings a Go YAML reader would have read.
 */
export function normalize(site: SiteConfig): SiteConfig {
  const strings = (
    map: Readonly<Record<string, unknown>> | undefined,
  ): Record<string, string> | undefined => {
    if (map === undefined) return undefined;
    return Object.fromEntries(Object.entries(map).map(([k, v]) => [k, scalarText(map, k, v)]));
  };
  const withAnnotations = <
    T extends {
      crAnnotations?: { add?: Readonly<Record<string, Readonly<Record<string, unknown>>>> };
    },
  >(
    plain: T,
    source: T,
  ): T => {
    const add = source.crAnnotations?.add;
    if (add === undefined) return plain;
    return {
      ...plain,
      crAnnotations: {
        add: Object.fromEntries(
          Object.entries(add).map(([kind, map]) => [kind, strings(map) ?? {}]),
        ),
      },
    };
  };
  const plain = toPlain(site) as SiteConfig;
  return {
    ...plain,
    spec: {
      ...withAnnotations(plain.spec, site.spec),
      clusters: plain.spec.clusters.map((cluster, c) => {
        const source = site.spec.clusters[c]!;
        return {
          ...withAnnotations(cluster, source),
          ...(source.clusterLabels ? { clusterLabels: strings(source.clusterLabels) } : {}),
          nodes: cluster.nodes.map((node, n) => {
            const nodeSource = source.nodes[n]!;
            return {
              ...withAnnotations(node, nodeSource),
              ...(nodeSource.nodeLabels ? { nodeLabels: strings(nodeSource.nodeLabels) } : {}),
            };
          }),
        };
      }),
    },
  };
}

export { normalize as normalizeSiteConfig };
