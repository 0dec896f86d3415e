import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startHub } from '../../scripts/hub/hub.mjs';

/**
 * Starts one real hub (etcd, kube-apiserver, kube-controller-manager, our CRDs) for the whole
 * test run, building the binaries first if this machine has never built them (minutes, with
 * progress on stderr). Tests find it with `inject('hubKubeconfig')` (see test/support/hub.ts).
 * If the hub cannot start, the run fails with the reason: hub tests never skip.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // A directory of its own, so a developer's `npm run hub` (in .cache/hub) is left alone.
  const dir = mkdtempSync(join(tmpdir(), 'siteforge-test-hub-'));
  const hub = await startHub({ dir });
  project.provide('hubKubeconfig', hub.kubeconfig);
  project.provide('hubServer', hub.server);

  // The hub runs detached; should vitest die without teardown, take it down with us.
  const pids = [hub.controllerManager.pid, hub.apiserver.pid, hub.etcd.pid];
  const killOnExit = (): void => {
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  };
  process.once('exit', killOnExit);

  return async () => {
    process.removeListener('exit', killOnExit);
    await hub.stop();
  };
}
