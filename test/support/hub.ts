import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, inject } from 'vitest';
import { ClientNodeKubeClient } from '../../src/kube/index.js';
import type { KubeClient, ObjectRef } from '../../src/kube/index.js';

/** Absolute path of the repository root. */
const repoRoot = join(import.meta.dirname, '..', '..');

declare module 'vitest' {
  export interface ProvidedContext {
    /** Admin kubeconfig of the hub started by test/support/hub-setup.ts. */
    hubKubeconfig: string;
    /** Its API server URL, https://127.0.0.1:PORT. */
    hubServer: string;
  }
}

/** Path of the admin kubeconfig of the test run's hub. */
export function hubKubeconfig(): string {
  return inject('hubKubeconfig');
}

/** A KubeClient on the test run's hub. */
export function hubClient(): KubeClient {
  return ClientNodeKubeClient.fromKubeconfig({ kubeconfig: hubKubeconfig() });
}

/**
 * Gives the calling test file a namespace of its own, created before its tests and deleted
 * (and waited for) after them, so test files can run side by side on the one hub.
 */
export function useNamespace(prefix: string): { readonly name: string } {
  const name = `${prefix}-${Math.random().toString(36).slice(2, 8)}`;
  const ref: ObjectRef = { apiVersion: 'v1', kind: 'Namespace', name };
  beforeAll(async () => {
    await hubClient().apply(
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name } },
      { fieldManager: 'siteforge-test' },
    );
  });
  afterAll(async () => {
    const client = hubClient();
    await client.delete(ref);
    await waitUntil(`namespace ${name} gone`, async () => (await client.get(ref)) === undefined);
  }, 90_000);
  return { name };
}

/** Polls `check` every 250 ms until it is true; fails after `timeoutMs`. */
export async function waitUntil(
  what: string,
  check: () => Promise<boolean>,
  timeoutMs = 60_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not true after ${String(timeoutMs)} ms`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** What running the real `siteforge` binary gave. */
export interface RunResult {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the real `siteforge` binary (asynchronously, so the test process stays responsive). */
export function siteforgeAsync(args: readonly string[], cwd = repoRoot): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(repoRoot, 'bin', 'siteforge.js'), ...args], {
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('error', reject);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}
