/**
 * Structure: the JSON Schema of the document (types, required fields, enums, unknown fields), and
 * whole numbers where the schema's "integer" lets `.inf` through. A structural error skips only
 * the checks that read the broken value (rules/rule.ts: ClusterContext.sound).
 */
import type { ErrorObject, ValidateFunction } from 'ajv';
import { quote } from '../../shared/errors.js';
import { rawText } from '../../shared/source-yaml.js';
import type { DocRef, IssueSink, Path } from '../issue-collector.js';
import { validate as validateSchema } from '../schema-validator.generated.js';
import { closest } from './predicates.js';
import { defineRule, reportRule } from './rule.js';
import type { ClusterContext, Rule } from './rule.js';

const ENUM_NOTE =
  'the enum fields (`bootMode`, `automatedCleaningMode`, `role`, `networkType`, `ironicInspect`, `cpuPartitioningMode`) are enums of the hub CRDs or refused upstream too (`ironicInspect`, `cpuPartitioningMode`)';
const SCHEMA_UPSTREAM = 'refuses type errors when reading YAML; takes any string for enum fields';

export const INVALID_TYPE = defineRule({
  code: 'INVALID_TYPE',
  severity: 'error',
  upstream: SCHEMA_UPSTREAM,
  why: ENUM_NOTE,
});

export const INVALID_VALUE = defineRule({
  code: 'INVALID_VALUE',
  severity: 'error',
  upstream: SCHEMA_UPSTREAM,
  why: ENUM_NOTE,
});

export const MISSING_FIELD = defineRule({
  code: 'MISSING_FIELD',
  severity: 'error',
  upstream: SCHEMA_UPSTREAM,
  why: ENUM_NOTE,
});

export const UNKNOWN_KIND = defineRule({
  code: 'UNKNOWN_KIND',
  severity: 'error',
  upstream: 'refuses an unknown kind in `crTemplates` ("not a valid CR type to override")',
  why: 'a kind SiteForge does not emit names no object: the template, suppression or annotation would never apply',
});

export const UNKNOWN_FIELD = defineRule({
  code: 'UNKNOWN_FIELD',
  severity: 'warning',
  upstream: 'ignores unknown fields',
  why: 'the field is ignored here too',
});

export const NUMBER_NOT_INTEGER = defineRule({
  code: 'NUMBER_NOT_INTEGER',
  severity: 'error',
  upstream: 'takes it',
  why: 'the hub refuses `.inf`, `.nan`, `1e+30` and fractions in integer fields (`hostPrefix`, `minSizeGigabytes`, partition `start`/`size`)',
});

/** The rules of this topic, for the registry. */
export const structureRules: readonly Rule[] = [
  INVALID_TYPE,
  INVALID_VALUE,
  MISSING_FIELD,
  UNKNOWN_KIND,
  UNKNOWN_FIELD,
  NUMBER_NOT_INTEGER,
];

/** The schema, compiled ahead of time (scripts/generate-schema-validator.js). */
const schemaValidator = validateSchema as unknown as ValidateFunction;

/** Runs the schema; returns the JSON paths below which the document is structurally broken. */
export function checkStructure(
  doc: DocRef,
  report: IssueSink,
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
    if (issue.rule === NUMBER_NOT_INTEGER) {
      if (notIntegers.has(error.instancePath)) continue;
      notIntegers.add(error.instancePath);
    }
    reportRule(report, doc, issue.rule, issue.path, issue.message, issue.hint, issue.at);
    if (issue.rule.severity !== 'error') continue;
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

export const NOT_INTEGER_HINT =
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
export function numberText(value: number): string {
  if (Number.isNaN(value)) return '.nan';
  if (!Number.isFinite(value)) return value > 0 ? '.inf' : '-.inf';
  return String(value);
}

interface DescribedIssue {
  rule: Rule;
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
      rule: NUMBER_NOT_INTEGER,
      path,
      message: `${where} must be a whole number, not ${numberText(error.data as number)}`,
      hint: NOT_INTEGER_HINT,
    };
  switch (error.keyword) {
    case 'anyOf':
      return {
        rule: MISSING_FIELD,
        path,
        message: `${where} names no BMC credentials`,
        hint: 'add bmcCredentialsName (an existing Secret) or bmcCredentials (externalSecret or fromDirectory)',
      };
    case 'minProperties':
    case 'maxProperties':
      return {
        rule: INVALID_VALUE,
        path,
        message: `${where} must set exactly one of externalSecret or fromDirectory`,
        hint: 'keep the one source the credentials come from',
      };
    case 'required': {
      const field = String(params['missingProperty']);
      return {
        rule: MISSING_FIELD,
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
        rule: UNKNOWN_FIELD,
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
        rule: isKey ? UNKNOWN_KIND : INVALID_VALUE,
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
        rule: INVALID_VALUE,
        path,
        message: `${where} must be ${JSON.stringify(params['allowedValue'])}`,
        hint: `set it to ${JSON.stringify(params['allowedValue'])}`,
      };
    case 'type': {
      const wanted = String(params['type']).replace(/,/g, ' or ');
      const got =
        error.data === null ? 'null' : Array.isArray(error.data) ? 'a list' : typeof error.data;
      return {
        rule: INVALID_TYPE,
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
        rule: INVALID_VALUE,
        path,
        message: `${where} ${String(error.message)}`,
        hint:
          error.keyword === 'pattern'
            ? `it must match ${String(params['pattern'])}`
            : 'see `siteforge schema` for the allowed values',
      };
    default:
      return {
        rule: INVALID_VALUE,
        path,
        message: `${where} ${String(error.message)}`,
      };
  }
}

/**
 * JSON Schema's "integer" lets `.inf` and `1e+30` through (they have no fraction); the hub and
 * Go readers take neither. Fractions and `.nan` fail the schema already (isNotInteger).
 */
export function checkInteger(cluster: ClusterContext, path: Path, value: number): void {
  if (!Number.isSafeInteger(value))
    cluster.report(
      NUMBER_NOT_INTEGER,
      path,
      `${quote(path.join('.'))} must be a whole number, not ${numberText(value)}`,
      NOT_INTEGER_HINT,
    );
}
