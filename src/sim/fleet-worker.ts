/**
 * A child process running part of a simulated fleet (its BMCs and hosts), so that the
 * simulation's CPU is measured apart from the controller's and the demo's. Driven over IPC by
 * fleet-process.ts; it exits when its parent goes away, so a killed demo leaves no simulator
 * behind.
 */
import { startSimFleet } from './sim-fleet.js';
import type { SimFleet } from './sim-fleet.js';
import type { WorkerReply, WorkerRequest } from './fleet-process.js';

let fleet: SimFleet | undefined;

function send(message: WorkerReply): void {
  process.send?.(message);
}

async function handle(message: WorkerRequest): Promise<void> {
  switch (message.type) {
    case 'start':
      try {
        fleet = await startSimFleet(message.options);
        send({ type: 'ready', bmcs: fleet.bmcs });
      } catch (err) {
        send({ type: 'failed', message: err instanceof Error ? err.message : String(err) });
      }
      break;
    case 'stats': {
      const cpu = process.cpuUsage();
      send({
        type: 'stats',
        stats: fleet?.stats(),
        cpuSeconds: (cpu.user + cpu.system) / 1e6,
        rssBytes: process.memoryUsage.rss(),
        hosts: fleet?.hosts.map((h) => ({ key: h.spec.key, phase: h.phase, detail: h.detail })),
      });
      break;
    }
    case 'stop':
      await fleet?.stop();
      fleet = undefined;
      send({ type: 'stopped' });
      process.disconnect();
      break;
  }
}

process.on('message', (message: WorkerRequest) => {
  void handle(message);
});
// The parent is gone (killed, or it exited without stopping us): so are we.
process.on('disconnect', () => {
  process.exit(0);
});
