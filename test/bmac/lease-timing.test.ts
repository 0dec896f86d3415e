import { describe, expect, it } from 'vitest';
import { leaseTimingOf } from '../../src/bmac/main.js';
import { UsageError } from '../../src/shared/errors.js';

describe('the lease timing of siteforge controller', () => {
  it('is controller-runtime’s 15 s / 10 s / 2 s unless the environment shortens it', () => {
    expect(leaseTimingOf({})).toEqual({
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 2_000,
    });
    expect(
      leaseTimingOf({
        SITEFORGE_LEASE_DURATION: '4s',
        SITEFORGE_RENEW_DEADLINE: '3s',
        SITEFORGE_RETRY_PERIOD: '500ms',
      }),
    ).toEqual({ leaseDurationMs: 4_000, renewDeadlineMs: 3_000, retryPeriodMs: 500 });
  });

  const refused: [Record<string, string>, string][] = [
    [
      { SITEFORGE_LEASE_DURATION: '4' },
      'SITEFORGE_LEASE_DURATION must be a positive duration such as 4s or 500ms, not "4"',
    ],
    [{ SITEFORGE_RETRY_PERIOD: '0s' }, 'SITEFORGE_RETRY_PERIOD must be a positive duration'],
    [
      { SITEFORGE_LEASE_DURATION: '4500ms', SITEFORGE_RENEW_DEADLINE: '3s' },
      'SITEFORGE_LEASE_DURATION must be whole seconds',
    ],
    [
      { SITEFORGE_LEASE_DURATION: '4s' },
      'SITEFORGE_RETRY_PERIOD < SITEFORGE_RENEW_DEADLINE < SITEFORGE_LEASE_DURATION, not 2000 ms, 10000 ms and 4000 ms',
    ],
  ];
  for (const [env, message] of refused) {
    it(`refuses ${JSON.stringify(env)} as a usage error`, () => {
      expect(() => leaseTimingOf(env)).toThrow(UsageError);
      expect(() => leaseTimingOf(env)).toThrow(message);
    });
  }
});
