import { describe, expect, it } from 'vitest';
import type { AgentExchange } from '../../support/agent-client.js';
import { AgentApiConformance } from './openapi.js';

const INFRA_ENV = '6a1f3c2e-0d5b-4e8f-9a7c-1b2d3e4f5a60';
const HOST = '0945fa74-d904-4ad5-ad9c-00f56410227b';
const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8' };

function exchange(overrides: Partial<AgentExchange>): AgentExchange {
  return {
    method: 'GET',
    path: `/api/assisted-install/v2/infra-envs/${INFRA_ENV}/hosts/${HOST}/instructions`,
    requestHeaders: { 'x-secret-key': 'token' },
    status: 200,
    responseHeaders: JSON_HEADERS,
    responseBody: '{"next_instruction_seconds":60,"post_step_action":"continue","instructions":[]}',
    ...overrides,
  };
}

describe('the OpenAPI conformance check', () => {
  const conformance = new AgentApiConformance();

  it('passes an exchange the document describes', () => {
    expect(conformance.problems(exchange({}))).toEqual([]);
  });

  it('flags a response missing a required field, an undocumented status and a body where none is documented', () => {
    expect(conformance.problems(exchange({ responseBody: '{"instructions":[]}' }))).toEqual([
      "response body must have required property 'next_instruction_seconds'",
      "response body must have required property 'post_step_action'",
    ]);
    expect(conformance.problems(exchange({ status: 418 }))).toEqual([
      'status 418 not in the document',
    ]);
    expect(
      conformance.problems(
        exchange({
          method: 'PUT',
          path: `/api/assisted-install/v2/infra-envs/${INFRA_ENV}/hosts/${HOST}/progress`,
          requestHeaders: { 'content-type': 'application/json' },
          requestBody: '{"current_stage":"Installing"}',
          responseBody: '{}',
        }),
      ),
    ).toEqual(['a body where the document says none']);
  });

  it('flags a request body outside its schema and an inventory that is not JSON text', () => {
    expect(
      conformance.problems(
        exchange({
          method: 'PUT',
          path: `/api/assisted-install/v2/infra-envs/${INFRA_ENV}/hosts/${HOST}/progress`,
          requestHeaders: { 'content-type': 'application/json' },
          requestBody: '{"current_stage":"Flashing"}',
          responseBody: '',
        }),
      ),
    ).toEqual(['request body/current_stage must be equal to one of the allowed values']);
    const host = {
      kind: 'Host',
      id: HOST,
      href: `/api/assisted-install/v2/infra-envs/${INFRA_ENV}/hosts/${HOST}`,
      status: 'known',
      status_info: 'ok',
      inventory: '{not json',
    };
    expect(
      conformance.problems(
        exchange({
          path: `/api/assisted-install/v2/infra-envs/${INFRA_ENV}/hosts/${HOST}`,
          responseBody: JSON.stringify(host),
        }),
      ),
    ).toEqual(['response body/inventory must pass "x-json-text" keyword validation']);
  });
});
