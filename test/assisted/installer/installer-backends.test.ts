import { X509Certificate, createPrivateKey } from 'node:crypto';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  OpenshiftInstallBackend,
  SimulatedInstallerBackend,
  selectInstallerBackend,
} from '../../../src/assisted/installer/index.js';
import { UsageError } from '../../../src/shared/errors.js';

const INSTALL_CONFIG = `apiVersion: v1
baseDomain: example.com
metadata:
  name: sno1
sshKey: ssh-ed25519 AAAA test
`;

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'installer-test-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the simulated installer backend', () => {
  it('writes a kubeconfig that client-node reads, whose client certificate its fresh CA signed', async () => {
    const output = await new SimulatedInstallerBackend().generate(INSTALL_CONFIG, [], dir, {
      singleNode: false,
    });
    const kc = new KubeConfig();
    kc.loadFromString(output.kubeconfig);
    const cluster = kc.getCurrentCluster();
    const user = kc.getCurrentUser();
    expect(cluster?.server).toBe('https://api.sno1.example.com:6443');
    const ca = new X509Certificate(Buffer.from(cluster!.caData!, 'base64'));
    const cert = new X509Certificate(Buffer.from(user!.certData!, 'base64'));
    expect(ca.ca).toBe(true);
    expect(cert.verify(ca.publicKey)).toBe(true);
    expect(cert.checkIssued(ca)).toBe(true);
    expect(cert.subject).toContain('CN=system:admin');
    // A key that matches the certificate.
    expect(cert.checkPrivateKey(createKey(user!.keyData!))).toBe(true);
  });

  it('makes a new CA for every cluster', async () => {
    const backend = new SimulatedInstallerBackend();
    const a = await backend.generate(INSTALL_CONFIG, [], dir, { singleNode: true });
    const b = await backend.generate(INSTALL_CONFIG, [], dir, { singleNode: true });
    const caOf = (kubeconfig: string): string => {
      const kc = new KubeConfig();
      kc.loadFromString(kubeconfig);
      return kc.getCurrentCluster()!.caData!;
    };
    expect(caOf(a.kubeconfig)).not.toBe(caOf(b.kubeconfig));
    expect(a.clusterId).not.toBe(b.clusterId);
  });

  it('writes Ignition v3 for each role, and a bootstrap-in-place config only for a single node', async () => {
    const backend = new SimulatedInstallerBackend();
    const multi = await backend.generate(INSTALL_CONFIG, [], dir, { singleNode: false });
    expect(multi.ignitions.bootstrap.ignition.version).toMatch(/^3\./);
    expect(multi.ignitions.master?.ignition.version).toMatch(/^3\./);
    expect(JSON.stringify(multi.ignitions.worker)).toContain(
      'https://api-int.sno1.example.com:22623/config/worker',
    );
    expect(JSON.stringify(multi.ignitions.bootstrap)).toContain('ssh-ed25519 AAAA test');
    const sno = await backend.generate(INSTALL_CONFIG, [], dir, { singleNode: true });
    expect(sno.ignitions.master).toBeUndefined();
    expect(sno.kubeadminPassword).toMatch(/^\w{5}-\w{5}-\w{5}-\w{5}$/);
    expect(sno.infraId).toMatch(/^sno1-[0-9a-f]{5}$/);
  });

  it('refuses an install-config without a name', async () => {
    await expect(
      new SimulatedInstallerBackend().generate('baseDomain: x\n', [], dir, { singleNode: true }),
    ).rejects.toThrow('install-config.yaml needs metadata.name and baseDomain');
  });
});

describe('the openshift-install backend', () => {
  it('says which path is missing and how to configure it', async () => {
    const backend = new OpenshiftInstallBackend({
      path: join(dir, 'openshift-install'),
      howToConfigure: 'pass --openshift-install-path',
    });
    const availability = await backend.availability();
    expect(availability).toEqual({
      available: false,
      reason: `The installation waits for openshift-install: ${join(dir, 'openshift-install')} does not exist. Install the openshift-install binary of the cluster's release there, or pass --openshift-install-path`,
    });
    await expect(backend.generate(INSTALL_CONFIG, [], dir, { singleNode: true })).rejects.toThrow(
      'does not exist',
    );
  });

  it('says when the binary is not executable', async () => {
    const path = join(dir, 'openshift-install');
    await writeFile(path, '#!/bin/sh\n');
    await chmod(path, 0o644);
    const availability = await new OpenshiftInstallBackend({ path }).availability();
    expect(availability.available).toBe(false);
    expect(!availability.available && availability.reason).toContain('is not executable');
  });

  it('runs single-node-ignition-config in the work directory, for the cluster’s release, and reads back its output', async () => {
    const path = join(dir, 'openshift-install');
    // A stand-in binary that writes what the real one writes.
    await writeFile(
      path,
      `#!/bin/sh
set -e
[ "$1 $2" = "create single-node-ignition-config" ] || { echo "unexpected $*" >&2; exit 2; }
[ "$OPENSHIFT_INSTALL_RELEASE_IMAGE_OVERRIDE" = "quay.io/ocp-release:4.16.3-x86_64" ] || { echo "no release override" >&2; exit 3; }
d="$4"
grep -q 'name: sno1' "$d/install-config.yaml"
mkdir -p "$d/auth"
echo '{"ignition":{"version":"3.2.0"}}' > "$d/bootstrap-in-place-for-live-iso.ign"
echo 'apiVersion: v1' > "$d/auth/kubeconfig"
printf 'abcde-fghij-klmno-pqrst' > "$d/auth/kubeadmin-password"
echo '{"clusterID":"c-1","infraID":"sno1-x1y2z"}' > "$d/metadata.json"
`,
    );
    await chmod(path, 0o755);
    const work = join(dir, 'work');
    await mkdir(work);
    const output = await new OpenshiftInstallBackend({ path }).generate(INSTALL_CONFIG, [], work, {
      singleNode: true,
      releaseImage: 'quay.io/ocp-release:4.16.3-x86_64',
    });
    expect(output).toEqual({
      ignitions: { bootstrap: { ignition: { version: '3.2.0' } } },
      kubeconfig: 'apiVersion: v1\n',
      kubeadminPassword: 'abcde-fghij-klmno-pqrst',
      clusterId: 'c-1',
      infraId: 'sno1-x1y2z',
    });
  });

  it('reports a failing command with its error output', async () => {
    const path = join(dir, 'openshift-install');
    await writeFile(path, '#!/bin/sh\necho "FATAL failed to fetch Master Machines" >&2\nexit 1\n');
    await chmod(path, 0o755);
    await expect(
      new OpenshiftInstallBackend({ path }).generate(INSTALL_CONFIG, [], dir, {
        singleNode: false,
      }),
    ).rejects.toThrow(/create ignition-configs .*failed.*FATAL failed to fetch Master Machines/s);
  });
});

describe('selectInstallerBackend', () => {
  it('chooses openshift-install unless the simulation is asked for by name', () => {
    expect(selectInstallerBackend().name).toBe('openshift-install');
    expect(selectInstallerBackend({ backend: 'simulated' }).name).toBe('simulated');
    expect(() => selectInstallerBackend({ backend: 'fake' })).toThrow(UsageError);
    expect(() => selectInstallerBackend({ backend: 'fake' })).toThrow(
      'unknown installer backend "fake": expected one of openshift-install, simulated',
    );
  });
});

function createKey(base64Pem: string) {
  return createPrivateKey(Buffer.from(base64Pem, 'base64').toString());
}
