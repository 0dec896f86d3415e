/**
 * The real discovery agent (assisted-installer-agent, built from source; its binary is named
 * by SITEFORGE_ASSISTED_AGENT) in dry-run mode against the agent API over TLS: the `agent`
 * registers and accepts our next-step-runner command, and `next_step_runner` polls the
 * instructions and posts a reply for each step. Without the binary this file has nothing to run
 * against and says so; the scripted client in test/support/agent-client.ts covers the protocol
 * in every run.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT, exportSPKI, generateKeyPair } from 'jose';
import { afterAll, describe, expect, it } from 'vitest';
import { importAgentTokenKey } from '../../../src/assisted/agent-api/auth.js';
import { startAgentApiServer } from '../../../src/assisted/agent-api/server.js';
import { loopbackCert } from '../../support/loopback-cert.js';
import { FakeAgentApiBackend } from './fake-backend.js';

const binary = process.env['SITEFORGE_ASSISTED_AGENT'];
const INFRA_ENV = '6a1f3c2e-0d5b-4e8f-9a7c-1b2d3e4f5a60';
const HOST = '3f0c9a51-7d2e-4b8a-9c61-5e4d3c2b1a09';
const AGENT_IMAGE = 'quay.io/edge-infrastructure/assisted-installer-agent:latest';

const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
});

async function until(condition: () => boolean, what: string, output: () => string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the real agent did not ${what} within 30 s; its output:\n${output()}`);
}

describe.runIf(binary !== undefined && existsSync(binary))(
  'the real assisted-installer-agent',
  () => {
    it('registers, accepts the next-step runner, polls instructions and replies (dry run, TLS)', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'real-agent-'));
      const cert = loopbackCert(dir);
      const pair = await generateKeyPair('ES256', { extractable: true });
      const backend = new FakeAgentApiBackend();
      backend.agentImage = AGENT_IMAGE;
      backend.addInfraEnv(INFRA_ENV);
      const server = await startAgentApiServer({
        backend,
        tokenKey: await importAgentTokenKey(await exportSPKI(pair.publicKey)),
        agentImage: AGENT_IMAGE,
        logsDir: dir,
        port: 0,
        tls: { cert: cert.cert, key: cert.key },
      });
      const token = await new SignJWT({ infra_env_id: INFRA_ENV })
        .setProtectedHeader({ alg: 'ES256' })
        .sign(pair.privateKey);
      let output = '';
      const run = (name: string, args: string[]): void => {
        const link = join(dir, name);
        symlinkSync(binary!, link);
        const child = spawn(link, args, {
          env: { ...process.env, PULL_SECRET_TOKEN: token },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
        child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
        children.push(child);
      };
      const common = [
        `--url=${server.url}`,
        `--infra-env-id=${INFRA_ENV}`,
        `--agent-version=${AGENT_IMAGE}`,
        `--cacert=${cert.certFile}`,
        '--with-journal-logging=false',
        '--with-stdout-logging=true',
        '--dry-run',
        `--force-id=${HOST}`,
      ];
      run('agent', common);
      await until(
        () => backend.calls.registered.some((call) => call.hostId === HOST),
        'register',
        () => output,
      );
      expect(backend.calls.registered[0]).toEqual({ hostId: HOST, version: AGENT_IMAGE });
      // It read our next_step_runner_command and tried to start the runner with it.
      await until(
        () => output.includes('Running next step runner'),
        'start the next step runner',
        () => output,
      );

      run('next_step_runner', [...common, `--host-id=${HOST}`]);
      await until(
        () =>
          backend.calls.replies.some(
            (call) => call.hostId === HOST && call.reply.stepType === 'inventory',
          ),
        'reply to the inventory step',
        () => output,
      );
      const reply = backend.calls.replies.find(
        (call) => call.reply.stepType === 'inventory',
      )!.reply;
      expect(reply.stepId).toMatch(/^inventory-[0-9a-f]{8}$/);
      expect(output).not.toMatch(/unauthenticated|status 4\d\d/i);
      await server.close();
    });
  },
);
