/**
 * A synthetic fleet for the dashboard tests that need no hub: sites walked by SiteScript (the
 * controllers' own status code) to a mix of states a large rollout shows, and a Rollout with
 * three waves. Deterministic: site i always ends in the same state.
 */
import type { KubeObject } from '../../src/kube/index.js';
import type { SiteState } from '../../src/fleet/index.js';
import { SiteScript } from './fleet-objects.js';

const INSTALL_STAGES = [
  'Starting installation',
  'Installing',
  'Waiting for bootkube',
  'Writing image to disk',
  'Copying registry data to disk',
  'Rebooting',
  'Joined',
  'Done',
] as const;

/** The state site `i` of a synthetic fleet is driven to. */
export function plannedState(i: number): SiteState | 'bmc-error' {
  const r = (i * 7919) % 100;
  if (r < 55) return 'installed';
  if (r < 70) return 'installing';
  if (r < 75) return 'discovering';
  if (r < 79) return 'booting';
  if (r < 82) return 'bmc-error';
  if (r < 88) return 'pending';
  if (r < 92) return 'validating';
  if (r < 96) return 'insufficient';
  return 'failed';
}

/** The site `i`'s script, walked to its planned state. */
export function syntheticSite(i: number, prefix = 'sno'): SiteScript {
  const name = `${prefix}-${String(i).padStart(4, '0')}`;
  const site = new SiteScript(name, {
    start: new Date(Date.now() - (3 * 3600 - (i % 600) * 10) * 1000)
      .toISOString()
      .replace(/\.\d+Z$/, 'Z'),
  });
  const plan = plannedState(i);
  site.wait(20).imageCreated();
  if (plan === 'pending') return site;
  if (plan === 'bmc-error')
    return site
      .wait(5)
      .bmhState('registering')
      .wait(30)
      .bmhError(
        'registration error',
        'Failed to get power state for node: HTTP GET https://10.1.0.7/redfish/v1/Systems/1: 401 Unauthorized',
      );
  site
    .wait(5)
    .bmhState('registering')
    .wait(3)
    .bmhState('available')
    .wait(2)
    .bmhState('provisioning');
  if (plan === 'booting') return site;
  site.wait(45).bmhState('provisioned').wait(120).register();
  if (plan === 'discovering') return site;
  if (plan === 'insufficient')
    return site.wait(30).insufficient([
      {
        id: 'has-min-cpu-cores',
        message:
          'The host is not eligible to participate in Openshift Cluster because the minimum required CPU cores for any role is 2, found only 1',
      },
    ]);
  site.wait(30).known();
  if (plan === 'validating') return site;
  site.approve().wait(10).cluster('ready', 'Cluster ready to be installed');
  site.wait(5).cluster('installing', 'Installation in progress');
  const last = plan === 'installing' ? i % 6 : plan === 'failed' ? 5 : INSTALL_STAGES.length - 1;
  for (const stage of INSTALL_STAGES.slice(0, last + 1)) site.wait(90).stage(stage);
  if (plan === 'failed')
    return site
      .wait(2400)
      .hostError(
        'Host failed to install because its installation stage Rebooting took longer than expected 40m0s',
      )
      .cluster('error', 'cluster has hosts in error');
  if (plan === 'installing') return site;
  return site.wait(60).installed();
}

/** A Rollout of three waves over the first sites of a synthetic fleet. */
export function syntheticRollout(count: number, prefix = 'sno'): KubeObject {
  const name = (i: number): string => `${prefix}-${String(i).padStart(4, '0')}`;
  const canary = Math.min(10, count);
  const first = Math.floor(count * 0.4);
  const range = (from: number, to: number): string[] =>
    Array.from({ length: Math.max(0, to - from) }, (_, k) => name(from + k));
  return {
    apiVersion: 'siteforge.io/v1alpha1',
    kind: 'Rollout',
    metadata: { name: 'fleet-2026-05', namespace: 'siteforge' },
    spec: {
      waves: [
        { name: 'canary', sites: range(0, canary) },
        { name: 'wave-1', sites: range(canary, first) },
        { name: 'wave-2', sites: range(first, count - Math.floor(count * 0.1)) },
      ],
    },
    status: {
      waves: [
        { name: 'canary', phase: 'Passed' },
        { name: 'wave-1', phase: 'Progressing' },
        { name: 'wave-2', phase: 'Pending' },
      ],
    },
  };
}
