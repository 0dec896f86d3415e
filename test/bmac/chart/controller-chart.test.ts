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
import {
  AGENT_API_TLS_DIR,
  AGENT_TOKEN_KEY_DIR,
  AGENT_TOKEN_KEY_FILE,
  IMAGE_KEY_DIR,
  IMAGE_KEY_FILE,
  IRONIC_REQUIRED,
  OS_IMAGES_DIR,
  OS_IMAGES_FILE,
  renderControllerChart,
} from '../../../src/bmac/chart/controller-chart.js';
import { agentTokenKeyOfPem } from '../../../src/assisted/config/agent-token-key.js';
import { parseOsImages } from '../../../src/assisted/config/os-images.js';
import { clusterRoleRules } from '../../../src/bmac/permissions.js';
import { parseControllerArgs } from '../../../src/plugins/cli/controller-command.js';
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
  command?: string[];
  args: string[];
  env: { name: string; value?: string; valueFrom?: unknown }[];
  ports: { name: string; containerPort: number }[];
  volumeMounts: { name: string; mountPath: string; readOnly?: boolean }[];
}

interface DeploymentSpec {
  replicas: number;
  selector: { matchLabels: Record<string, string> };
  template: {
    metadata: { labels: Record<string, string> };
    spec: {
      serviceAccountName: string;
      containers: Container[];
      volumes: { name: string; secret?: { secretName: string } }[];
    };
  };
}

let helm: string;

function run(args: string[]) {
  const result = spawnSync(helm, args, { cwd: repoRoot, encoding: 'utf8', timeout: 60_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

function helmTemplateRun(extra: string[]) {
  return run(['template', 'edge', chartDir, '--namespace', 'siteforge', ...extra]);
}

function helmTemplate(...extra: string[]): Obj[] {
  const result = helmTemplateRun(extra);
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
  `--image-server-key-file=${IMAGE_KEY_DIR}/${IMAGE_KEY_FILE}`,
];

/** The flags of values with defaults, as values.yaml sets them. */
const DEFAULT_TUNING_ARGS = ['--workers=16', '--kube-api-qps=500', '--kube-api-burst=1000'];

/** The assisted core's flags, as values.yaml sets them. */
const DEFAULT_ASSISTED_ARGS = [
  '--assisted=true',
  '--agent-api-bind-address=:8090',
  `--agent-token-key-file=${AGENT_TOKEN_KEY_DIR}/${AGENT_TOKEN_KEY_FILE}`,
  '--installer=openshift-install',
  '--discovery-iso-type=minimal-iso',
];

/** The controller's container in the rendered objects. */
const containerOf = (objects: Obj[]): Container =>
  (one(objects, 'Deployment')['spec'] as DeploymentSpec).template.spec.containers[0]!;

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
    // The image's ENTRYPOINT is argocd-cmp-server: without a command the pod would run that.
    expect(container.command).toEqual(['siteforge']);
    // Without imageServerUrl, BMCs are given the pod's address.
    expect(container.env).toContainEqual({
      name: 'POD_IP',
      valueFrom: { fieldRef: { fieldPath: 'status.podIP' } },
    });
    expect(container.args).toEqual([
      'controller',
      '--mode=auto',
      ...FIXED_ARGS,
      ...DEFAULT_TUNING_ARGS,
      ...DEFAULT_ASSISTED_ARGS,
    ]);
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
      ...DEFAULT_TUNING_ARGS,
      ...DEFAULT_ASSISTED_ARGS,
      '--image-server-url=https://images.hub.example.com',
      '--namespace=site-1',
      '--namespace=site-2',
    ]);
  });

  it('renders Services for the image server, the metrics and the agent API that select the controller pods', () => {
    const objects = helmTemplate();
    const deployment = one(objects, 'Deployment')['spec'] as DeploymentSpec;
    const podLabels = deployment.template.metadata.labels;
    const ports = deployment.template.spec.containers[0]!.ports;
    for (const [name, port] of [
      ['edge-images', 'images'],
      ['edge-metrics', 'metrics'],
      ['edge-agent-api', 'agent-api'],
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
      'assisted',
      'dashboard',
      'heapLimitMb',
      'image',
      'imageServer',
      'imageServerUrl',
      'ironic',
      'kubeApi',
      'mode',
      'namespaces',
      'replicas',
      'workers',
    ]);
  });

  it('documents every value in the README table', () => {
    const values = parse(readFileSync(join(chartDir, 'values.yaml'), 'utf8')) as Record<
      string,
      unknown
    >;
    const readme = readFileSync(join(chartDir, 'README.md'), 'utf8');
    const documented = [...readme.matchAll(/^\| `([^`]+)`/gm)].map((m) => m[1]);
    expect(documented.sort()).toEqual(leafPaths(values).sort());
  });

  it('caps the V8 heap of the controller at heapLimitMb (320 MB unless set)', () => {
    const heap = (objects: Obj[]): string | undefined =>
      containerOf(objects).env.find((e) => e.name === 'NODE_OPTIONS')?.value;
    expect(heap(helmTemplate())).toBe('--max-old-space-size=320');
    expect(heap(helmTemplate('--set', 'heapLimitMb=768'))).toBe('--max-old-space-size=768');
  });

  it('passes the workers and the API request limits from values', () => {
    const container = containerOf(
      helmTemplate('--set', 'workers=8,kubeApi.qps=50,kubeApi.burst=75'),
    );
    expect(container.args).toEqual([
      'controller',
      '--mode=auto',
      ...FIXED_ARGS,
      '--workers=8',
      '--kube-api-qps=50',
      '--kube-api-burst=75',
      ...DEFAULT_ASSISTED_ARGS,
    ]);
  });

  it('makes a Secret with a random image key, mounts it read-only and passes its file', () => {
    const objects = helmTemplate();
    const secret = one(objects, 'Secret', 'edge-image-key');
    expect(secret.metadata.namespace).toBe('siteforge');
    const key = Buffer.from((secret['data'] as Record<string, string>)[IMAGE_KEY_FILE]!, 'base64');
    // The controller refuses keys under 32 bytes.
    expect(key.length).toBeGreaterThanOrEqual(32);
    expect(key.toString()).toMatch(/^[A-Za-z0-9]+$/);

    const spec = (one(objects, 'Deployment')['spec'] as DeploymentSpec).template.spec;
    const volume = spec.volumes.find((v) => v.secret?.secretName === 'edge-image-key');
    expect(volume, 'a volume of Secret edge-image-key').toBeDefined();
    expect(spec.containers[0]!.volumeMounts).toContainEqual({
      name: volume!.name,
      mountPath: IMAGE_KEY_DIR,
      readOnly: true,
    });
    expect(spec.containers[0]!.args).toContain(
      `--image-server-key-file=${IMAGE_KEY_DIR}/${IMAGE_KEY_FILE}`,
    );
  });

  it('mounts the Secret of imageServer.existingKeySecret instead of making one', () => {
    const objects = helmTemplate('--set', 'imageServer.existingKeySecret=hub-image-key');
    expect(objects.filter((o) => o.metadata.name === 'edge-image-key')).toEqual([]);
    const spec = (one(objects, 'Deployment')['spec'] as DeploymentSpec).template.spec;
    const volume = spec.volumes.find((v) => v.secret?.secretName === 'hub-image-key');
    expect(volume, 'a volume of Secret hub-image-key').toBeDefined();
    expect(spec.containers[0]!.volumeMounts).toContainEqual({
      name: volume!.name,
      mountPath: IMAGE_KEY_DIR,
      readOnly: true,
    });
  });

  it('refuses to render mode metal3 without ironic.url or ironic.agentImage, saying which', () => {
    const noUrl = helmTemplateRun(['--set', 'mode=metal3,ironic.agentImage=quay.io/m/ia:1']);
    expect(noUrl.status).not.toBe(0);
    expect(noUrl.stderr).toContain(IRONIC_REQUIRED.url);
    const noImage = helmTemplateRun(['--set', 'mode=metal3,ironic.url=https://ironic.hub:6385']);
    expect(noImage.status).not.toBe(0);
    expect(noImage.stderr).toContain(IRONIC_REQUIRED.agentImage);
  });

  it('passes Ironic in mode metal3, and in mode auto only the values set', () => {
    const metal3 = containerOf(
      helmTemplate(
        '--set',
        'mode=metal3,ironic.url=https://ironic.hub:6385,ironic.agentImage=quay.io/m/ia:1',
        '--set',
        'ironic.inspectorUrl=https://ironic.hub:5050',
      ),
    );
    expect(metal3.args).toEqual([
      'controller',
      '--mode=metal3',
      ...FIXED_ARGS,
      ...DEFAULT_TUNING_ARGS,
      ...DEFAULT_ASSISTED_ARGS,
      '--ironic-url=https://ironic.hub:6385',
      '--ironic-inspector-url=https://ironic.hub:5050',
      '--ironic-agent-image=quay.io/m/ia:1',
    ]);
    const auto = containerOf(helmTemplate('--set', 'ironic.url=https://ironic.hub:6385'));
    expect(auto.args).toEqual([
      'controller',
      '--mode=auto',
      ...FIXED_ARGS,
      ...DEFAULT_TUNING_ARGS,
      ...DEFAULT_ASSISTED_ARGS,
      '--ironic-url=https://ironic.hub:6385',
    ]);
  });

  it('makes a Secret with an EC P-256 agent token key the controller reads, and mounts it', () => {
    const objects = helmTemplate();
    const secret = one(objects, 'Secret', 'edge-agent-token-key');
    const pem = Buffer.from(
      (secret['data'] as Record<string, string>)[AGENT_TOKEN_KEY_FILE]!,
      'base64',
    ).toString();
    expect(agentTokenKeyOfPem(pem, 'the chart’s key').asymmetricKeyDetails?.namedCurve).toBe(
      'prime256v1',
    );
    const spec = (one(objects, 'Deployment')['spec'] as DeploymentSpec).template.spec;
    const volume = spec.volumes.find((v) => v.secret?.secretName === 'edge-agent-token-key');
    expect(volume, 'a volume of Secret edge-agent-token-key').toBeDefined();
    expect(spec.containers[0]!.volumeMounts).toContainEqual({
      name: volume!.name,
      mountPath: AGENT_TOKEN_KEY_DIR,
      readOnly: true,
    });
  });

  it('mounts the Secret of assisted.agentTokenKey.existingSecret instead of making one', () => {
    const objects = helmTemplate('--set', 'assisted.agentTokenKey.existingSecret=hub-token-key');
    expect(objects.filter((o) => o.metadata.name === 'edge-agent-token-key')).toEqual([]);
    const spec = (one(objects, 'Deployment')['spec'] as DeploymentSpec).template.spec;
    expect(spec.volumes.map((v) => v.secret?.secretName)).toContain('hub-token-key');
  });

  it('puts assisted.osImages in a ConfigMap that the controller loads, and passes its file', () => {
    const objects = helmTemplate(
      '--set-json',
      'assisted.osImages=[{"openshiftVersion":"4.16","version":"416.94.202405291527-0","url":"https://mirror.example.com/rhcos-4.16.iso","cpuArchitecture":"aarch64"}]',
    );
    const configMap = one(objects, 'ConfigMap', 'edge-os-images');
    const text = (configMap['data'] as Record<string, string>)[OS_IMAGES_FILE]!;
    expect(parseOsImages(OS_IMAGES_FILE, text)).toEqual([
      {
        openshiftVersion: '4.16',
        version: '416.94.202405291527-0',
        url: 'https://mirror.example.com/rhcos-4.16.iso',
        cpuArchitecture: 'arm64',
      },
    ]);
    const container = containerOf(objects);
    expect(container.args).toContain(`--os-images-file=${OS_IMAGES_DIR}/${OS_IMAGES_FILE}`);
    expect(container.volumeMounts).toContainEqual(
      expect.objectContaining({ mountPath: OS_IMAGES_DIR }),
    );
    // Without osImages: no ConfigMap and no flag.
    const none = helmTemplate();
    expect(none.filter((o) => o.kind === 'ConfigMap')).toEqual([]);
    expect(containerOf(none).args.some((a) => a.startsWith('--os-images-file'))).toBe(false);
  });

  it('passes the agent API URL, the TLS Secret’s files and the installer from values', () => {
    const container = containerOf(
      helmTemplate(
        '--set',
        'assisted.agentApi.url=https://agents.hub.example.com,assisted.agentApi.tls.existingSecret=hub-agent-tls',
        '--set',
        'assisted.installer=simulated,assisted.openshiftInstallPath=/opt/oi/openshift-install',
        '--set',
        'assisted.discoveryIsoType=full-iso',
      ),
    );
    expect(container.args).toEqual([
      'controller',
      '--mode=auto',
      ...FIXED_ARGS,
      ...DEFAULT_TUNING_ARGS,
      '--assisted=true',
      '--agent-api-bind-address=:8090',
      `--agent-token-key-file=${AGENT_TOKEN_KEY_DIR}/${AGENT_TOKEN_KEY_FILE}`,
      '--installer=simulated',
      '--discovery-iso-type=full-iso',
      '--agent-api-url=https://agents.hub.example.com',
      `--agent-api-tls-cert-file=${AGENT_API_TLS_DIR}/tls.crt`,
      `--agent-api-tls-key-file=${AGENT_API_TLS_DIR}/tls.key`,
      '--openshift-install-path=/opt/oi/openshift-install',
    ]);
    expect(parseControllerArgs(container.args.slice(1))).toMatchObject({
      agentApiUrl: 'https://agents.hub.example.com',
      agentApiTlsCertFile: `${AGENT_API_TLS_DIR}/tls.crt`,
      agentApiTlsKeyFile: `${AGENT_API_TLS_DIR}/tls.key`,
      installer: 'simulated',
      openshiftInstallPath: '/opt/oi/openshift-install',
      discoveryIsoType: 'full-iso',
    });
  });

  it('turns the assisted core off with assisted.enabled=false: no agent API Service, no token key', () => {
    const objects = helmTemplate('--set', 'assisted.enabled=false');
    expect(objects.filter((o) => o.metadata.name === 'edge-agent-api')).toEqual([]);
    expect(objects.filter((o) => o.metadata.name === 'edge-agent-token-key')).toEqual([]);
    const container = containerOf(objects);
    expect(container.args).toContain('--assisted=false');
    expect(parseControllerArgs(container.args.slice(1))).toMatchObject({ assisted: false });
  });

  it('serves the fleet dashboard behind a ClusterIP Service only when dashboard.enabled', () => {
    const off = helmTemplate();
    expect(off.filter((o) => o.metadata.name === 'edge-dashboard')).toEqual([]);
    expect(parseControllerArgs(containerOf(off).args.slice(1))).not.toHaveProperty(
      'dashboardBindAddress',
    );
    const on = helmTemplate('--set', 'dashboard.enabled=true');
    const service = on.find((o) => o.kind === 'Service' && o.metadata.name === 'edge-dashboard');
    expect(service?.['spec']).toMatchObject({
      type: 'ClusterIP',
      ports: [{ name: 'dashboard', port: 8084, targetPort: 8084 }],
    });
    expect(parseControllerArgs(containerOf(on).args.slice(1))).toMatchObject({
      dashboardBindAddress: { host: '', port: 8084 },
    });
  });

  it('passes only flags that `siteforge controller` parses, with the values given', () => {
    const defaults = containerOf(helmTemplate()).args;
    expect(defaults[0]).toBe('controller');
    expect(parseControllerArgs(defaults.slice(1))).toEqual({
      mode: 'auto',
      namespaces: [],
      metricsBindAddress: { host: '', port: 8080 },
      healthProbeBindAddress: { host: '', port: 8081 },
      leaderElect: true,
      leaderElectionId: 'edge',
      imageServerBindAddress: { host: '', port: 8082 },
      imageServerKeyFile: `${IMAGE_KEY_DIR}/${IMAGE_KEY_FILE}`,
      workers: 16,
      kubeApiQps: 500,
      kubeApiBurst: 1000,
      maxConcurrentBmcOperations: 256,
      logLevel: 'info',
      assisted: true,
      agentApiBindAddress: { host: '', port: 8090 },
      agentTokenKeyFile: `${AGENT_TOKEN_KEY_DIR}/${AGENT_TOKEN_KEY_FILE}`,
      installer: 'openshift-install',
      openshiftInstallPath: 'openshift-install',
      discoveryIsoType: 'minimal-iso',
    });

    const everything = containerOf(
      helmTemplate(
        '--set',
        'mode=metal3,imageServerUrl=https://images.hub.example.com,workers=2',
        '--set',
        'kubeApi.qps=20,kubeApi.burst=40,imageServer.existingKeySecret=hub-image-key',
        '--set',
        'ironic.url=https://ironic.hub:6385,ironic.inspectorUrl=https://ironic.hub:5050',
        '--set',
        'ironic.agentImage=quay.io/metal3-io/ironic-agent:v1',
        '--set-json',
        'namespaces=["site-1","site-2"]',
      ),
    ).args;
    expect(parseControllerArgs(everything.slice(1))).toMatchObject({
      mode: 'metal3',
      namespaces: ['site-1', 'site-2'],
      imageServerUrl: 'https://images.hub.example.com',
      imageServerKeyFile: `${IMAGE_KEY_DIR}/${IMAGE_KEY_FILE}`,
      workers: 2,
      kubeApiQps: 20,
      kubeApiBurst: 40,
      ironicUrl: 'https://ironic.hub:6385',
      ironicInspectorUrl: 'https://ironic.hub:5050',
      ironicAgentImage: 'quay.io/metal3-io/ironic-agent:v1',
    });
  });
});

/** The dotted paths of the leaves of a values tree (lists and empty strings are leaves). */
function leafPaths(values: Record<string, unknown>, prefix = ''): string[] {
  return Object.entries(values).flatMap(([key, value]) =>
    value !== null && typeof value === 'object' && !Array.isArray(value)
      ? leafPaths(value as Record<string, unknown>, `${prefix}${key}.`)
      : [`${prefix}${key}`],
  );
}
