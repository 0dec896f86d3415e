/**
 * The real discovery agent (assisted-installer-agent, built from source; its binary is named
 * by SITEFORGE_ASSISTED_AGENT) in dry-run mode against the agent API over TLS: the `agent`
 * registers and starts the next-step runner with the command we answer, the runner polls and
 * posts the real inventory, and `logs_sender` reports logs progress and uploads its archive.
 * Build the binary from openshift/assisted-installer-agent with
 * `go build -mod=vendor -o agent ./src/agent/main`. Without it this file has nothing to run
 * against; the scripted client in test/support/agent-client.ts covers the protocol in every run.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT, exportSPKI, generateKeyPair } from 'jose';
import { afterAll, describe, expect, it } from 'vitest';
import { importAgentTokenKey } from '../../../src/assisted/agent-api/auth.js';
import { startAgentApiServer } from '../../../src/assisted/agent-api/server.js';
import { loopbackCert } from '../../support/loopback-cert.js';
import { AgentClient } from '../../support/agent-client.js';
import { FakeAgentApiBackend } from './fake-backend.js';
import { AgentApiConformance } from './openapi.js';

const binary = process.env['SITEFORGE_ASSISTED_AGENT'];
const INFRA_ENV = '6a1f3c2e-0d5b-4e8f-9a7c-1b2d3e4f5a60';
const HOST = '3f0c9a51-7d2e-4b8a-9c61-5e4d3c2b1a09';
const CLUSTER = '9d4f3c2e-0d5b-4e8f-9a7c-1b2d3e4f5a63';
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
    it('registers, runs its next-step runner, posts a real inventory and uploads its logs (dry run, TLS)', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'real-agent-'));
      const cert = loopbackCert(dir);
      const pair = await generateKeyPair('ES256', { extractable: true });
      const backend = new FakeAgentApiBackend();
      backend.agentImage = AGENT_IMAGE;
      backend.addInfraEnv(INFRA_ENV);
      const operations: string[] = [];
      const server = await startAgentApiServer({
        backend,
        observe: (event) => operations.push(`${event.operation} ${String(event.status)}`),
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
      // The agent runs its tools through `nsenter … --` and `podman run … <image> <tool>`; these
      // shims run the tool (the same binary under the tool's name) directly on this machine.
      const bin = join(dir, 'bin');
      mkdirSync(bin);
      for (const tool of [
        'agent',
        'next_step_runner',
        'inventory',
        'free_addresses',
        'disk_speed_check',
        'logs_sender',
      ]) {
        symlinkSync(binary!, join(bin, tool));
      }
      const shim = (name: string, script: string): void => {
        writeFileSync(join(bin, name), `#!/bin/sh\n${script}\n`);
        chmodSync(join(bin, name), 0o755);
      };
      shim('nsenter', 'while [ "$1" != "--" ]; do shift; done; shift; exec "$@"');
      shim(
        'podman',
        `[ "$1" = run ] || exit 0; while [ "$#" -gt 0 ] && [ "$1" != "${AGENT_IMAGE}" ]; do shift; done; shift; exec "$@"`,
      );
      const env = {
        ...process.env,
        PATH: `${bin}:${process.env['PATH'] ?? ''}`,
        PULL_SECRET_TOKEN: token,
        DRY_ENABLE: 'true',
        DRY_HOST_ID: HOST,
        DRY_FORCED_HOSTNAME: 'real-agent-0',
        DRY_FORCED_MAC_ADDRESS: '52:54:00:aa:bb:cc',
        DRY_FORCED_HOST_IPV4: '192.168.111.20/24',
        DRY_FAKE_REBOOT_MARKER_PATH: join(dir, 'rebooted'),
      };
      const agent = spawn(
        join(bin, 'agent'),
        [
          `--url=${server.url}`,
          `--infra-env-id=${INFRA_ENV}`,
          `--agent-version=${AGENT_IMAGE}`,
          `--cacert=${cert.certFile}`,
          '--with-journal-logging=false',
          '--with-stdout-logging=true',
        ],
        { env, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      agent.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      agent.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      children.push(agent);
      await until(
        () => backend.calls.registered.some((call) => call.hostId === HOST),
        'register',
        () => output,
      );
      expect(backend.calls.registered[0]).toEqual({ hostId: HOST, version: AGENT_IMAGE });
      // It read our next_step_runner_command and started the runner with it, which polls and
      // runs the inventory step: a real inventory reaches the API.
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
      expect(reply.exitCode).toBe(0);
      const host = backend.host(backend.infraEnv(INFRA_ENV)!, HOST)!;
      expect(host.inventory?.hostname).toBe('real-agent-0');
      expect(host.inventory?.interfaces?.[0]?.mac_address).toBe('52:54:00:aa:bb:cc');
      expect(host.inventory?.cpu?.count).toBeGreaterThan(0);
      // The host with the real inventory, as GET host shows it, matches the OpenAPI document.
      const conformance = new AgentApiConformance();
      const client = new AgentClient({
        url: server.url,
        infraEnvId: INFRA_ENV,
        token,
        ca: cert.cert,
        onExchange: conformance.check,
      });
      expect((await client.getHost(HOST)).status).toBe(200);
      expect(conformance.violations).toEqual([]);
      await client.close();

      // The logs_sender the logs-gather step runs: logs-progress, then the archive upload.
      backend.setHost(INFRA_ENV, HOST, { clusterId: CLUSTER });
      const sender = spawn(
        join(bin, 'logs_sender'),
        [
          `-url=${server.url}`,
          `-cluster-id=${CLUSTER}`,
          `-host-id=${HOST}`,
          `-infra-env-id=${INFRA_ENV}`,
          `-pull-secret-token=${token}`,
          `-cacert=${cert.certFile}`,
          '-with-journal-logging=false',
          '-with-text-logging=false',
        ],
        { env, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      sender.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      sender.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      children.push(sender);
      await until(
        () => backend.calls.logsUploaded.includes(HOST),
        'upload its logs',
        () => output,
      );
      expect(statSync(join(dir, CLUSTER, `${HOST}.tar.gz`)).size).toBeGreaterThan(0);
      await until(
        () => backend.calls.logsStates.some((call) => call.state === 'completed'),
        'report its logs completed',
        () => output,
      );
      expect(backend.calls.logsStates.map((call) => call.state)).toEqual([
        'requested',
        'collecting',
        'completed',
      ]);
      expect(output).not.toMatch(/unauthenticated|status 4\d\d/i);
      // Every call the real agent made was one of ours and succeeded.
      expect(new Set(operations)).toEqual(
        new Set([
          'v2RegisterHost 201',
          'v2GetNextSteps 200',
          'v2PostStepReply 204',
          'v2GetHost 200',
          'v2UpdateHostLogsProgress 204',
          'v2UploadLogs 204',
        ]),
      );
      await server.close();
    });
  },
);
