import { describe, expect, it } from 'vitest';
import { parseDemoArgs } from '../../src/sim/demo/demo-args.js';
import type { DemoOptions } from '../../src/sim/demo/demo-args.js';
import { faultsFor, parseFaultRule, unmatchedTargets } from '../../src/sim/faults.js';

const parse = (...argv: string[]): DemoOptions => {
  const options = parseDemoArgs(argv);
  if (options === 'help') throw new Error('help');
  return options;
};

describe('npm run demo arguments', () => {
  it('defaults to the example sites with two-second stages', () => {
    expect(parse()).toMatchObject({
      sitesDirs: [],
      syntheticSites: 0,
      stageSeconds: 2,
      faults: [],
      keep: false,
      summaryFile: undefined,
    });
  });

  it('takes every flag as --flag VALUE or --flag=VALUE', () => {
    expect(
      parse(
        '--sites-dir',
        'a',
        '--sites-dir=b',
        '--sites=20',
        '--stage-seconds',
        '0.5',
        '--summary',
        'out.json',
        '--keep',
        '--fault',
        'du-sno-1=never-boots',
      ),
    ).toMatchObject({
      sitesDirs: ['a', 'b'],
      syntheticSites: 20,
      stageSeconds: 0.5,
      summaryFile: 'out.json',
      keep: true,
      faults: [{ target: 'du-sno-1', kind: 'never-boots' }],
    });
  });

  it('answers --help with the usage', () => {
    expect(parseDemoArgs(['--sites', '3', '-h'])).toBe('help');
  });

  it('refuses bad values naming the flag and what it takes', () => {
    expect(() => parse('--stage-seconds', 'fast')).toThrow(
      '--stage-seconds must be a number of seconds from 0.1 to 3600, not "fast"',
    );
    expect(() => parse('--sites', '-3')).toThrow(
      '--sites must be a whole number from 0 to 10000, not "-3"',
    );
    expect(() => parse('--summary')).toThrow('--summary needs a value');
    expect(() => parse('--colour')).toThrow('unknown demo option --colour');
    expect(() => parse('examples/sites')).toThrow(
      'the demo takes no arguments, got "examples/sites"; use --sites-dir examples/sites',
    );
  });
});

describe('fault rules', () => {
  it('reads TARGET=KIND and TARGET=KIND:STAGE', () => {
    expect(parseFaultRule('sno-1=disconnect:Installing')).toEqual({
      target: 'sno-1',
      kind: 'disconnect',
      stage: 'Installing',
    });
    expect(parseFaultRule('host-a=wrong-mac')).toEqual({ target: 'host-a', kind: 'wrong-mac' });
  });

  it('refuses unknown kinds, a stage where none is taken, and a missing target', () => {
    expect(() => parseFaultRule('sno-1=explode')).toThrow(
      '--fault sno-1=explode: "explode" is no fault; use one of bmc-errors, bmc-flaky, never-boots, disconnect, stage-timeout, wrong-mac, too-small',
    );
    expect(() => parseFaultRule('sno-1=too-small:Installing')).toThrow(
      'only disconnect and stage-timeout take a :STAGE',
    );
    expect(() => parseFaultRule('never-boots')).toThrow('--fault takes TARGET=KIND[:STAGE]');
  });

  it('applies a cluster rule to each of its hosts and a host rule to that host only', () => {
    const rules = [parseFaultRule('std=too-small'), parseFaultRule('std-w0=disconnect')];
    expect(faultsFor(rules, { name: 'std-m0', cluster: 'std' })).toEqual({ tooSmall: true });
    expect(faultsFor(rules, { name: 'std-w0', cluster: 'std' })).toEqual({
      tooSmall: true,
      disconnectAfter: 'Writing image to disk',
    });
    expect(faultsFor(rules, { name: 'sno-0', cluster: 'sno' })).toEqual({});
  });

  it('names targets that match nothing (a typo)', () => {
    const rules = [parseFaultRule('std=too-small'), parseFaultRule('stdd=never-boots')];
    expect(unmatchedTargets(rules, [{ name: 'std-m0', cluster: 'std' }])).toEqual(['stdd']);
  });
});
