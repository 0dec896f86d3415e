// Part of `npm run build` (and so of `npm ci`, through prepare), after tsc: bundles the code
// path of `siteforge kustomize-plugin FILE` into one CommonJS file beside its loader
// (build/src/plugins/argocd/), runs it once on a sample site, and writes V8's code cache of it.
// kustomize starts the plugin once per SiteConfig; see src/plugins/argocd/kustomize-bundle.ts.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outDir = join(root, 'build', 'src', 'plugins', 'argocd');
const { BUNDLE_ID_PREFIX, KUSTOMIZE_BUNDLE_FILE, codeCacheFile, loadKustomizeBundle } =
  await import(join(outDir, 'kustomize-bundle.js'));

// A bundle and its cache are written together; caches of earlier builds go.
for (const name of readdirSync(outDir))
  if (name.startsWith('kustomize-plugin.bundle.')) rmSync(join(outDir, name));

const buildId = randomUUID();
const requireFromRoot = createRequire(join(root, 'package.json'));
await build({
  entryPoints: [join(outDir, 'kustomize-plugin.js')],
  outfile: join(outDir, KUSTOMIZE_BUNDLE_FILE),
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  logLevel: 'warning',
  // import.meta.url (package root lookup, createRequire) is the bundle's own URL.
  define: { 'import.meta.url': '__siteforgeBundleUrl' },
  banner: {
    js: `${BUNDLE_ID_PREFIX}${buildId}\nconst __siteforgeBundleUrl = require('node:url').pathToFileURL(__filename).href;`,
  },
  plugins: [
    {
      // The `yaml` library is only reached through modules the plugin does not run (convert)
      // or loaded on demand (the parser's fallback): free of side effects, so left out.
      name: 'yaml-without-side-effects',
      setup(b) {
        b.onResolve({ filter: /^yaml$/ }, () => ({
          path: requireFromRoot.resolve('yaml'),
          sideEffects: false,
        }));
      },
    },
  ],
});

// Warm-up: one sample site listed in a kustomization, as kustomize runs the plugin, so that the
// cache holds the functions a real run compiles, not only the top level.
const sample = mkdtempSync(join(tmpdir(), 'siteforge-bundle-'));
try {
  writeFileSync(join(sample, 'kustomization.yaml'), 'generators:\n  - site.yaml\n');
  writeFileSync(join(sample, 'site.yaml'), SAMPLE_SITE());
  writeFileSync(join(sample, 'config.yaml'), SAMPLE_SITE());
  const bundle = loadKustomizeBundle(outDir);
  const stderr = [];
  const code = bundle.exports.runKustomizePlugin(['config.yaml'], {
    cwd: sample,
    env: {},
    stdout: () => undefined,
    stderr: (text) => stderr.push(text),
  });
  if (code !== 0) {
    process.stderr.write(stderr.join(''));
    throw new Error(`the bundled kustomize plugin failed on the sample site (exit ${code})`);
  }
  writeFileSync(join(outDir, codeCacheFile(buildId)), bundle.script.createCachedData());
} finally {
  rmSync(sample, { recursive: true, force: true });
}

function SAMPLE_SITE() {
  return `apiVersion: ran.openshift.io/v2
kind: SiteConfig
metadata:
  name: bundle-warm-up
  namespace: bundle-warm-up
spec:
  baseDomain: example.com
  pullSecretRef:
    name: pull-secret
  clusterImageSetNameRef: openshift-4.18
  sshPublicKey: ssh-ed25519 AAAA
  clusters:
    - clusterName: warm-up
      clusterLabels:
        common: true
      networkType: OVNKubernetes
      machineNetwork:
        - cidr: 10.0.0.0/24
      serviceNetwork:
        - 172.30.0.0/16
      clusterNetwork:
        - cidr: 10.128.0.0/14
          hostPrefix: 23
      nodes:
        - hostName: warm-up-node
          bmcAddress: redfish-virtualmedia://10.0.1.1/redfish/v1/Systems/1
          bmcCredentialsName:
            name: warm-up-bmc
          bootMACAddress: "aa:bb:cc:00:00:01"
          rootDeviceHints:
            deviceName: /dev/sda
          nodeNetwork:
            interfaces:
              - name: eno1
                macAddress: "aa:bb:cc:00:00:01"
            config:
              interfaces:
                - name: eno1
                  type: ethernet
                  state: up
                  ipv4:
                    enabled: true
                    address:
                      - ip: 10.0.0.10
                        prefix-length: 24
              routes:
                config:
                  - destination: 0.0.0.0/0
                    next-hop-interface: eno1
                    next-hop-address: 10.0.0.1
`;
}
