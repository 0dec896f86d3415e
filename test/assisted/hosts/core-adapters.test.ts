import { describe, expect, it } from 'vitest';
import {
  CoreHostValidator,
  CoreInstructionBuilder,
  StateMachineHostMachine,
} from '../../../src/assisted/hosts/core-adapters.js';
import { failingValidationMessages } from '../../../src/assisted/hosts/agent-conditions.js';
import { HostStatus, StepType } from '../../../src/assisted/model.js';
import {
  HOST_ID,
  NS,
  World,
  clusterDeployment,
  infraEnvObject,
  inventory,
  snoCluster,
} from './fixtures.js';

const AGENT_IMAGE = 'quay.io/edge-infrastructure/assisted-installer-agent:latest';

function coreWorld(): World {
  const w = new World(
    infraEnvObject({ clusterRef: { name: 'sno-1', namespace: NS } }),
    clusterDeployment(),
  );
  w.clusters.records.set('cd-uid-1', snoCluster());
  return w.withPorts({
    machine: new StateMachineHostMachine(),
    validator: new CoreHostValidator(),
    instructions: new CoreInstructionBuilder({ images: { agent: AGENT_IMAGE } }),
  });
}

describe('the host side on the core state machine, validations and step builder', () => {
  it('a single-node host registers as master and bootstrap, discovering, and is asked for its inventory', async () => {
    const w = coreWorld();
    await w.registered();
    expect(w.service.get(HOST_ID)).toMatchObject({
      status: HostStatus.Discovering,
      statusInfo: 'Waiting for host to send hardware details',
      role: 'master',
      bootstrap: true,
    });
    const steps = await w.service.nextSteps(w.infraEnvRef(), HOST_ID, w.now(), 1_764_072_000);
    expect(steps.ok).toBe(true);
    if (!steps.ok) return;
    expect(steps.value.postStepAction).toBe('continue');
    expect(steps.value.instructions.map((i) => i.stepType)).toEqual([StepType.Inventory]);
    expect(steps.value.instructions[0]).toMatchObject({
      stepId: expect.stringMatching(/^inventory-[0-9a-f]{8}$/) as unknown,
      args: [HOST_ID],
    });
  });

  it("the agent's clock at check-in decides time-synced", async () => {
    const w = coreWorld();
    await w.registered(inventory(8));
    const validation = () =>
      w.service
        .get(HOST_ID)
        ?.validationsInfo['network']?.find((v) => v.id === 'time-synced-between-host-and-service');
    expect(validation()?.status).toBe('pending');
    // The agent's clock is 2 hours behind the service's.
    await w.service.nextSteps(w.infraEnvRef(), HOST_ID, w.now(), w.now().getTime() / 1000 - 7200);
    w.monitor().runOnce();
    expect(validation()?.status).toBe('failure');
    await w.service.nextSteps(w.infraEnvRef(), HOST_ID, w.now(), w.now().getTime() / 1000);
    w.monitor().runOnce();
    expect(validation()).toMatchObject({
      status: 'success',
      message: 'Host clock is synchronized with service',
    });
  });

  it('after the inventory the Agent shows the real validations, and its conditions quote them', async () => {
    const w = coreWorld();
    await w.registered(inventory(8));
    const host = w.service.get(HOST_ID);
    expect(host?.inventory).toBeDefined();
    expect(Object.keys(host?.validationsInfo ?? {})).toEqual(
      expect.arrayContaining(['hardware', 'network']),
    );
    expect(w.status()['validationsInfo']).toEqual(host?.validationsInfo);
    // No NTP, routes or DNS results yet: upstream's texts, and the condition quotes them all.
    expect(host).toMatchObject({
      status: HostStatus.Insufficient,
      statusInfo:
        "Host cannot be installed due to following failing validation(s): Host couldn't synchronize with any NTP server ; Host has not yet been configured with a default route.",
    });
    expect(w.condition('Validated')).toMatchObject({
      status: 'False',
      reason: 'ValidationsFailing',
      message: `The agent's validations are failing: ${failingValidationMessages(host!)}`,
    });
    expect(w.condition('Validated')?.['message']).toContain(
      "Missing host time, can't determine synchronization between host and service",
    );
    const status = host?.status;
    expect(w.status()['debugInfo']).toMatchObject({ state: status, stateInfo: host?.statusInfo });
    expect(w.status()['installation_disk_id']).toBe('/dev/disk/by-id/wwn-0x5000c500a0b1c2d3');
    expect(w.status()['progress']).toEqual({});
  });
});
