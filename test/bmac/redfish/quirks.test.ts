import { describe, expect, it } from 'vitest';
import {
  backoffDelay,
  BOOT_MODE_JOB,
  BOOT_SETTINGS_FALLBACK,
  DEFAULT_QUIRKS,
  DELL_CONFIG_PENDING,
  DELL_IMPORT_RETRIES,
  DELL_VIRTUAL_CD_BOOT,
  INSERT_FIXES,
  parseErrorBody,
  parseRetryAfter,
  POWER_ON_CONFLICT,
  quirksFor,
  RedfishError,
  retryDecision,
  TRANSIENT_ERRORS,
} from '../../../src/bmac/redfish/index.js';

/** A RedfishError as the transport makes it from a status and a response body. */
function httpError(status: number, body: unknown, method = 'POST'): RedfishError {
  return new RedfishError('REDFISH_HTTP', 'request failed', {
    method,
    path: '/redfish/v1/x',
    status,
    ...parseErrorBody(body),
  });
}

function extended(messageId: string, message: string, related?: string[]): unknown {
  return {
    error: {
      code: 'Base.1.8.GeneralError',
      message: 'A general error has occurred. See ExtendedInfo for more information.',
      '@Message.ExtendedInfo': [
        {
          MessageId: messageId,
          Message: message,
          ...(related ? { RelatedProperties: related } : {}),
        },
      ],
    },
  };
}

const fix = (name: string) => INSERT_FIXES.find((f) => f.name === name)!;
const transient = (name: string) => TRANSIENT_ERRORS.find((r) => r.name === name)!;

describe('vendor quirks keyed on Manufacturer and Model', () => {
  it('treats an unknown vendor as plain DMTF Redfish', () => {
    expect(quirksFor({ manufacturer: 'Contoso', model: 'X' })).toEqual({
      quirks: DEFAULT_QUIRKS,
      rules: [],
    });
  });

  it('boots Supermicro from UsbCd, always sends Enabled and re-sends the mode', () => {
    const { quirks, rules } = quirksFor({ manufacturer: 'Supermicro', model: 'SYS-120H-TNR' });
    expect(rules).toEqual(['supermicro']);
    expect(quirks).toMatchObject({
      preferUsbCd: true,
      alwaysSendBootEnabled: true,
      resyncBootModeAfterTarget: true,
    });
  });

  it('keeps Cd for the Supermicro ARS-111GL-NHR, the model sushy exempts', () => {
    const { quirks, rules } = quirksFor({ manufacturer: 'Supermicro', model: 'ARS-111GL-NHR' });
    expect(rules).toEqual(['supermicro', 'supermicro-ars-111gl-nhr']);
    expect(quirks.preferUsbCd).toBe(false);
    expect(quirks.alwaysSendBootEnabled).toBe(true);
  });

  it('sends the full boot request to AMI and ASRockRack', () => {
    expect(quirksFor({ manufacturer: 'AMI' }).quirks.fullBootRequest).toBe(true);
    expect(quirksFor({ manufacturer: 'ASRockRack' }).quirks.fullBootRequest).toBe(true);
    expect(
      quirksFor({ manufacturer: 'American Megatrends International' }).quirks.fullBootRequest,
    ).toBe(true);
    expect(quirksFor({ manufacturer: 'Amiga' }).quirks.fullBootRequest).toBe(false);
  });

  it('tells iDRAC10 by its Manager Model (generation 17 and up) and uses only slot 1', () => {
    const idrac10 = quirksFor({ manufacturer: 'Dell Inc.', managerModels: ['17G Monolithic'] });
    expect(idrac10.rules).toEqual(['dell', 'dell-idrac10']);
    expect(idrac10.quirks.slotIds?.test('1')).toBe(true);
    expect(idrac10.quirks.slotIds?.test('2')).toBe(false);
    expect(quirksFor({ manufacturer: 'Dell Inc.', managerModels: ['18G DCS'] }).rules).toContain(
      'dell-idrac10',
    );
    for (const model of ['16G Monolithic', '14G Modular', '12G Modular', 'iDRAC'])
      expect(quirksFor({ manufacturer: 'Dell Inc.', managerModels: [model] }).rules).toEqual([
        'dell',
      ]);
    // The Manager Model alone is not enough: it must be a Dell System.
    expect(quirksFor({ manufacturer: 'Contoso', managerModels: ['17G Monolithic'] }).rules).toEqual(
      [],
    );
  });

  it('waits for Dell’s BIOS job to apply the boot mode: every 15 s, up to 900 s', () => {
    expect(quirksFor({ manufacturer: 'Dell Inc.' }).quirks.bootModeByBiosJob).toBe(true);
    expect(quirksFor({ manufacturer: 'HPE' }).quirks.bootModeByBiosJob).toBe(false);
    expect(BOOT_MODE_JOB).toMatchObject({ pollMs: 15_000, timeoutMs: 900_000 });
  });

  it('falls back to {System}/Settings, then {System}/SD, as Tacklebox does', () => {
    expect(BOOT_SETTINGS_FALLBACK.paths).toEqual(['Settings', 'SD']);
  });

  it('inserts only into Lenovo EXT slots', () => {
    const { slotIds } = quirksFor({ manufacturer: 'Lenovo' }).quirks;
    expect(slotIds?.test('EXT1')).toBe(true);
    expect(slotIds?.test('Remote1')).toBe(false);
    expect(slotIds?.test('RDOC1')).toBe(false);
  });
});

describe('the InsertMedia ladder: error shapes and the payload fix for each', () => {
  const payload = { Image: 'https://10.0.0.1/boot.iso' };

  it('adds TransferProtocolType for a Supermicro GeneralError that names it', () => {
    const err = httpError(
      400,
      extended('Base.1.8.GeneralError', 'TransferProtocolType is a required parameter.'),
    );
    expect(fix('transfer-protocol-type-required').matches(err)).toBe(true);
    expect(fix('transfer-protocol-type-required').apply(payload)).toEqual({
      ...payload,
      TransferProtocolType: 'HTTPS',
    });
    expect(fix('transfer-protocol-type-required').apply({ Image: 'http://x/a.iso' })).toMatchObject(
      {
        TransferProtocolType: 'HTTP',
      },
    );
  });

  it('adds TransferProtocolType for ActionParameterMissing with RelatedProperties', () => {
    const err = httpError(
      400,
      extended('Base.1.8.ActionParameterMissing', 'missing', ['#/TransferProtocolType']),
    );
    expect(fix('transfer-protocol-type-required').matches(err)).toBe(true);
    const other = httpError(400, extended('Base.1.8.ActionParameterMissing', 'x', ['#/Image']));
    expect(fix('transfer-protocol-type-required').matches(other)).toBe(false);
  });

  it('adds TransferMethod Stream when the GeneralError names it', () => {
    const err = httpError(400, extended('Base.1.8.GeneralError', 'TransferMethod is required'));
    expect(fix('transfer-method-required').matches(err)).toBe(true);
    expect(fix('transfer-method-required').apply(payload)).toMatchObject({
      TransferMethod: 'Stream',
    });
  });

  it('adds dummy credentials when the BMC asks for UserName (NVIDIA DGX)', () => {
    const byId = httpError(400, extended('Base.1.8.ActionParameterMissing', 'x', ['#/UserName']));
    const byText = httpError(
      400,
      extended('Base.1.8.GeneralError', 'The action requires the parameter UserName'),
    );
    expect(fix('credentials-required').matches(byId)).toBe(true);
    expect(fix('credentials-required').matches(byText)).toBe(true);
    expect(fix('credentials-required').apply(payload)).toMatchObject({
      UserName: 'none',
      Password: 'none',
    });
  });

  it('has no fix for an unrelated 400', () => {
    const err = httpError(400, extended('Base.1.8.PropertyValueFormatError', 'bad Image'));
    expect(INSERT_FIXES.filter((f) => f.matches(err))).toEqual([]);
  });
});

describe('transient vendor errors that are retried', () => {
  it('retries iDRAC SYS518 on any method, even a POST', () => {
    const err = httpError(
      503,
      extended('IDRAC.2.8.SYS518', 'iDRAC is currently unable to display'),
    );
    expect(transient('idrac-sys518').matches(err)).toBe(true);
    expect(retryDecision(err, 'POST')).toMatchObject({ retry: true, reason: 'idrac-sys518' });
  });

  it('retries iLO InvalidOperationForSystemState on a 400', () => {
    const err = httpError(400, extended('iLO.2.15.InvalidOperationForSystemState', 'not now'));
    expect(retryDecision(err, 'POST')).toMatchObject({
      retry: true,
      reason: 'ilo-invalid-operation-for-system-state',
    });
  });

  it('retries a boot PATCH during POST with 5 s → 30 s backoff, 6 tries', () => {
    const err = httpError(
      400,
      extended('iLO.2.15.UnableToModifyDuringSystemPOST', 'in POST'),
      'PATCH',
    );
    const decision = retryDecision(err, 'PATCH');
    expect(decision).toMatchObject({ retry: true, reason: 'ilo-unable-to-modify-during-post' });
    expect(decision.retry && decision.policy).toEqual({
      attempts: 6,
      baseDelayMs: 5_000,
      maxDelayMs: 30_000,
    });
    expect(retryDecision(err, 'POST').retry).toBe(false);
  });

  it('recognises the iDRAC10 power-on conflict only as a 409', () => {
    const body = extended('Base.1.12.ActionParameterValueConflict', 'conflict');
    expect(POWER_ON_CONFLICT.matches(httpError(409, body))).toBe(true);
    expect(POWER_ON_CONFLICT.matches(httpError(400, body))).toBe(false);
  });

  it('reads ExtendedInfo given as a single object (iDRAC), and picks the most severe', () => {
    const single = httpError(400, {
      error: { '@Message.ExtendedInfo': { MessageId: 'IDRAC.2.8.SYS518', Message: 'busy' } },
    });
    expect(single.messageId).toBe('IDRAC.2.8.SYS518');
    const several = httpError(400, {
      error: {
        code: 'Base.1.8.GeneralError',
        '@Message.ExtendedInfo': [
          { MessageId: 'Base.1.8.Success', Severity: 'OK' },
          { MessageId: 'Base.1.8.PropertyUnknown', Severity: 'Critical', Message: 'Inserted' },
        ],
      },
    });
    expect(several.messageId).toBe('Base.1.8.PropertyUnknown');
    expect(several.message).toBe(
      'POST /redfish/v1/x: 400 Base.1.8.PropertyUnknown request failed: Inserted',
    );
  });
});

describe('Dell’s boot job for idrac-virtualmedia', () => {
  const rule = (name: string) => DELL_IMPORT_RETRIES.find((r) => r.name === name)!;

  it('sends the configuration XML without insignificant whitespace', () => {
    expect(DELL_VIRTUAL_CD_BOOT.ImportBuffer).not.toMatch(/>\s+</);
    expect(DELL_VIRTUAL_CD_BOOT.ImportBuffer).toContain(
      '<Attribute Name="ServerBoot.1#FirstBootDevice">VCD-DVD</Attribute>',
    );
  });

  it('waits 15 s, up to 35 times, while another job runs (RAC0679)', () => {
    const err = httpError(400, extended('IDRAC.2.8.RAC0679', 'A job is running'));
    expect(rule('dell-rac0679-job-running').matches(err)).toBe(true);
    expect(rule('dell-rac0679-job-running').policy).toMatchObject({
      attempts: 36,
      baseDelayMs: 15_000,
    });
  });

  it('recognises a pending configuration (LC068), which a reboot clears', () => {
    const err = httpError(400, extended('IDRAC.2.8.LC068', 'Pending configuration'));
    expect(DELL_CONFIG_PENDING.matches(err)).toBe(true);
    expect(DELL_CONFIG_PENDING.matches(httpError(400, extended('IDRAC.2.8.RAC0679', 'x')))).toBe(
      false,
    );
  });

  it('tries a 404 again 3 times, 10 s apart, while the job is created', () => {
    expect(rule('dell-import-not-found-yet').matches(httpError(404, undefined))).toBe(true);
    expect(rule('dell-import-not-found-yet').policy).toMatchObject({
      attempts: 4,
      baseDelayMs: 10_000,
    });
    expect(DELL_IMPORT_RETRIES.filter((r) => r.matches(httpError(400, undefined)))).toEqual([]);
  });
});

describe('the retry policy (ironic/sushy rules, capped exponential backoff with jitter)', () => {
  const transport = (code: string, method: string) =>
    retryDecision(
      new RedfishError('REDFISH_TRANSPORT', code, {
        method,
        path: '/x',
        cause: Object.assign(new Error(code), { code }),
      }),
      method,
    ).retry;

  it.each([
    ['GET', 500, true],
    ['GET', 503, true],
    ['POST', 500, false],
    ['PATCH', 502, false],
    ['POST', 503, true],
    ['GET', 404, false],
    ['GET', 401, false],
    ['PATCH', 412, false],
    ['POST', 400, false],
  ])('%s answered %i: retried %s', (method, status, retried) => {
    expect(retryDecision(httpError(status, undefined, method), method).retry).toBe(retried);
  });

  it('retries a refused connection on every method, a reset one only where safe', () => {
    expect(transport('ECONNREFUSED', 'POST')).toBe(true);
    expect(transport('UND_ERR_CONNECT_TIMEOUT', 'POST')).toBe(true);
    expect(transport('ECONNRESET', 'GET')).toBe(true);
    expect(transport('UND_ERR_HEADERS_TIMEOUT', 'PATCH')).toBe(true);
    expect(transport('ECONNRESET', 'POST')).toBe(false);
  });

  it('never retries a TLS verification failure', () => {
    expect(transport('DEPTH_ZERO_SELF_SIGNED_CERT', 'GET')).toBe(false);
    expect(transport('ERR_TLS_CERT_ALTNAME_INVALID', 'GET')).toBe(false);
  });

  it('doubles the delay up to the cap, with half of it random', () => {
    const policy = { attempts: 10, baseDelayMs: 1_000, maxDelayMs: 15_000 };
    expect([1, 2, 3, 4, 5, 6].map((n) => backoffDelay(n, policy, () => 1))).toEqual([
      1_000, 2_000, 4_000, 8_000, 15_000, 15_000,
    ]);
    expect([1, 2, 5].map((n) => backoffDelay(n, policy, () => 0))).toEqual([500, 1_000, 7_500]);
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2026-11-22T10:00:00Z');
    expect(parseRetryAfter('3', now)).toBe(3_000);
    expect(parseRetryAfter('Sun, 22 Nov 2026 10:00:05 GMT', now)).toBe(5_000);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });
});
