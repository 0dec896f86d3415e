import { describe, expect, it } from 'vitest';
import {
  parseConnectivityReport,
  parseDomainResolutionResponse,
} from '../../../src/assisted/validations/index.js';

describe('step result parsers', () => {
  it('accept the wire JSON, as text or parsed, and refuse other shapes', () => {
    const report = {
      remote_hosts: [
        { host_id: 'h2', l3_connectivity: [{ remote_ip_address: '1.2.3.4', successful: true }] },
      ],
    };
    expect(parseConnectivityReport(report)).toEqual({ ok: true, value: report });
    expect(parseConnectivityReport(JSON.stringify(report))).toEqual({ ok: true, value: report });
    expect(parseConnectivityReport({ remote_hosts: [{ host_id: 7 }] })).toEqual({
      ok: false,
      error: 'connectivity_report.remote_hosts[0].host_id is not a string',
    });
    expect(parseDomainResolutionResponse({})).toEqual({
      ok: false,
      error: 'domain_resolution_response.resolutions is missing',
    });
    expect(parseDomainResolutionResponse('{')).toEqual({
      ok: false,
      error: 'domain_resolution_response is not JSON',
    });
    // Go writes nil slices as null: they read as absent.
    expect(
      parseConnectivityReport('{"remote_hosts":[{"host_id":"h2","l2_connectivity":null}]}'),
    ).toEqual({
      ok: true,
      value: { remote_hosts: [{ host_id: 'h2' }] },
    });
  });
});
