import { describe, expect, it } from 'vitest';
import { compileGlob, readCmpOptions, siteSelection } from '../../src/plugins/argocd/parameters.js';
import { UsageError } from '../../src/shared/errors.js';

function problems(env: Record<string, string>): string {
  try {
    readCmpOptions(env);
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return (err as Error).message;
  }
  throw new Error('expected a UsageError');
}

describe('reading the plugin options', () => {
  it('defaults to every site, crs, not strict, for an Application without parameters', () => {
    const defaults = { format: 'crs', sites: [], strict: false };
    expect(readCmpOptions({})).toEqual(defaults);
    expect(readCmpOptions({ ARGOCD_APP_PARAMETERS: 'null' })).toEqual(defaults);
    expect(readCmpOptions({ ARGOCD_ENV_STRICT: '' })).toEqual(defaults);
  });

  it('reads ARGOCD_APP_PARAMETERS and ignores the PARAM_* copies Argo CD derives from it', () => {
    const options = readCmpOptions({
      ARGOCD_APP_PARAMETERS: JSON.stringify([
        { name: 'sites', array: ['west-*', '!west-sno-b'] },
        { name: 'strict', string: 'true' },
      ]),
      PARAM_SITES_0: 'west-*',
      PARAM_SITES_1: '!west-sno-b',
      PARAM_STRICT: 'true',
    });
    expect(options).toEqual({ format: 'crs', sites: ['west-*', '!west-sno-b'], strict: true });
  });

  it('orders PARAM_<NAME>_<i> array items by index, not by name', () => {
    const env: Record<string, string> = {};
    for (let i = 0; i < 12; i++) env[`PARAM_SITES_${String(i)}`] = `s${String(i)}`;
    expect(readCmpOptions(env).sites).toEqual(
      Array.from({ length: 12 }, (_, i) => `s${String(i)}`),
    );
  });

  it('splits a sites string at commas and spaces, but not inside {a,b}', () => {
    expect(readCmpOptions({ ARGOCD_ENV_SITES: 'a-*, b-{1,2}  !c' }).sites).toEqual([
      'a-*',
      'b-{1,2}',
      '!c',
    ]);
  });

  it('reports every problem at once', () => {
    const message = problems({
      ARGOCD_APP_PARAMETERS: JSON.stringify([
        { name: 'format', array: ['crs'] },
        { name: 'sites', map: { a: 'b' } },
        { name: 'strict', string: 'yes' },
        { name: 'wave', string: '1' },
      ]),
    });
    expect(message).toContain('parameter "format" must be a single string, not an array');
    expect(message).toContain('parameter "sites" must be a string or an array, not a map');
    expect(message).toContain('strict must be "true" or "false"');
    expect(message).toContain('unknown parameter "wave"');
  });

  it('rejects malformed parameters JSON, duplicates and broken globs', () => {
    expect(problems({ ARGOCD_APP_PARAMETERS: '{' })).toContain('not valid JSON');
    expect(
      problems({
        ARGOCD_APP_PARAMETERS: JSON.stringify([
          { name: 'strict', string: 'true' },
          { name: 'strict', string: 'false' },
        ]),
      }),
    ).toContain('given more than once');
    expect(problems({ ARGOCD_ENV_SITES: 'sno-[0-9' })).toContain('without a closing "]"');
    expect(problems({ PARAM_WAVE: '1' })).toContain('unknown PARAM_WAVE');
  });
});

describe('site globs', () => {
  it('match whole names with *, ?, classes and alternatives', () => {
    expect(compileGlob('sno-0*').matches('sno-00042')).toBe(true);
    expect(compileGlob('sno-0*').matches('xsno-00042')).toBe(false);
    expect(compileGlob('sno-?').matches('sno-12')).toBe(false);
    expect(compileGlob('sno-[!0-4]').matches('sno-7')).toBe(true);
    expect(compileGlob('{east,west}-sno').matches('west-sno')).toBe(true);
    expect(compileGlob('a.b').matches('axb')).toBe(false);
  });

  it('select by cluster or SiteConfig name, apply exclusions, and report unused includes', () => {
    const selection = siteSelection(['west-*', 'site-du-*', '!west-sno-b', 'north-*']);
    expect(selection.select('west-sno-a', 'region-west')).toBe(true);
    expect(selection.select('west-sno-b', 'region-west')).toBe(false);
    expect(selection.select('du-sno-1', 'site-du-sno-1')).toBe(true);
    expect(selection.select('compact-1', 'site-compact-1')).toBe(false);
    expect(selection.unmatched()).toEqual(['north-*']);
    expect(siteSelection(['!compact-*']).select('du-sno-1', 'x')).toBe(true);
  });
});
