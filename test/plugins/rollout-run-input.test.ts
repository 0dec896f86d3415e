// `siteforge rollout run PLAN.json`: the plan file is read and checked before the hub is asked
// anything, and a bad one is reported at its file:line:column (JSON syntax) or by its fields,
// never with a stack trace. The kubeconfig names a loopback port nothing listens on, so an
// answer other than "cannot reach" proves the plan was judged first.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fleetSite, ScriptedRepo } from '../support/fleet-repo.js';
import { repoRoot } from '../support/sites.js';

const KUBECONFIG = `apiVersion: v1
kind: Config
clusters: [{name: hub, cluster: {server: 'https://127.0.0.1:1'}}]
users: [{name: u, user: {token: not-a-secret}}]
contexts: [{name: hub, context: {cluster: hub, user: u}}]
current-context: hub
`;

let repo: ScriptedRepo;

function siteforge(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [join(repoRoot, 'bin', 'siteforge.js'), ...args], {
    cwd: repo.dir,
    encoding: 'utf8',
    env: { ...process.env, KUBECONFIG: join(repo.dir, 'kubeconfig') },
    timeout: 60_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

beforeAll(() => {
  repo = new ScriptedRepo();
  repo.write(
    'sites/rollout-policy.yaml',
    'apiVersion: siteforge.io/v1alpha1\nkind: RolloutPolicy\nspec: {}\n',
  );
  repo.write('sites/a.yaml', fleetSite(1));
  repo.commit('one site');
  repo.git('tag', 'v1');
  repo.write('sites/b.yaml', fleetSite(2));
  repo.commit('two sites');
  writeFileSync(join(repo.dir, 'kubeconfig'), KUBECONFIG);
  const planned = siteforge(['rollout', 'plan', '--from', 'v1', 'sites', '--json']);
  expect(planned.status).toBe(0);
  writeFileSync(join(repo.dir, 'plan.json'), planned.stdout);
});

afterAll(() => {
  repo.dispose();
});

describe('siteforge rollout run: a plan file of siteforge rollout plan', () => {
  it('reports JSON syntax at its line and column, before the hub', () => {
    writeFileSync(join(repo.dir, 'bad.json'), '{\n  "kind": "RolloutPlan",\n  "waves": [ ,]\n}\n');
    const bad = siteforge(['rollout', 'run', 'bad.json', '--name', 'r1', '--target', 'apply']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(
      /^siteforge: bad\.json:3:14: not JSON \(.*\); write it with siteforge rollout plan --json\n/,
    );
    expect(bad.stderr).not.toMatch(/\n\s+at /); // no stack trace
    writeFileSync(join(repo.dir, 'bad2.json'), '{"kind":\n 1,\n}');
    expect(
      siteforge(['rollout', 'run', 'bad2.json', '--name', 'r1', '--target', 'apply']).stderr,
    ).toMatch(/^siteforge: bad2\.json:3:1: not JSON/);
  });

  it('refuses a plan whose fields are wrong, each field named, before the hub', () => {
    const plan = JSON.parse(
      siteforge(['rollout', 'plan', '--from', 'v1', 'sites', '--json']).stdout,
    ) as { waves: { name: string }[] };
    plan.waves[0]!.name = 'Not A Name';
    writeFileSync(join(repo.dir, 'fields.json'), JSON.stringify(plan));
    const fields = siteforge([
      'rollout',
      'run',
      'fields.json',
      '--name',
      'r1',
      '--target',
      'apply',
    ]);
    expect(fields.status).toBe(1);
    expect(fields.stderr).toContain('fields.json: not a usable rollout plan:');
    expect(fields.stderr).toContain('"Not A Name" is not a valid name');
  });

  it('asks the hub only with a plan that is good', () => {
    const good = siteforge(['rollout', 'run', 'plan.json', '--name', 'r1', '--target', 'apply']);
    expect(good.status).toBe(3);
    expect(good.stderr).toContain('cannot reach the API server at https://127.0.0.1:1');
  });
});
