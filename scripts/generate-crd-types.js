// Generates src/imports/<group>.ts from the CRD manifests in crds/: for each kind SiteForge
// emits, its group/version/kind and the type of its `spec`, shaped exactly like the JSON the API
// server takes (field names as the schema spells them: `bootMACAddress`, `apiVIPs`,
// `installation_disk_id`), so that the compiler builds its objects against them and a misspelt
// or mis-typed field fails to compile. Run after changing crds/ or EMITTED: `npm run imports`.
// The output is deterministic; a test fails when a committed file is stale.
//
// Why not `cdk8s import`: its types rename fields to camelCase (`bootMacAddress`, `apiViPs`) and
// need a generated toJson_ function per type to get the real names back at run time, so they
// cannot type the plain JSON the compiler builds.
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * The kinds whose types code uses: the ones the compiler emits. Add a kind here when code needs
 * its type; the other CRDs in crds/ (watched, not emitted) generate nothing.
 */
export const EMITTED = [
  'AgentClusterInstall',
  'BareMetalHost',
  'ClusterDeployment',
  'ClusterInstance',
  'ExternalSecret',
  'HostFirmwareSettings',
  'InfraEnv',
  'KlusterletAddonConfig',
  'ManagedCluster',
  'NMStateConfig',
];

/** Schema keywords that only constrain values (or steer the API server), not their type. */
const CONSTRAINTS = new Set([
  'description',
  'default',
  'format',
  'pattern',
  'minimum',
  'maximum',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'minProperties',
  'maxProperties',
  'x-kubernetes-map-type',
  'x-kubernetes-list-type',
  'x-kubernetes-list-map-keys',
  'x-kubernetes-validations',
]);
const TYPING = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'enum',
  'nullable',
  'anyOf',
  'x-kubernetes-int-or-string',
  'x-kubernetes-preserve-unknown-fields',
]);

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** A TypeScript literal of a JSON scalar: strings in single quotes, as the code base writes them. */
function literal(value) {
  if (typeof value === 'string') return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  return JSON.stringify(value);
}

function key(name) {
  return IDENTIFIER.test(name) ? name : literal(name);
}

/** TSDoc lines for a schema's description and default, or none. */
function doc(schema, pad) {
  const lines = [];
  if (typeof schema.description === 'string')
    lines.push(
      ...schema.description
        .trim()
        .split('\n')
        .map((l) => l.trimEnd()),
    );
  if (schema.default !== undefined) lines.push(`@default ${JSON.stringify(schema.default)}`);
  if (lines.length === 0) return '';
  const safe = lines.map((l) => l.replace(/\*\//g, '*\\/'));
  if (safe.length === 1) return `${pad}/** ${safe[0]} */\n`;
  return `${pad}/**\n${safe.map((l) => (l === '' ? `${pad} *` : `${pad} * ${l}`)).join('\n')}\n${pad} */\n`;
}

/** The TypeScript type of a schema; `where` names it in errors. */
function typeOf(schema, indent, where) {
  for (const keyword of Object.keys(schema))
    if (!TYPING.has(keyword) && !CONSTRAINTS.has(keyword))
      throw new Error(`${where}: schema keyword ${keyword} has no TypeScript rendering here`);
  const base = baseType(schema, indent, where);
  return schema.nullable === true ? `${base} | null` : base;
}

function baseType(schema, indent, where) {
  if (schema['x-kubernetes-int-or-string'] === true) return 'number | string';
  if (schema.anyOf !== undefined) throw new Error(`${where}: anyOf other than int-or-string`);
  if (Array.isArray(schema.enum)) return schema.enum.map(literal).join(' | ');
  switch (schema.type) {
    case 'string':
      return 'string';
    case 'integer':
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'array': {
      if (schema.items === undefined) throw new Error(`${where}: array without items`);
      const item = typeOf(schema.items, indent, `${where}[]`);
      return /[|&]/.test(item.split('\n')[0]) ? `readonly (${item})[]` : `readonly ${item}[]`;
    }
    case 'object':
      return objectType(schema, indent, where);
    case undefined:
      if (schema['x-kubernetes-preserve-unknown-fields'] === true) return 'unknown';
      throw new Error(`${where}: schema without a type`);
    default:
      throw new Error(`${where}: unknown type ${String(schema.type)}`);
  }
}

function objectType(schema, indent, where) {
  const pad = '  '.repeat(indent + 1);
  const members = [];
  const required = new Set(schema.required ?? []);
  for (const name of Object.keys(schema.properties ?? {})) {
    const property = schema.properties[name];
    // The API server fills in defaults before it checks required fields: one with a default
    // may be left out.
    const optional = required.has(name) && property.default === undefined ? '' : '?';
    const type = typeOf(property, indent + 1, `${where}.${name}`);
    members.push(`${doc(property, pad)}${pad}readonly ${key(name)}${optional}: ${type};\n`);
  }
  for (const name of required)
    if (!(name in (schema.properties ?? {})))
      throw new Error(`${where}: required field ${name} has no schema`);
  const extra = schema.additionalProperties;
  if (extra !== undefined && extra !== false && members.length > 0)
    throw new Error(`${where}: properties and additionalProperties together`);
  if (typeof extra === 'object') {
    members.push(`${pad}readonly [key: string]: ${typeOf(extra, indent + 1, `${where}.*`)};\n`);
  } else if (extra === true || schema['x-kubernetes-preserve-unknown-fields'] === true) {
    // Fields the schema leaves open are kept by the API server as they are.
    members.push(`${pad}readonly [key: string]: unknown;\n`);
  } else if (members.length === 0) {
    // A structural schema prunes every field of an object that declares none.
    return 'Readonly<Record<string, never>>';
  }
  return `{\n${members.join('')}${'  '.repeat(indent)}}`;
}

function deepEqual(a, b) {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** `v1beta1` → `V1beta1`: the suffix of the types of a version that is not the stored one. */
function versionSuffix(version) {
  return version.charAt(0).toUpperCase() + version.slice(1);
}

/** The generated files: path below the repository → text. */
export function generate(crdDir = join(root, 'crds')) {
  const groups = new Map();
  for (const file of readdirSync(crdDir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()) {
    const crd = parse(readFileSync(join(crdDir, file), 'utf8'));
    const kind = crd?.spec?.names?.kind;
    if (crd?.kind !== 'CustomResourceDefinition' || !EMITTED.includes(kind)) continue;
    const group = crd.spec.group;
    if (!groups.has(group)) groups.set(group, []);
    groups.get(group).push({ file, kind, crd });
  }
  const missing = EMITTED.filter((k) => ![...groups.values()].flat().some((c) => c.kind === k));
  if (missing.length > 0) throw new Error(`no CRD in crds/ for ${missing.join(', ')}`);

  const out = {};
  for (const group of [...groups.keys()].sort()) {
    const crds = groups.get(group).sort((a, b) => (a.kind < b.kind ? -1 : 1));
    const parts = [
      `// GENERATED by scripts/generate-crd-types.js from ${crds.map((c) => `crds/${c.file}`).join(', ')}.\n` +
        '// Do not edit: change crds/ and run `npm run imports`.\n',
    ];
    for (const { kind, crd } of crds) {
      // The stored version first: its types get the plain names.
      const versions = [...crd.spec.versions].sort(
        (a, b) => Number(b.storage === true) - Number(a.storage === true),
      );
      const stored = versions[0];
      for (const version of versions) {
        const name = version === stored ? kind : `${kind}${versionSuffix(version.name)}`;
        const apiVersion = `${group}/${version.name}`;
        const spec = version.schema?.openAPIV3Schema?.properties?.spec;
        if (spec === undefined) throw new Error(`${kind} ${version.name}: no spec schema`);
        parts.push(
          `/** ${kind} (${apiVersion}): its apiVersion and kind. */\n` +
            `export const ${name}GVK = {\n  apiVersion: ${literal(apiVersion)},\n  kind: ${literal(kind)},\n} as const;\n`,
        );
        const storedSpec = stored.schema.openAPIV3Schema.properties.spec;
        if (version !== stored && deepEqual(spec, storedSpec)) {
          parts.push(
            `/** The spec of ${kind} ${version.name}: the same as ${stored.name}. */\n` +
              `export type ${name}Spec = ${kind}Spec;\n`,
          );
          continue;
        }
        const described = {
          ...spec,
          description: spec.description ?? `The spec of ${kind} ${version.name}.`,
        };
        const type = typeOf(spec, 0, `${kind}.spec`);
        const declaration = type.startsWith('{')
          ? `export interface ${name}Spec ${type}`
          : `export type ${name}Spec = ${type};`;
        parts.push(`${doc(described, '')}${declaration}\n`);
      }
    }
    out[join('src', 'imports', `${group}.ts`)] = parts.join('\n');
  }
  return out;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const files = generate();
  for (const old of readdirSync(join(root, 'src', 'imports')))
    if (!(join('src', 'imports', old) in files)) {
      rmSync(join(root, 'src', 'imports', old));
      console.log(`removed src/imports/${old}`);
    }
  for (const [path, text] of Object.entries(files)) {
    writeFileSync(join(root, path), text);
    console.log(`wrote ${path}`);
  }
}
