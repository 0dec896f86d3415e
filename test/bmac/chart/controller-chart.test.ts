/**
 * The Helm chart charts/siteforge-controller: the committed files are what `npm run chart`
 * generates, its ClusterRole grants exactly what permissions.ts lists, and the real helm
 * (built by scripts/tools/ensure-tools.mjs, cached under ~/.cache/siteforge) lints and renders
 * it with the values applied.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { renderControllerChart } from '../../../src/bmac/chart/controller-chart.js';
import { clusterRoleRules } from '../../../src/bmac/permissions.js';
import { chartRules } from '../../support/chart-rules.js';

const repoRoot = join(import.meta.dirname, '..', '..', '..');
const chartDir = join(repoRoot, 'charts', 'siteforge-controller');
const version = (
  JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
    version: string;
  }
).version;

interface Obj {
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [field: string]: unknown;
}

interface Container {
  image: string;
  imagePullPolicy: string;
  args: string[];
  ports: { name: string; containerPort: number }[];
}

interface DeploymentSpec {
  replicas: number;
  selector: { matchLabels: Record<string, string> };
  template: {
    metadata: { labels: Record<string, string> };
    spec: { serviceAccountName: string; containers: Container[] };
  };
}

let helm: string;

function run(args: string[]) {
  const result = spawnSync(helm, args, { cwd: repoRoot, encoding: 'utf8', timeout: 60_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

function helmTemplate(...extra: string[]): Obj[] {
  const result = run(['template', 'edge', chartDir, '--namespace', 'siteforge', ...extra]);
  expect(result.status, result.stderr).toBe(0);
  return parseAllDocuments(result.stdout)
    .map((d) => d.toJS() as Obj | null)
    .filter((o): o is Obj => o !== null);
}

const one = (objects: Obj[], kind: string, name?: string): Obj => {
  const found = objects.filter(
    (o) => o.kind === kind && (name === undefined || o.metadata.name === name),
  );
  expect(found, `${kind} ${name ?? ''}`).toHaveLength(1);
  return found[0]!;
};

/** The flags `siteforge controller` gets that do not depend on values. */
const FIXED_ARGS = [
  '--metrics-bind-address=:8080',
  '--health-probe-bind-address=:8081',
  '--image-server-bind-address=:8082',
  '--leader-elect=true',
  '--leader-election-id=edge',
];

beforeAll(() => {
  const ensured = spawnSync(
    process.execPath,
    [join(repoRoot, 'scripts', 'tools', 'ensure-tools.mjs'), 'helm'],
    { encoding: 'utf8', timeout: 20 * 60_000, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  if (ensured.status !== 0)
    throw new Error('helm could not be installed: see ensure-tools on stderr');
  helm = (JSON.parse(ensured.stdout) as { helm: string }).helm;
}, 20 * 60_000);

describe('Helm chart siteforge-controller', () => {
  it('is committed exactly as `npm run chart` generates it', () => {
    const generated = renderControllerChart({ version });
    const committed = [
      'Chart.yaml',
      'values.yaml',
      ...readdirSync(join(chartDir, 'templates')).map((f) => `templates/${f}`),
    ];
    expect(committed.sort()).toEqual([...generated.keys()].sort());
    for (const [path, text] of generated)
      expect(readFileSync(join(chartDir, path), 'utf8'), `${path}: run npm run chart`).toBe(text);
  });

  it('grants in its ClusterRole exactly what permissions.ts lists', () => {
    expect(chartRules()).toEqual(clusterRoleRules());
  });

  it('passes helm lint', () => {
    const result = run(['lint', chartDir, '--strict']);
    expect(result.status, result.stdout + result.stderr).toBe(0);
  });

  it('renders a ClusterRole with exactly the rules of permissions.ts, bound to its ServiceAccount', () => {
    const objects = helmTemplate();
    const role = one(objects, 'ClusterRole', 'edge') as Obj & {
      rules: { apiGroups: string[]; resources: string[]; verbs: string[] }[];
    };
    expect(
      role.rules.map((r) => ({ apiGroups: r.apiGroups, resources: r.resources, verbs: r.verbs })),
    ).toEqual(clusterRoleRules());
    const binding = one(objects, 'ClusterRoleBinding', 'edge');
    expect(binding['roleRef']).toEqual({
      apiGroup: 'rbac.authorization.k8s.io',
      kind: 'ClusterRole',
      name: 'edge',
    });
    expect(binding['subjects']).toEqual([
      expect.objectContaining({ kind: 'ServiceAccount', name: 'edge', namespace: 'siteforge' }),
    ]);
    expect(one(objects, 'ServiceAccount', 'edge').metadata.namespace).toBe('siteforge');
  });

  it('renders a Deployment of 2 replicas with the default values', () => {
    const deployment = one(helmTemplate(), 'Deployment', 'edge');
    const spec = deployment['spec'] as DeploymentSpec;
    expect(deployment.metadata.namespace).toBe('siteforge');
    expect(spec.replicas).toBe(2);
    expect(spec.template.spec.serviceAccountName).toBe('edge');
    const container = spec.template.spec.containers[0]!;
    expect(container.image).toBe('quay.io/siteforge/siteforge:latest');
    expect(container.imagePullPolicy).toBe('IfNotPresent');
    expect(container.args).toEqual(['controller', '--mode=auto', ...FIXED_ARGS]);
  });

  it('passes replicas, image, mode, the image server URL and the namespaces from values', () => {
    const deployment = one(
      helmTemplate(
        '--set',
        'replicas=3,image.repository=registry.local/sf,image.tag=1.2.3,image.pullPolicy=Always',
        '--set',
        'mode=redfish,imageServerUrl=https://images.hub.example.com',
        '--set-json',
        'namespaces=["site-1","site-2"]',
      ),
      'Deployment',
    );
    const spec = deployment['spec'] as DeploymentSpec;
    expect(spec.replicas).toBe(3);
    const container = spec.template.spec.containers[0]!;
    expect(container.image).toBe('registry.local/sf:1.2.3');
    expect(container.imagePullPolicy).toBe('Always');
    expect(container.args).toEqual([
      'controller',
      '--mode=redfish',
      ...FIXED_ARGS,
      '--image-server-url=https://images.hub.example.com',
      '--namespace=site-1',
      '--namespace=site-2',
    ]);
  });

  it('renders Services for the image server and the metrics that select the controller pods', () => {
    const objects = helmTemplate();
    const deployment = one(objects, 'Deployment')['spec'] as DeploymentSpec;
    const podLabels = deployment.template.metadata.labels;
    const ports = deployment.template.spec.containers[0]!.ports;
    for (const [name, port] of [
      ['edge-images', 'images'],
      ['edge-metrics', 'metrics'],
    ] as const) {
      const service = one(objects, 'Service', name);
      const spec = service['spec'] as {
        selector: Record<string, string>;
        ports: { name: string; port: number; targetPort: number }[];
      };
      expect(service.metadata.namespace).toBe('siteforge');
      expect(podLabels).toMatchObject(spec.selector);
      const containerPort = ports.find((p) => p.name === port)!.containerPort;
      expect(spec.ports).toEqual([{ name: port, port: containerPort, targetPort: containerPort }]);
    }
    expect(podLabels).toMatchObject(deployment.selector.matchLabels);
  });

  it('keeps its values documented in values.yaml', () => {
    const values = parse(readFileSync(join(chartDir, 'values.yaml'), 'utf8')) as Record<
      string,
      unknown
    >;
    expect(Object.keys(values).sort()).toEqual([
      'image',
      'imageServerUrl',
      'mode',
      'namespaces',
      'replicas',
    ]);
  });
});
