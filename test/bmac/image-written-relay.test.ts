import { describe, expect, it } from 'vitest';
import { relayImageWritten } from '../../src/bmac/image-written-relay.js';
import type { Request } from '../../src/bmac/runtime/contract.js';
import { HostStage } from '../../src/assisted/model.js';
import { HOST_ID, NS, installingWorld } from '../assisted/hosts/fixtures.js';

/** An installing host whose progress reaches the Redfish provisioner through the relay. */
async function installingHost() {
  const w = await installingWorld();
  const told: Request[] = [];
  const stop = relayImageWritten(
    w.service,
    { imageWritten: (agent) => told.push(agent) },
    w.cluster,
  );
  const progress = (currentStage: HostStage, progressInfo?: string) =>
    w.service.updateProgress(
      w.infraEnvRef(),
      HOST_ID,
      { currentStage, ...(progressInfo !== undefined && { progressInfo }) },
      w.now(),
    );
  return { told, stop, progress };
}

describe('the image-written relay', () => {
  it('tells the provisioner once, the moment the host reports a stage past writing the image', async () => {
    const { told, progress } = await installingHost();
    await progress(HostStage.Installing);
    await progress(HostStage.WritingImageToDisk, '10%');
    await progress(HostStage.WritingImageToDisk, '90%');
    expect(told).toEqual([]);
    await progress(HostStage.CopyingRegistryData);
    expect(told).toEqual([{ namespace: NS, name: HOST_ID }]);
    await progress(HostStage.Rebooting);
    await progress(HostStage.Done);
    expect(told).toHaveLength(1);
  });

  it('a host that skips a stage past the write is told too; unsubscribed, nothing is', async () => {
    const first = await installingHost();
    await first.progress(HostStage.Rebooting);
    expect(first.told).toEqual([{ namespace: NS, name: HOST_ID }]);

    const second = await installingHost();
    second.stop();
    await second.progress(HostStage.Rebooting);
    expect(second.told).toEqual([]);
  });
});
