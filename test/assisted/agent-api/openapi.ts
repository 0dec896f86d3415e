/**
 * Checks requests and responses against docs/openapi/assisted-agent-api.yaml with ajv: the
 * document's component schemas compiled once, each exchange matched to its operation by method
 * and path template, then its parameters, body and status checked. Used through the agent
 * client's `onExchange` hook, so every call a test makes is checked.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import type { ValidateFunction } from 'ajv';
import { parse } from 'yaml';
import type { AgentExchange } from '../../support/agent-client.js';

const DOC_PATH = join(
  import.meta.dirname,
  '..',
  '..',
  '..',
  'docs',
  'openapi',
  'assisted-agent-api.yaml',
);
const BASE = '/api/assisted-install';
/** go-openapi strfmt UUID: hyphens optional. */
const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;

interface Parameter {
  readonly name: string;
  readonly in: 'path' | 'query' | 'header';
  readonly required?: boolean;
  readonly schema: object;
}

interface Operation {
  readonly parameters?: readonly (Parameter | { readonly $ref: string })[];
  readonly requestBody?: {
    readonly required?: boolean;
    readonly content: Record<string, { schema: object }>;
  };
  readonly responses: Record<
    string,
    { readonly $ref?: string; readonly content?: Record<string, { schema: object }> }
  >;
}

interface Doc {
  readonly paths: Record<string, Record<string, Operation>>;
  readonly components: {
    readonly parameters: Record<string, Parameter>;
    readonly responses: Record<string, { readonly content?: Record<string, { schema: object }> }>;
    readonly schemas: Record<string, object>;
  };
}

/** The document, parsed. */
export function loadAgentApiDoc(): Doc {
  return parse(readFileSync(DOC_PATH, 'utf8')) as Doc;
}

/** Validates agent API exchanges against the OpenAPI document. */
export class AgentApiConformance {
  readonly doc = loadAgentApiDoc();
  /** Every violation found so far, one line each. */
  readonly violations: string[] = [];
  /** Operation ids and statuses seen: `v2RegisterHost 201`. */
  readonly seen = new Set<string>();
  private readonly ajv: Ajv;
  private readonly compiled = new Map<object, ValidateFunction>();

  constructor() {
    this.ajv = new Ajv({ strict: false, allErrors: true });
    this.ajv.addFormat('uuid', UUID);
    this.ajv.addFormat('date-time', (text: string) =>
      /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(text),
    );
    this.ajv.addFormat('binary', () => true);
    this.ajv.addKeyword({
      keyword: 'x-json-text',
      validate: (_schema: unknown, data: unknown) => {
        if (typeof data !== 'string') return true;
        try {
          JSON.parse(data);
          return true;
        } catch {
          return false;
        }
      },
    });
    this.ajv.addSchema({ $id: 'doc', components: this.doc.components });
  }

  /** Checks one exchange; violations are collected, not thrown. */
  readonly check = (exchange: AgentExchange): void => {
    const problems = this.problems(exchange);
    for (const problem of problems) {
      this.violations.push(
        `${exchange.method} ${exchange.path} → ${String(exchange.status)}: ${problem}`,
      );
    }
  };

  /** The problems of one exchange. */
  problems(exchange: AgentExchange): string[] {
    const url = new URL(exchange.path, 'http://x');
    if (!url.pathname.startsWith(`${BASE}/`)) return [`path outside ${BASE}`];
    const inner = url.pathname.slice(BASE.length);
    const found = this.operation(exchange.method, inner);
    if (!found) {
      // Requests to paths we do not serve must get the 404/405 infra_error.
      return exchange.status === 404 || exchange.status === 405
        ? this.schemaProblems('infra_error', exchange.responseBody, 'response')
        : ['no such operation in the document'];
    }
    const { operation, params, id } = found;
    this.seen.add(`${id} ${String(exchange.status)}`);
    const problems: string[] = [];
    const authenticated = exchange.status !== 401;
    for (const parameter of this.parameters(operation)) {
      const value =
        parameter.in === 'path'
          ? params[parameter.name]
          : parameter.in === 'query'
            ? (url.searchParams.get(parameter.name) ?? undefined)
            : exchange.requestHeaders[parameter.name.toLowerCase()];
      if (value === undefined) {
        if (parameter.required === true && authenticated && exchange.status < 400)
          problems.push(`missing ${parameter.in} parameter ${parameter.name}`);
        continue;
      }
      const typed =
        (parameter.schema as { type?: string }).type === 'integer' ? Number(value) : value;
      if (exchange.status < 400)
        problems.push(...this.check1(parameter.schema, typed, `${parameter.in} ${parameter.name}`));
    }
    if (operation.requestBody && exchange.status < 400) {
      const type = (exchange.requestHeaders['content-type'] ?? '').split(';')[0]!.trim();
      const media = operation.requestBody.content[type];
      if (!media) problems.push(`request content type ${JSON.stringify(type)} not in the document`);
      else if (type === 'application/json') {
        problems.push(
          ...this.check1(media.schema, JSON.parse(exchange.requestBody ?? 'null'), 'request body'),
        );
      }
    }
    const response = operation.responses[String(exchange.status)];
    if (!response) {
      problems.push(`status ${String(exchange.status)} not in the document`);
      return problems;
    }
    const resolved = response.$ref
      ? this.doc.components.responses[response.$ref.split('/').pop()!]!
      : response;
    if (!resolved.content) {
      if (exchange.responseBody !== '') problems.push('a body where the document says none');
      return problems;
    }
    const media = resolved.content['application/json'];
    if (!media) return [...problems, 'response media type not JSON in the document'];
    if (!(exchange.responseHeaders['content-type'] ?? '').startsWith('application/json')) {
      problems.push(`response content type ${exchange.responseHeaders['content-type'] ?? 'none'}`);
    }
    let body: unknown;
    try {
      body = JSON.parse(exchange.responseBody);
    } catch {
      return [...problems, 'response body is not JSON'];
    }
    problems.push(...this.check1(media.schema, body, 'response body'));
    return problems;
  }

  /** Validates a value against a named component schema. */
  schemaProblems(name: string, text: string, where: string): string[] {
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return [`${where} is not JSON`];
    }
    return this.check1({ $ref: `#/components/schemas/${name}` }, body, where);
  }

  private check1(schema: object, value: unknown, where: string): string[] {
    let validate = this.compiled.get(schema);
    if (!validate) {
      validate = this.ajv.compile(rebase(schema));
      this.compiled.set(schema, validate);
    }
    if (validate(value)) return [];
    return (validate.errors ?? []).map(
      (error) => `${where}${error.instancePath} ${error.message ?? 'invalid'}`,
    );
  }

  private parameters(operation: Operation): Parameter[] {
    return (operation.parameters ?? []).map((parameter) =>
      '$ref' in parameter
        ? this.doc.components.parameters[parameter.$ref.split('/').pop()!]!
        : parameter,
    );
  }

  private operation(
    method: string,
    path: string,
  ): { operation: Operation; params: Record<string, string>; id: string } | undefined {
    for (const [template, operations] of Object.entries(this.doc.paths)) {
      const names: string[] = [];
      const pattern = template.replace(/\{([^}]+)\}/g, (_match, name: string) => {
        names.push(name);
        return '([^/]+)';
      });
      const match = new RegExp(`^${pattern}$`).exec(path);
      if (!match) continue;
      const operation = operations[method.toLowerCase()];
      if (!operation) return undefined;
      const params = Object.fromEntries(
        names.map((name, i) => [name, decodeURIComponent(match[i + 1]!)]),
      );
      return {
        operation,
        params,
        id: (operation as { operationId?: string }).operationId ?? template,
      };
    }
    return undefined;
  }
}

/** A schema whose `#/components/...` refs point into the document registered as `doc`. */
function rebase(schema: object): object {
  return JSON.parse(
    JSON.stringify(schema).replaceAll('"#/components/', '"doc#/components/'),
  ) as object;
}
