// Redfish mockup trees built from vendor data captured on real BMCs, served by sushy-tools'
// `sushy-static` on 127.0.0.1 for integration tests.
//
// DMTF's Redfish-Mockup-Server is not on PyPI, and upstream code may not be fetched into the
// repo, so the trees come from JSON samples that ship inside pinned PyPI wheels, and the server
// is sushy-static from the sushy-tools virtualenv of sushy.mjs. Nothing here is committed: the
// wheels are downloaded once into <repo>/.cache/redfish-mockups, the trees are built into a
// temporary directory on every call.
//
// API:  const built = await buildMockups();            // { dir, trees: { 'hpe-ilo': {...}, ... } }
//       const bmc = await startSushyStatic({ mockupDir: built.trees['hpe-ilo'].dir, tls: true });
//       bmc.url -> 'https://127.0.0.1:PORT', bmc.ca -> CA file; await bmc.stop(); built.remove();
// CLI:  node scripts/hub/mockups.mjs build DIR
//       node scripts/hub/mockups.mjs run VENDOR [--tls]   (Ctrl-C stops it)
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, posix, resolve } from 'node:path';
import { ensureSushy, startVenvServer, sushyVenv } from './sushy.mjs';
import { HubError, isMain, log, repoRoot, run, runCli } from './util.mjs';

/** The wheels whose test samples were captured from real BMCs, pinned by version and hash. */
export const MOCKUP_WHEELS = [
  {
    name: 'proliantutils',
    version: '2.16.3',
    sha256: 'f26a9745127dec9876dbfd4031ae5c43045577e0cb60e63058f5859536106354',
  },
  {
    name: 'sushy',
    version: '5.14.0',
    sha256: '1441cd28edd2ffccffeb4d2f4f0c3e1aa53ec8f276cb68cbd331a6c67c87c532',
  },
  {
    name: 'sushy-oem-idrac',
    version: '6.0.0',
    sha256: 'ac5a56ba61cd1d7497f6adb5c8c25d804f7e6d1149a6ecc97ff0c0f854aab1f2',
  },
];

// Which samples make each tree. Every file listed is captured data, placed unchanged at the
// path of its own @odata.id; `variant` picks one entry of a file that wraps several
// ({"default": {...}, "vmedia_inserted": {...}}). Collections a tree lacks are synthesized by
// synthesizeCollections below, and only those.
export const MOCKUP_VENDORS = {
  // HPE iLO 5 (ProLiant DL180 Gen10), from proliantutils' tests. Captured: service root, System,
  // Manager, its VirtualMedia collection and CD/DVD slot, Chassis. Synthesized: the Systems and
  // Managers collections, which the capture links from the root but does not contain.
  'hpe-ilo': {
    wheel: 'proliantutils',
    samples: 'proliantutils/tests/redfish/json_samples',
    files: [
      { file: 'root.json' },
      { file: 'system.json', variant: 'default' },
      { file: 'manager.json' },
      { file: 'vmedia_collection.json' },
      { file: 'vmedia.json', variant: 'default' },
      { file: 'chassis.json' },
    ],
  },
  // DMTF's public mockup (System 437XR1138R2, Manager "BMC") as sushy's tests carry it: the
  // System without VirtualMedia, so slots come from the Manager, whose only one is a floppy.
  // Everything is captured; nothing is synthesized.
  dmtf: {
    wheel: 'sushy',
    samples: 'sushy/tests/unit/json_samples',
    files: [
      { file: 'root.json' },
      { file: 'system_collection.json' },
      { file: 'system.json' },
      { file: 'manager_collection.json' },
      { file: 'manager.json' },
      { file: 'virtual_media_collection.json' },
      { file: 'virtual_media.json' },
      { file: 'chassis_collection.json' },
      { file: 'chassis.json' },
      { file: 'session_service.json' },
    ],
  },
  // The same DMTF mockup in its newer schema (ComputerSystem v1_20, Manager v1_18): the CD
  // slot is under the System, captured with an image mounted through the KVM applet.
  // Everything is captured; nothing is synthesized.
  'dmtf-system-media': {
    wheel: 'sushy',
    samples: 'sushy/tests/unit/json_samples',
    files: [
      { file: 'root.json' },
      { file: 'system_collection.json' },
      { file: 'systemv1_20.json' },
      { file: 'manager_collection.json' },
      { file: 'managerv1_18.json' },
      { file: 'virtual_media_collectionv1_6.json' },
      { file: 'virtual_mediav1_6.json' },
    ],
  },
  // Dell iDRAC 9 (PowerEdge R640, Manager "14G Monolithic"), from sushy-oem-idrac's tests.
  // Captured: service root, System, Managers collection, Manager (with its Oem actions).
  // Synthesized: the Systems collection, and the Manager's VirtualMedia collection, empty
  // because the capture holds no slot.
  'dell-idrac': {
    wheel: 'sushy-oem-idrac',
    samples: 'sushy_oem_idrac/tests/unit/json_samples',
    files: [
      { file: 'root.json' },
      { file: 'system.json' },
      { file: 'manager_collection.json' },
      { file: 'manager.json' },
    ],
  },
};

export const mockupCache = resolve(
  process.env.SITEFORGE_MOCKUPS_CACHE || join(repoRoot, '.cache/redfish-mockups'),
);

/**
 * Downloads and unpacks the pinned wheels once (pip from the sushy-tools venv, hashes checked).
 * @returns {Promise<string>} the directory holding one unpacked directory per wheel
 */
export async function ensureMockupWheels() {
  const unpacked = join(mockupCache, 'unpacked');
  const marker = join(mockupCache, '.siteforge-pins');
  const pins =
    MOCKUP_WHEELS.map((w) => `${w.name}==${w.version} --hash=sha256:${w.sha256}`).join('\n') + '\n';
  if (existsSync(marker) && readFileSync(marker, 'utf8') === pins) return unpacked;

  await ensureSushy();
  log(`downloading ${MOCKUP_WHEELS.map((w) => `${w.name}==${w.version}`).join(' ')}`);
  // The marker is written last, so a half-made cache is never taken for a good one.
  rmSync(mockupCache, { recursive: true, force: true });
  const wheels = join(mockupCache, 'wheels');
  mkdirSync(wheels, { recursive: true });
  const requirements = join(mockupCache, 'requirements.txt');
  writeFileSync(requirements, pins);
  await run(join(sushyVenv, 'bin/pip'), [
    'download',
    '-q',
    '--disable-pip-version-check',
    '--no-deps',
    '--only-binary=:all:',
    '--require-hashes',
    '-d',
    wheels,
    '-r',
    requirements,
  ]);
  for (const wheel of MOCKUP_WHEELS) {
    const prefix = `${wheel.name.replace(/-/g, '_')}-${wheel.version}-`;
    const file = readdirSync(wheels).find((f) => f.startsWith(prefix) && f.endsWith('.whl'));
    if (!file) throw new HubError(`pip downloaded no ${prefix}*.whl into ${wheels}`);
    // A wheel is a zip file; Python's zipfile unpacks it without another tool.
    await run(join(sushyVenv, 'bin/python'), [
      '-m',
      'zipfile',
      '-e',
      join(wheels, file),
      join(unpacked, wheel.name),
    ]);
  }
  writeFileSync(marker, pins);
  return unpacked;
}

/**
 * Builds one mockup directory per vendor of MOCKUP_VENDORS (GET /redfish/v1/<path> is
 * <tree>/<path>/index.json, as sushy-static and DMTF's mockup server read it).
 * @param {object} [o]
 * @param {string} [o.dir] where to build; default: a fresh temporary directory
 * @returns {Promise<{dir: string, trees: Record<string, {dir: string, captured: string[], synthesized: string[]}>, remove(): void}>}
 */
export async function buildMockups({ dir } = {}) {
  const unpacked = await ensureMockupWheels();
  const root = dir ?? mkdtempSync(join(tmpdir(), 'siteforge-mockups-'));
  const trees = {};
  for (const [vendor, spec] of Object.entries(MOCKUP_VENDORS)) {
    const treeDir = join(root, vendor);
    rmSync(treeDir, { recursive: true, force: true });
    const placed = new Map(); // normalized path -> resource
    const captured = [];
    for (const { file, variant } of spec.files) {
      const path = join(unpacked, spec.wheel, spec.samples, file);
      const json = JSON.parse(readFileSync(path, 'utf8'));
      const resource = variant === undefined ? json : json[variant];
      const id = resource?.['@odata.id'];
      if (typeof id !== 'string')
        throw new HubError(
          `${spec.wheel} ${file}${variant ? ` [${variant}]` : ''} has no @odata.id`,
        );
      const key = normalize(id);
      if (placed.has(key)) throw new HubError(`${vendor}: two samples claim ${id}`);
      placed.set(key, resource);
      captured.push(id);
    }
    const synthesized = synthesizeCollections(placed);
    for (const [key, resource] of placed) {
      const out = join(treeDir, ...key.split('/').filter(Boolean), 'index.json');
      mkdirSync(join(out, '..'), { recursive: true });
      writeFileSync(out, JSON.stringify(resource, null, 2) + '\n');
    }
    trees[vendor] = { dir: join(treeDir, 'redfish/v1'), captured, synthesized };
  }
  return {
    dir: root,
    trees,
    remove: () => {
      if (dir === undefined) rmSync(root, { recursive: true, force: true });
    },
  };
}

/**
 * Adds the collections the client walks (root → Systems, Managers; System and Manager →
 * VirtualMedia) where a tree links one it does not contain. Members are the placed resources
 * directly under the collection's path; nothing else is invented.
 * @returns {string[]} the @odata.ids synthesized
 */
function synthesizeCollections(placed) {
  const rootRes = placed.get('/redfish/v1');
  const wanted = [
    [rootRes?.Systems, 'ComputerSystemCollection', 'Computer System Collection'],
    [rootRes?.Managers, 'ManagerCollection', 'Manager Collection'],
  ];
  for (const resource of placed.values()) {
    const type = String(resource['@odata.type'] ?? '');
    if (/^#(ComputerSystem|Manager)\.v/.test(type))
      wanted.push([resource.VirtualMedia, 'VirtualMediaCollection', 'Virtual Media Collection']);
  }
  const synthesized = [];
  for (const [link, type, name] of wanted) {
    const id = link?.['@odata.id'];
    if (typeof id !== 'string' || placed.has(normalize(id))) continue;
    const members = [...placed.values()]
      .map((r) => r['@odata.id'])
      .filter((m) => posix.dirname(normalize(m)) === normalize(id))
      .sort();
    placed.set(normalize(id), {
      '@odata.id': id,
      '@odata.type': `#${type}.${type}`,
      Name: name,
      Description: 'Synthesized by scripts/hub/mockups.mjs: linked but not in the capture',
      Members: members.map((m) => ({ '@odata.id': m })),
      'Members@odata.count': members.length,
    });
    synthesized.push(id);
  }
  return synthesized;
}

/** '/redfish/v1/Systems/1/' and '/redfish/v1/Systems/1' are the same resource (sushy-static). */
function normalize(id) {
  return id.replace(/\/+$/, '');
}

/**
 * Starts sushy-static on 127.0.0.1 serving `mockupDir` and waits until GET /redfish/v1/ is 200.
 * It has no authentication and keeps no state: POST and PATCH answer 204 and change nothing.
 * @param {object} o
 * @param {string} o.mockupDir the directory that holds the root's index.json
 * @param {number} [o.port] default: a free port
 * @param {boolean} [o.tls] serve HTTPS with a certificate from a fresh CA (returned as `ca`)
 * @returns {Promise<{url: string, port: number, pid: number, dir: string, ca?: string, log: string, stop(): Promise<void>}>}
 */
export async function startSushyStatic({ mockupDir, port, tls = false, readyTimeoutMs = 30_000 }) {
  if (!existsSync(join(mockupDir, 'index.json')))
    throw new HubError(`${mockupDir} has no index.json (the service root)`);
  await ensureSushy();
  // It prints every request's headers and body to stdout, and the request line with the status
  // to stderr; both go to the log (what the BMC received), not to the test output.
  return startVenvServer({
    name: 'sushy-static',
    exe: join(sushyVenv, 'bin/sushy-static'),
    port,
    tls,
    readyTimeoutMs,
    // Unbuffered, so the log shows each request as soon as it is answered.
    env: { ...process.env, PYTHONUNBUFFERED: '1' },
    args: ({ port: listenPort, cert }) => [
      ...['--interface', '127.0.0.1', '--port', String(listenPort), '--mockup-files', mockupDir],
      ...(cert ? ['--ssl-certificate', cert.cert, '--ssl-key', cert.key] : []),
    ],
  });
}

if (isMain(import.meta.url)) {
  runCli('mockups.mjs', async () => {
    const args = process.argv.slice(2);
    if (args[0] === 'build' && args[1]) {
      const built = await buildMockups({ dir: resolve(args[1]) });
      for (const [vendor, tree] of Object.entries(built.trees))
        process.stdout.write(
          `${vendor}\t${tree.dir}\tsynthesized: ${tree.synthesized.join(' ')}\n`,
        );
      return 0;
    }
    if (args[0] !== 'run' || !(args[1] in MOCKUP_VENDORS))
      throw new HubError(
        `usage: node scripts/hub/mockups.mjs build DIR | run {${Object.keys(MOCKUP_VENDORS).join('|')}} [--tls]`,
      );
    const built = await buildMockups();
    try {
      const bmc = await startSushyStatic({
        mockupDir: built.trees[args[1]].dir,
        tls: args.includes('--tls'),
      });
      log(
        `sushy-static ready: ${bmc.url}/redfish/v1/${bmc.ca ? ` (CA ${bmc.ca})` : ''}; Ctrl-C stops it`,
      );
      await new Promise((done) => ['SIGINT', 'SIGTERM'].forEach((s) => process.once(s, done)));
      await bmc.stop();
    } finally {
      built.remove();
    }
    return 0;
  });
}
