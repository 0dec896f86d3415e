/**
 * The Helm chart charts/siteforge-controller, generated: its objects are cdk8s-plus constructs
 * and its ClusterRole is permissions.ts merged, so what the chart grants is what the code uses
 * (reconciler tests run on FakeCluster with these rules). `npm run chart` writes the files;
 * a test regenerates them and compares bytes.
 *
 * Helm values go in as tokens `${HELM:<name>}` that survive cdk8s synthesis as plain strings;
 * rendering then replaces each with its template expression: a token that is a whole value
 * becomes the bare expression (numbers, `| quote`d strings), a token inside a string is put in
 * place and the string double-quoted, so the templates of names stay valid YAML before Helm.
 */
import { ApiObject, App, Chart, JsonPatch } from 'cdk8s';
import * as kplus from 'cdk8s-plus-33';
import { stringify } from 'yaml';
import { ASSISTED_DEFAULTS } from '../../assisted/config/options.js';
import { clusterRoleRules } from '../permissions.js';
import type { PolicyRule } from '../permissions.js';

/** Ports the controller listens on (`siteforge controller`'s defaults). */
export const ControllerPort = {
  Metrics: 8080,
  Probes: 8081,
  Images: 8082,
  AgentApi: ASSISTED_DEFAULTS.agentApiPort,
  Dashboard: 8084,
} as const;

/** The chart's Secret holding the image server's key is `<release>` followed by this. */
const IMAGE_KEY_SUFFIX = '-image-key';
/** The key of that Secret (and of a user's `imageServer.existingKeySecret`) and its file name. */
export const IMAGE_KEY_FILE = 'key';
/** Where the image key Secret is mounted in the controller's container. */
export const IMAGE_KEY_DIR = '/etc/siteforge/image-server-key';

/** The chart's Secret holding the agent token key is `<release>` followed by this. */
const AGENT_TOKEN_KEY_SUFFIX = '-agent-token-key';
/** The key of that Secret (and of a user's `assisted.agentTokenKey.existingSecret`). */
export const AGENT_TOKEN_KEY_FILE = 'key.pem';
/** Where the agent token key Secret is mounted. */
export const AGENT_TOKEN_KEY_DIR = '/etc/siteforge/agent-token-key';
/** Where a user's `kubernetes.io/tls` Secret for the agent API is mounted. */
export const AGENT_API_TLS_DIR = '/etc/siteforge/agent-api-tls';
/** The chart's ConfigMap of `assisted.osImages` is `<release>` followed by this. */
const OS_IMAGES_SUFFIX = '-os-images';
/** The key of that ConfigMap and its file name: `{"osImages": [...]}`. */
export const OS_IMAGES_FILE = 'os-images.json';
/** Where the osImages ConfigMap is mounted. */
export const OS_IMAGES_DIR = '/etc/siteforge/os-images';

/** What `helm template` says when metal3 mode lacks a value it cannot run without. */
export const IRONIC_REQUIRED = {
  url: 'mode metal3 needs ironic.url: the URL of the Ironic API that the ironic agent reports to',
  agentImage: 'mode metal3 needs ironic.agentImage: the ironic agent image that hosts boot',
} as const;

/** A Helm template expression; `raw` ones stand alone as a whole value, `block` ones as list items. */
interface HelmExpression {
  readonly expr: string;
  readonly raw?: true;
  /** Lines that replace a list item `- ${HELM:<name>}`, at its indentation. */
  readonly block?: readonly string[];
}

/** The Helm expression of each token. */
const HELM = {
  name: { expr: '{{ .Release.Name }}' },
  namespace: { expr: '{{ .Release.Namespace }}' },
  replicas: { expr: '{{ .Values.replicas }}', raw: true },
  image: { expr: '{{ .Values.image.repository }}:{{ .Values.image.tag }}' },
  pullPolicy: { expr: '{{ .Values.image.pullPolicy | quote }}', raw: true },
  mode: { expr: '{{ .Values.mode }}' },
  workers: { expr: '{{ .Values.workers }}' },
  kubeApiQps: { expr: '{{ .Values.kubeApi.qps }}' },
  kubeApiBurst: { expr: '{{ .Values.kubeApi.burst }}' },
  heapLimitMb: { expr: '{{ .Values.heapLimitMb }}' },
  // The Secret the key file comes from: the user's, else the chart's.
  imageKeySecret: {
    expr: `{{ .Values.imageServer.existingKeySecret | default (printf "%s${IMAGE_KEY_SUFFIX}" .Release.Name) | quote }}`,
    raw: true,
  },
  // The key the release already has (an upgrade keeps it, so short URLs handed to BMCs stay
  // valid), else a new one. Without a cluster (`helm template`) lookup finds nothing.
  imageKey: {
    expr: `{{ dig "data" "${IMAGE_KEY_FILE}" "" (lookup "v1" "Secret" .Release.Namespace (printf "%s${IMAGE_KEY_SUFFIX}" .Release.Name)) | default (randAlphaNum 48 | b64enc) | quote }}`,
    raw: true,
  },
  assisted: { expr: '{{ .Values.assisted.enabled }}' },
  installer: { expr: '{{ .Values.assisted.installer }}' },
  discoveryIsoType: { expr: '{{ .Values.assisted.discoveryIsoType }}' },
  agentTokenKeySecret: {
    expr: `{{ .Values.assisted.agentTokenKey.existingSecret | default (printf "%s${AGENT_TOKEN_KEY_SUFFIX}" .Release.Name) | quote }}`,
    raw: true,
  },
  // The key the release already has (an upgrade keeps it, so ISOs already booted keep their
  // hosts' tokens valid), else a new EC P-256 key (SEC1 PEM, which the controller reads).
  agentTokenKey: {
    expr: `{{ dig "data" "${AGENT_TOKEN_KEY_FILE}" "" (lookup "v1" "Secret" .Release.Namespace (printf "%s${AGENT_TOKEN_KEY_SUFFIX}" .Release.Name)) | default (genPrivateKey "ecdsa" | b64enc) | quote }}`,
    raw: true,
  },
  agentApiTlsSecret: {
    expr: `{{ .Values.assisted.agentApi.tls.existingSecret | default (printf "%s-agent-api-tls" .Release.Name) | quote }}`,
    raw: true,
  },
  osImages: {
    expr: '{{ dict "osImages" .Values.assisted.osImages | toJson | quote }}',
    raw: true,
  },
  // Flags present only when their values are: the image server URL, Ironic's (which metal3
  // mode cannot run without, so rendering fails early and says so), one --namespace each.
  optionalArgs: {
    expr: '',
    block: [
      '{{- with .Values.imageServerUrl }}',
      '- {{ printf "--image-server-url=%s" . | quote }}',
      '{{- end }}',
      '{{- if eq .Values.mode "metal3" }}',
      `{{- $_ := required "${IRONIC_REQUIRED.url}" .Values.ironic.url }}`,
      `{{- $_ = required "${IRONIC_REQUIRED.agentImage}" .Values.ironic.agentImage }}`,
      '{{- end }}',
      '{{- with .Values.ironic.url }}',
      '- {{ printf "--ironic-url=%s" . | quote }}',
      '{{- end }}',
      '{{- with .Values.ironic.inspectorUrl }}',
      '- {{ printf "--ironic-inspector-url=%s" . | quote }}',
      '{{- end }}',
      '{{- with .Values.ironic.agentImage }}',
      '- {{ printf "--ironic-agent-image=%s" . | quote }}',
      '{{- end }}',
      '{{- with .Values.assisted.agentApi.url }}',
      '- {{ printf "--agent-api-url=%s" . | quote }}',
      '{{- end }}',
      '{{- if .Values.assisted.agentApi.tls.existingSecret }}',
      `- "--agent-api-tls-cert-file=${AGENT_API_TLS_DIR}/tls.crt"`,
      `- "--agent-api-tls-key-file=${AGENT_API_TLS_DIR}/tls.key"`,
      '{{- end }}',
      '{{- if .Values.assisted.osImages }}',
      `- "--os-images-file=${OS_IMAGES_DIR}/${OS_IMAGES_FILE}"`,
      '{{- end }}',
      '{{- with .Values.assisted.openshiftInstallPath }}',
      '- {{ printf "--openshift-install-path=%s" . | quote }}',
      '{{- end }}',
      '{{- if .Values.dashboard.enabled }}',
      `- "--dashboard-bind-address=:${String(ControllerPort.Dashboard)}"`,
      '{{- end }}',
      '{{- range .Values.namespaces }}',
      '- {{ printf "--namespace=%s" . | quote }}',
      '{{- end }}',
    ],
  },
} as const satisfies Record<string, HelmExpression>;

const helmOf = (name: string): HelmExpression | undefined =>
  (HELM as Record<string, HelmExpression>)[name];

const token = (name: keyof typeof HELM): string => `\${HELM:${name}}`;

/** The labels of the release's pods (and what its Deployment and Services select). */
const SELECTOR = {
  'app.kubernetes.io/name': 'siteforge-controller',
  'app.kubernetes.io/instance': token('name'),
};

/** The chart's objects, with Helm tokens, in the order they are written. */
export class ControllerChart extends Chart {
  constructor(scope: App, id: string, rules: readonly PolicyRule[] = clusterRoleRules()) {
    super(scope, id, { disableResourceNameHashes: true });
    const name = token('name');
    const namespace = token('namespace');
    const labels = SELECTOR;

    const account = new kplus.ServiceAccount(this, 'service-account', {
      metadata: { name, namespace, labels },
      automountToken: true,
    });

    const role = new kplus.ClusterRole(this, 'cluster-role', { metadata: { name, labels } });
    for (const rule of rules)
      for (const group of rule.apiGroups)
        for (const resource of rule.resources)
          role.allow(
            [...rule.verbs],
            kplus.ApiResource.custom({ apiGroup: group, resourceType: resource }),
          );
    new kplus.ClusterRoleBinding(this, 'cluster-role-binding', {
      metadata: { name, labels },
      role,
    }).addSubjects(account);

    // The HMAC key of short image URLs, one for every replica: a URL a BMC got from the leader
    // keeps working after a failover. Rendered only when the user brings no Secret of their own.
    const imageKey = new kplus.Secret(this, 'image-key', {
      metadata: { name: `${name}${IMAGE_KEY_SUFFIX}`, namespace, labels },
      type: 'Opaque',
    });
    ApiObject.of(imageKey).addJsonPatch(
      JsonPatch.add('/data', { [IMAGE_KEY_FILE]: token('imageKey') }),
      JsonPatch.remove('/stringData'),
    );
    const imageKeyVolume = kplus.Volume.fromSecret(
      this,
      'image-key-volume',
      kplus.Secret.fromSecretName(this, 'image-key-secret', token('imageKeySecret')),
      { name: 'image-server-key' },
    );

    // The key that signs agent tokens, one for every replica: a host booted from an ISO the
    // leader made is still let in by the next. Rendered only with no Secret of the user's.
    const tokenKey = new kplus.Secret(this, 'agent-token-key', {
      metadata: { name: `${name}${AGENT_TOKEN_KEY_SUFFIX}`, namespace, labels },
      type: 'Opaque',
    });
    ApiObject.of(tokenKey).addJsonPatch(
      JsonPatch.add('/data', { [AGENT_TOKEN_KEY_FILE]: token('agentTokenKey') }),
      JsonPatch.remove('/stringData'),
    );
    // Optional: with the assisted core off, no Secret is rendered and the pod still starts.
    const tokenKeyVolume = kplus.Volume.fromSecret(
      this,
      'agent-token-key-volume',
      kplus.Secret.fromSecretName(this, 'agent-token-key-secret', token('agentTokenKeySecret')),
      { name: 'agent-token-key', optional: true },
    );
    // The user's TLS Secret, mounted when it exists; the flags name its files only when set.
    const tlsVolume = kplus.Volume.fromSecret(
      this,
      'agent-api-tls-volume',
      kplus.Secret.fromSecretName(this, 'agent-api-tls-secret', token('agentApiTlsSecret')),
      { name: 'agent-api-tls', optional: true },
    );
    const osImages = new kplus.ConfigMap(this, 'os-images', {
      metadata: { name: `${name}${OS_IMAGES_SUFFIX}`, namespace, labels },
      data: { [OS_IMAGES_FILE]: token('osImages') },
    });
    const osImagesVolume = kplus.Volume.fromConfigMap(this, 'os-images-volume', osImages, {
      name: 'os-images',
      optional: true,
    });

    const deployment = new kplus.Deployment(this, 'deployment', {
      metadata: { name, namespace, labels },
      replicas: 2,
      select: false,
      serviceAccount: account,
      automountServiceAccountToken: true,
      podMetadata: { labels },
      volumes: [],
      containers: [
        {
          name: 'controller',
          image: token('image'),
          // The image's ENTRYPOINT is the Argo CD plugin's server (argocd-cmp-server); the same
          // image serves the controller through the siteforge command on its PATH.
          command: ['siteforge'],
          args: [
            'controller',
            `--mode=${token('mode')}`,
            `--metrics-bind-address=:${String(ControllerPort.Metrics)}`,
            `--health-probe-bind-address=:${String(ControllerPort.Probes)}`,
            `--image-server-bind-address=:${String(ControllerPort.Images)}`,
            '--leader-elect=true',
            `--leader-election-id=${name}`,
            `--image-server-key-file=${IMAGE_KEY_DIR}/${IMAGE_KEY_FILE}`,
            `--workers=${token('workers')}`,
            `--kube-api-qps=${token('kubeApiQps')}`,
            `--kube-api-burst=${token('kubeApiBurst')}`,
            `--assisted=${token('assisted')}`,
            `--agent-api-bind-address=:${String(ControllerPort.AgentApi)}`,
            `--agent-token-key-file=${AGENT_TOKEN_KEY_DIR}/${AGENT_TOKEN_KEY_FILE}`,
            `--installer=${token('installer')}`,
            `--discovery-iso-type=${token('discoveryIsoType')}`,
            token('optionalArgs'),
          ],
          ports: [
            { name: 'metrics', number: ControllerPort.Metrics },
            { name: 'probes', number: ControllerPort.Probes },
            { name: 'images', number: ControllerPort.Images },
            { name: 'agent-api', number: ControllerPort.AgentApi },
            { name: 'dashboard', number: ControllerPort.Dashboard },
          ],
          liveness: kplus.Probe.fromHttpGet('/healthz', { port: ControllerPort.Probes }),
          readiness: kplus.Probe.fromHttpGet('/readyz', { port: ControllerPort.Probes }),
          envVariables: {
            // Leader election: the Lease lives in the pod's namespace.
            POD_NAMESPACE: kplus.EnvValue.fromFieldRef(kplus.EnvFieldPaths.POD_NAMESPACE),
            // Without imageServerUrl, BMCs are given the pod's own address.
            POD_IP: kplus.EnvValue.fromFieldRef(kplus.EnvFieldPaths.POD_IP),
            // V8 grows its heap toward a limit of a quarter of the node's memory; the live
            // objects of a 3,500-host hub are ~100 MB (bench/controller.js).
            NODE_OPTIONS: kplus.EnvValue.fromValue(`--max-old-space-size=${token('heapLimitMb')}`),
          },
          // The root file system is read-only; the image server's downloads go to /tmp.
          volumeMounts: [
            { path: '/tmp', volume: kplus.Volume.fromEmptyDir(this, 'tmp', 'tmp') },
            { path: IMAGE_KEY_DIR, volume: imageKeyVolume, readOnly: true },
            { path: AGENT_TOKEN_KEY_DIR, volume: tokenKeyVolume, readOnly: true },
            { path: AGENT_API_TLS_DIR, volume: tlsVolume, readOnly: true },
            { path: OS_IMAGES_DIR, volume: osImagesVolume, readOnly: true },
          ],
        },
      ],
    });
    deployment.select(kplus.LabelSelector.of({ labels: SELECTOR }));
    const deploymentObject = ApiObject.of(deployment);
    deploymentObject.addJsonPatch(
      JsonPatch.replace('/spec/replicas', token('replicas')),
      JsonPatch.replace('/spec/template/spec/containers/0/imagePullPolicy', token('pullPolicy')),
      // Pods are selected by SELECTOR; the construct's address label would only add noise.
      JsonPatch.remove('/spec/template/metadata/labels/cdk8s.io~1metadata.addr'),
    );

    for (const [id, port] of [
      ['images', ControllerPort.Images],
      ['metrics', ControllerPort.Metrics],
      ['agent-api', ControllerPort.AgentApi],
      ['dashboard', ControllerPort.Dashboard],
    ] as const) {
      const service = new kplus.Service(this, `${id}-service`, {
        metadata: { name: `${name}-${id}`, namespace, labels },
        ports: [{ name: id, port, targetPort: port }],
      });
      for (const [key, value] of Object.entries(SELECTOR)) service.selectLabel(key, value);
    }
  }
}

/** Options of {@link renderControllerChart}. */
export interface ControllerChartOptions {
  /** The chart's version and appVersion (package.json's version). */
  readonly version: string;
  /** @default permissions.ts merged */
  readonly rules?: readonly PolicyRule[];
}

/** File names under `templates/`, by kind. */
const TEMPLATE_FILES: Readonly<Record<string, string>> = {
  ServiceAccount: 'serviceaccount.yaml',
  ClusterRole: 'clusterrole.yaml',
  ClusterRoleBinding: 'clusterrolebinding.yaml',
  Deployment: 'deployment.yaml',
  Secret: 'secret.yaml',
  Service: 'services.yaml',
  ConfigMap: 'configmap.yaml',
};

/** Conditions under which an object is rendered, by kind and name (with tokens). */
const RENDERED_IF: Readonly<Record<string, string>> = {
  [`Secret/${token('name')}${IMAGE_KEY_SUFFIX}`]: 'not .Values.imageServer.existingKeySecret',
  [`Secret/${token('name')}${AGENT_TOKEN_KEY_SUFFIX}`]:
    'and .Values.assisted.enabled (not .Values.assisted.agentTokenKey.existingSecret)',
  [`ConfigMap/${token('name')}${OS_IMAGES_SUFFIX}`]: '.Values.assisted.osImages',
  [`Service/${token('name')}-agent-api`]: '.Values.assisted.enabled',
  [`Service/${token('name')}-dashboard`]: '.Values.dashboard.enabled',
};

const HEADER =
  '# Generated by `npm run chart` from src/bmac/chart/controller-chart.ts: do not edit.\n';

/**
 * Every file of the chart, by path relative to charts/siteforge-controller: Chart.yaml,
 * values.yaml and templates/*.yaml. Pure: same options, same bytes.
 */
export function renderControllerChart(options: ControllerChartOptions): Map<string, string> {
  const app = new App();
  const chart = new ControllerChart(app, 'siteforge-controller', options.rules);
  const byFile = new Map<string, string[]>();
  for (const object of chart.toJson() as { kind: string; metadata: { name: string } }[]) {
    const file = TEMPLATE_FILES[object.kind];
    if (file === undefined) throw new Error(`no template file for kind ${object.kind}`);
    const condition = RENDERED_IF[`${object.kind}/${object.metadata.name}`];
    const yamlText = withHelm(stringify(object, { lineWidth: 0 }));
    const text =
      condition === undefined ? yamlText : `{{- if ${condition} }}\n${yamlText}{{- end }}\n`;
    byFile.set(file, [...(byFile.get(file) ?? []), text]);
  }
  const files = new Map<string, string>([
    ['Chart.yaml', chartYaml(options.version)],
    ['values.yaml', VALUES],
  ]);
  for (const [file, docs] of [...byFile].sort(([a], [b]) => a.localeCompare(b)))
    files.set(`templates/${file}`, HEADER + docs.join('---\n'));
  return files;
}

/** Replaces the tokens of each `key: value` or `- value` line by their Helm expressions. */
function withHelm(yamlText: string): string {
  return yamlText
    .split('\n')
    .map((line) => {
      const m = /^(\s*(?:- )?(?:[^\s:'"]+: )?)(.*\$\{HELM:.*)$/.exec(line);
      if (m === null) return line;
      const [, prefix = '', scalar = ''] = m;
      const block = /^(\s*)- \$\{HELM:(\w+)\}$/.exec(line);
      const blockLines = block?.[2] === undefined ? undefined : helmOf(block[2])?.block;
      if (blockLines !== undefined)
        return blockLines.map((l) => `${block?.[1] ?? ''}${l}`).join('\n');
      const value = scalar.replace(/^(["'])(.*)\1$/, '$2');
      const whole = /^\$\{HELM:(\w+)\}$/.exec(value);
      const wholeToken = whole?.[1] === undefined ? undefined : helmOf(whole[1]);
      if (wholeToken?.raw === true) return `${prefix}${wholeToken.expr}`;
      const replaced = value.replace(/\$\{HELM:(\w+)\}/g, (_, name: string) => {
        const helm = helmOf(name);
        if (helm === undefined || helm.raw === true || helm.block !== undefined)
          throw new Error(`Helm token ${name} cannot be part of a string`);
        return helm.expr;
      });
      return `${prefix}"${replaced}"`;
    })
    .join('\n');
}

function chartYaml(version: string): string {
  return `${HEADER}apiVersion: v2
name: siteforge-controller
description: >-
  The SiteForge controller on the hub: the Bare Metal Agent Controller, the
  PreprovisioningImage controller, the Redfish host provisioner and the assisted core in one
  Deployment (leader elected), with the image server BMCs boot from, the agent API discovery
  hosts call, and Prometheus metrics.
type: application
version: ${version}
appVersion: ${version}
`;
}

const VALUES = `${HEADER}# Controller pods; one leads (Lease in the release namespace), the others wait.
replicas: 2

image:
  repository: quay.io/siteforge/siteforge
  tag: latest
  pullPolicy: IfNotPresent

# Who boots the hosts: metal3 (the Bare Metal Operator, from PreprovisioningImages), redfish
# (SiteForge, through the BMCs), or auto: metal3 when the operator's Deployment is on the hub.
mode: auto

# The image server's base URL as BMCs reach it (a Route, Ingress or load balancer in front of
# the <release>-images Service), e.g. https://images.hub.example.com. Empty: BMCs are given
# http://<pod IP>:8082 (POD_IP from the downward API), which changes whenever the pod is
# replaced and only works when the BMCs can route to pod addresses.
imageServerUrl: ""

# Namespaces whose objects the controllers reconcile; empty for all.
namespaces: []

imageServer:
  # A Secret of yours in the release namespace with the HMAC key of short image URLs (at
  # least 32 bytes) under \`${IMAGE_KEY_FILE}\`. Empty: the chart makes <release>${IMAGE_KEY_SUFFIX} with a
  # random key at install, which upgrades keep.
  existingKeySecret: ""

# The Ironic the ironic agent of PreprovisioningImages reports to; mode metal3 needs url and
# agentImage (mode auto passes them when set and, on picking metal3, says what is missing).
ironic:
  url: ""
  # Empty: url.
  inspectorUrl: ""
  agentImage: ""

# Reconciles at once per controller.
workers: 16

# Writes toward the API server: per second, and at once before qps applies.
kubeApi:
  qps: 500
  burst: 1000

# The assisted core (docs/assisted.md): discovery ISOs of InfraEnvs, the agent API the
# discovery agents call (HTTPS, the <release>-agent-api Service, port ${String(ControllerPort.AgentApi)}), the Agent,
# AgentClusterInstall and ClusterDeployment controllers.
assisted:
  enabled: true
  agentApi:
    # The https base URL discovery hosts reach the agent API at (a Route, Ingress or load
    # balancer in front of <release>-agent-api). Empty: https://<pod IP>:${String(ControllerPort.AgentApi)}.
    url: ""
    tls:
      # A kubernetes.io/tls Secret of yours (tls.crt with its chain, tls.key) for that URL;
      # agents are given tls.crt to trust. Empty: each controller process makes a CA at start,
      # and ISOs made by one stop working after a restart or failover.
      existingSecret: ""
  agentTokenKey:
    # A Secret of yours with the EC P-256 key that signs agent tokens under \`${AGENT_TOKEN_KEY_FILE}\`
    # (openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256). Empty: the chart makes
    # <release>${AGENT_TOKEN_KEY_SUFFIX} at install, which upgrades keep.
    existingSecret: ""
  # The base images of discovery ISOs, as AgentServiceConfig's spec.osImages:
  # - {openshiftVersion: "4.16", version: 416.94.202405291527-0, cpuArchitecture: x86_64,
  #    url: https://mirror.openshift.com/.../rhcos-live.x86_64.iso}
  osImages: []
  # Where install ignition comes from: openshift-install, or simulated (fake clusters for fleet
  # simulations; never for real hosts).
  installer: ${ASSISTED_DEFAULTS.installer}
  # The openshift-install binary. Empty: openshift-install on the image's PATH.
  openshiftInstallPath: ""
  # The discovery ISO InfraEnvs get: minimal-iso (the rootfs is downloaded at boot) or full-iso.
  discoveryIsoType: ${ASSISTED_DEFAULTS.discoveryIsoType}

# The fleet dashboard (docs/dashboard.md): a read-only web page of every site's state, problems
# and timeline, on port ${String(ControllerPort.Dashboard)} behind the <release>-dashboard Service (ClusterIP). It has no
# login: reach it with \`oc port-forward svc/<release>-dashboard ${String(ControllerPort.Dashboard)}\` or put an
# authenticating proxy in front; never a public route as it is.
dashboard:
  enabled: false

# V8's heap limit (MB, NODE_OPTIONS=--max-old-space-size): without it the heap grows toward a
# quarter of the node's memory; 3,500 hosts need about 100 MB of live objects.
heapLimitMb: 320
`;
