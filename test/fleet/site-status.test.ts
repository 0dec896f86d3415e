/**
 * A site's state, timeline and problem, read from objects shaped by SiteForge's own controller
 * code (test/support/fleet-objects.ts) as a site walks from its first object to installed, or
 * gets stuck on the way.
 */
import { describe, expect, it } from 'vitest';
import { siteStatus } from '../../src/fleet/index.js';
import type { SiteStatus, StageMemory } from '../../src/fleet/index.js';
import { SiteScript } from '../support/fleet-objects.js';

const SNO_STAGES = [
  'Starting installation',
  'Installing',
  'Waiting for bootkube',
  'Writing image to disk',
  'Copying registry data to disk',
  'Rebooting',
  'Joined',
  'Done',
] as const;

function status(script: SiteScript, memory?: StageMemory): SiteStatus {
  return siteStatus(script.siteObjects(), memory);
}

function step(s: SiteStatus, name: string) {
  const found = s.timeline.find((t) => t.step === name);
  if (found === undefined) throw new Error(`no timeline step ${name}`);
  return found;
}

describe('a single-node site from its objects to installed', () => {
  it('is pending while its objects wait for the discovery ISO and the BMC', () => {
    const site = new SiteScript('sno-a');
    const s = status(site);
    expect(s).toMatchObject({
      key: 'sno-a/sno-a',
      state: 'pending',
      since: '2026-05-01T10:00:00Z',
    });
    expect(s.hosts).toEqual({ expected: 1, registered: 0, installed: 0 });
    expect(s.problem).toBeUndefined();
    site.wait(5).imageCreated().bmhState('registering').wait(2).bmhState('available');
    expect(status(site).state).toBe('pending');
    expect(step(status(site), 'image')).toMatchObject({
      status: 'done',
      end: '2026-05-01T10:00:05Z',
    });
  });

  it('is booting from the moment the BMC is asked to boot the ISO, with the boot timed by operationHistory', () => {
    const site = new SiteScript('sno-b')
      .imageCreated()
      .bmhState('registering')
      .bmhState('available');
    site.wait(10).bmhState('provisioning');
    let s = status(site);
    expect(s.state).toBe('booting');
    expect(s.since).toBe('2026-05-01T10:00:10Z');
    expect(step(s, 'bmc-boot')).toMatchObject({
      status: 'active',
      start: '2026-05-01T10:00:10Z',
      detail: '0/1 hosts booted',
    });
    site.wait(40).bmhState('provisioned');
    s = status(site);
    expect(s.state).toBe('booting');
    expect(step(s, 'bmc-boot')).toMatchObject({
      status: 'done',
      start: '2026-05-01T10:00:10Z',
      end: '2026-05-01T10:00:50Z',
      detail: '1/1 hosts booted',
    });
    expect(s.hostViews[0]).toMatchObject({
      name: 'sno-b-node0',
      bareMetalHost: { state: 'provisioned', poweredOn: true, operationalStatus: 'OK' },
    });
  });

  it('is discovering once the agent registers, then validating with a warning until the BMAC approves it', () => {
    const site = new SiteScript('sno-c')
      .imageCreated()
      .bmhState('available')
      .bmhState('provisioning');
    site.wait(30).bmhState('provisioned').wait(60).register();
    let s = status(site);
    expect(s.state).toBe('discovering');
    expect(s.since).toBe('2026-05-01T10:01:30Z');
    expect(step(s, 'discovery')).toMatchObject({
      status: 'active',
      detail: '1/1 hosts registered',
    });
    site.wait(5).known();
    s = status(site);
    expect(s.state).toBe('validating');
    expect(s.problem).toMatchObject({
      severity: 'warning',
      source: { kind: 'Agent', name: 'sno-c-agent-0' },
      condition: 'RequirementsMet',
      reason: 'AgentIsNotApproved',
      message: 'The agent is not approved',
    });
    expect(s.problem?.hint).toMatch(/BMAC approves/);
    expect(step(s, 'validations')).toMatchObject({ status: 'done', end: '2026-05-01T10:01:35Z' });
    site.approve();
    expect(status(site).problem).toBeUndefined();
    expect(s.hostViews[0]).toMatchObject({
      name: 'sno-c-node0',
      role: 'master',
      agent: { state: 'known' },
    });
  });

  it('is installing with the stage and percent of its host, and remembers when each stage started', () => {
    const site = new SiteScript('sno-d')
      .imageCreated()
      .bmhState('available')
      .bmhState('provisioning');
    site.wait(30).bmhState('provisioned').wait(60).register().wait(5).known().approve();
    site.cluster('ready', 'Cluster ready to be installed');
    site.wait(10).cluster('preparing-for-installation', 'Preparing cluster for installation');
    let s = status(site);
    expect(s).toMatchObject({ state: 'installing', stage: 'Preparing' });
    expect(s.since).toBe('2026-05-01T10:01:45Z');
    const seen = new Map<string, string>();
    const memory: StageMemory = () => seen;
    site.wait(20).cluster('installing', 'Installation in progress');
    for (const stage of SNO_STAGES.slice(0, 4)) {
      site.wait(60).stage(stage);
      seen.set(stage, site.now());
    }
    s = status(site, memory);
    expect(s).toMatchObject({ state: 'installing', stage: 'Writing image to disk', percent: 50 });
    const install = step(s, 'install');
    expect(install).toMatchObject({ status: 'active', start: '2026-05-01T10:01:45Z' });
    expect(install.detail).toBe('Writing image to disk (50%)');
    expect(install.stages?.map((x) => [x.name, x.status, x.at])).toEqual([
      ['Starting installation', 'done', '2026-05-01T10:03:05Z'],
      ['Installing', 'done', '2026-05-01T10:04:05Z'],
      ['Waiting for bootkube', 'done', '2026-05-01T10:05:05Z'],
      ['Writing image to disk', 'active', '2026-05-01T10:06:05Z'],
      ['Copying registry data to disk', 'pending', undefined],
      ['Rebooting', 'pending', undefined],
      ['Joined', 'pending', undefined],
      ['Done', 'pending', undefined],
    ]);
    // Without memory only the current stage has a time: the Agent shows no more.
    expect(step(status(site), 'install').stages?.filter((x) => x.at !== undefined)).toHaveLength(1);
  });

  it('is installed with the time of the ACI Completed condition, and 100 percent', () => {
    const site = new SiteScript('sno-e')
      .imageCreated()
      .bmhState('available')
      .bmhState('provisioning');
    site.wait(30).bmhState('provisioned').wait(60).register().wait(5).known().approve();
    site
      .cluster('ready', 'Cluster ready to be installed')
      .cluster('installing', 'Installation in progress');
    for (const stage of SNO_STAGES) site.wait(30).stage(stage);
    site.wait(120).installed();
    const s = status(site);
    expect(s).toMatchObject({
      state: 'installed',
      percent: 100,
      since: '2026-05-01T10:07:35Z',
      startedAt: '2026-05-01T10:00:00Z',
      finishedAt: '2026-05-01T10:07:35Z',
      hosts: { expected: 1, registered: 1, installed: 1 },
    });
    expect(s.problem).toBeUndefined();
    expect(s.stage).toBeUndefined();
    expect(s.timeline.map((t) => [t.step, t.status])).toEqual([
      ['image', 'done'],
      ['bmc-boot', 'done'],
      ['discovery', 'done'],
      ['validations', 'done'],
      ['install', 'done'],
      ['done', 'done'],
    ]);
    expect(step(s, 'done').end).toBe('2026-05-01T10:07:35Z');
    expect(step(s, 'install').stages?.every((x) => x.status === 'done')).toBe(true);
  });
});

describe('a site that is stuck or failed says why, in the hub words, with a hint', () => {
  it('shows a BMC registration error while pending, with the retry count', () => {
    const site = new SiteScript('bmc-err').imageCreated().bmhState('registering');
    site
      .wait(3)
      .bmhError('registration error', 'Failed to get power state for node: 401 Unauthorized');
    site.bmhError('registration error', 'Failed to get power state for node: 401 Unauthorized');
    const s = status(site);
    expect(s.state).toBe('pending');
    expect(s.problem).toMatchObject({
      severity: 'error',
      source: { kind: 'BareMetalHost', namespace: 'bmc-err', name: 'bmc-err-node0' },
      reason: 'registration error',
      message: 'Failed to get power state for node: 401 Unauthorized',
    });
    expect(s.problem?.condition).toBeUndefined();
    expect(s.problem?.hint).toMatch(/BMC Secret/);
    expect(s.problem?.hint).toMatch(/2 failures so far/);
  });

  it('shows a failed virtual-media boot while booting, and the boot step failed', () => {
    const site = new SiteScript('boot-err')
      .imageCreated()
      .bmhState('available')
      .bmhState('provisioning');
    site.bmhError(
      'provisioning error',
      'Failed to boot the host from virtual media: POST /redfish/v1/Managers/1/VirtualMedia/CD/Actions/VirtualMedia.InsertMedia: 500',
    );
    const s = status(site);
    expect(s.state).toBe('booting');
    expect(s.problem?.reason).toBe('provisioning error');
    expect(s.problem?.message).toMatch(/^Failed to boot the host from virtual media/);
    expect(step(s, 'bmc-boot').status).toBe('failed');
  });

  it('shows the discovery ISO that cannot be built', () => {
    const site = new SiteScript('iso-err').imageFailed('no OS image for openshift version 4.99');
    const s = status(site);
    expect(s.state).toBe('pending');
    expect(s.problem).toMatchObject({
      source: { kind: 'InfraEnv', name: 'iso-err' },
      condition: 'ImageCreated',
      reason: 'ImageCreationError',
      message: 'Failed to create image: no OS image for openshift version 4.99',
    });
    expect(step(s, 'image').status).toBe('failed');
  });

  it('is insufficient when the host fails validations, with the Validated message and the hint of the first failing one', () => {
    const site = new SiteScript('small').imageCreated().bmhState('provisioned');
    site
      .register()
      .wait(20)
      .insufficient([
        {
          id: 'has-min-cpu-cores',
          message:
            'The host is not eligible to participate in Openshift Cluster because the minimum required CPU cores for any role is 2, found only 1',
        },
      ]);
    const s = status(site);
    expect(s.state).toBe('insufficient');
    expect(s.since).toBe('2026-05-01T10:00:20Z');
    expect(s.problem).toMatchObject({
      severity: 'error',
      source: { kind: 'Agent', name: 'small-agent-0' },
      condition: 'Validated',
      reason: 'ValidationsFailing',
      message:
        "The agent's validations are failing: The host is not eligible to participate in Openshift Cluster because the minimum required CPU cores for any role is 2, found only 1",
    });
    expect(s.problem?.hint).toMatch(/too few CPU cores/);
    expect(step(s, 'validations')).toMatchObject({ status: 'failed', detail: s.problem?.message });
  });

  it('shows a disconnected agent during discovery', () => {
    const site = new SiteScript('gone').imageCreated().bmhState('provisioned');
    site.register().known().wait(300).disconnect();
    const s = status(site);
    expect(s.problem).toMatchObject({
      condition: 'Connected',
      reason: 'AgentIsDisconnected',
      message:
        'The agent has not contacted the installation service in some time, user action should be taken',
      since: '2026-05-01T10:05:00Z',
    });
  });

  it('is failed when the host errors in a stage, with the Installed message and a reboot hint', () => {
    const site = new SiteScript('timeout').imageCreated().bmhState('provisioned');
    site.register().known().approve().cluster('ready', 'Cluster ready to be installed');
    site.cluster('installing', 'Installation in progress');
    for (const stage of SNO_STAGES.slice(0, 6)) site.wait(30).stage(stage);
    site
      .wait(2400)
      .hostError(
        'Host failed to install because its installation stage Rebooting took longer than expected 40m0s',
      );
    site.cluster('error', 'cluster has hosts in error');
    const s = status(site);
    expect(s.state).toBe('failed');
    expect(s.problem).toMatchObject({
      severity: 'error',
      source: { kind: 'Agent', name: 'timeout-agent-0' },
      condition: 'Installed',
      reason: 'InstallationFailed',
      message:
        'The installation has failed: Host failed to install because its installation stage Rebooting took longer than expected 40m0s',
    });
    expect(s.problem?.hint).toMatch(/boot order/);
    // When it failed, not when the Installed condition first went False (before the install).
    expect(s.problem?.since).toBe(site.now());
    expect(s.finishedAt).toBe(site.now());
    const install = step(s, 'install');
    expect(install.status).toBe('failed');
    expect(install.stages?.find((x) => x.name === 'Rebooting')?.status).toBe('failed');
    expect(step(s, 'done')).toMatchObject({ label: 'Failed', status: 'failed' });
  });

  it('is failed from the ACI Failed condition when no host says more', () => {
    const site = new SiteScript('aci-fail').imageCreated().bmhState('provisioned');
    site.register().known().approve().cluster('ready', 'Cluster ready to be installed');
    site
      .cluster('installing', 'Installation in progress')
      .wait(60)
      .cluster('error', 'cluster has hosts in error');
    const s = status(site);
    expect(s.state).toBe('failed');
    expect(s.problem).toMatchObject({
      source: { kind: 'AgentClusterInstall' },
      condition: 'Failed',
      reason: 'InstallationFailed',
      message: 'The installation failed: cluster has hosts in error',
      since: site.now(),
    });
  });
});

describe('a multi-node site', () => {
  it('counts hosts against provisionRequirements and stays discovering until all registered', () => {
    const site = new SiteScript('std', { hosts: 5 }).imageCreated();
    for (let i = 0; i < 5; i++) site.bmhState('provisioned', i);
    site.register(0).known(0).register(1).known(1);
    const s = status(site);
    expect(s.state).toBe('discovering');
    expect(s.hosts).toEqual({ expected: 5, registered: 2, installed: 0 });
    expect(s.hostViews.map((h) => [h.name, h.agent?.state ?? '-'])).toEqual([
      ['std-node0', 'known'],
      ['std-node1', 'known'],
      ['std-node2', '-'],
      ['std-node3', '-'],
      ['std-node4', '-'],
    ]);
    expect(step(s, 'bmc-boot').detail).toBe('5/5 hosts booted');
  });

  it('follows the bootstrap host for its stage', () => {
    const site = new SiteScript('std2', { hosts: 3 }).imageCreated();
    for (let i = 0; i < 3; i++) site.bmhState('provisioned', i).register(i).known(i).approve(i);
    site
      .cluster('ready', 'Cluster ready to be installed')
      .cluster('installing', 'Installation in progress');
    site.stage('Starting installation', 1).stage('Installing', 1).stage('Starting installation', 0);
    const s = status(site);
    expect(s.state).toBe('installing');
    expect(s.stage).toBe('Starting installation');
  });
});
