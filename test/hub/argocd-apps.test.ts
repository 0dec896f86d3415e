import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { KubeApiError } from '../../src/kube/index.js';
import type { KubeObject } from '../../src/kube/index.js';
import { fleetSite, ScriptedRepo } from '../support/fleet-repo.js';
import { hubClient, siteforgeAsync, useNamespace } from '../support/hub.js';

describe('siteforge argocd apps on a hub', () => {
  const ns = useNamespace('argocd-apps');

  it('writes Applications the API server stores as written, under the Application CRD of crds/', async () => {
    const repo = new ScriptedRepo();
    for (let i = 0; i < 12; i++) repo.write(`sites/s${String(i)}.yaml`, fleetSite(i));
    repo.commit('sites');
    const r = await siteforgeAsync(
      [
        'argocd',
        'apps',
        'sites',
        '--repo-url',
        'https://git.example.com/edge/sites.git',
        '--namespace',
        ns.name,
        '--max-sites',
        '5',
      ],
      repo.dir,
    );
    expect(r.stderr).toContain('12 site(s) in 3 Application(s)');
    expect(r.status).toBe(0);
    const apps = parseAllDocuments(r.stdout).map((d) => d.toJS() as KubeObject);
    const client = hubClient();
    for (const app of apps) {
      await client.apply(app, { fieldManager: 'siteforge-test' });
      const stored = await client.get({
        apiVersion: 'argoproj.io/v1alpha1',
        kind: 'Application',
        namespace: ns.name,
        name: app.metadata.name,
      });
      // Nothing pruned: every field is one the CRD knows.
      expect(stored?.['spec']).toEqual(app['spec']);
      expect(stored?.metadata.labels).toEqual(app.metadata.labels);
    }
    // The CRD requires a project, as Argo CD's does.
    const spec = { ...(apps[0]!['spec'] as Record<string, unknown>) };
    delete spec['project'];
    const refused = await client
      .apply(
        { ...apps[0]!, metadata: { ...apps[0]!.metadata, name: 'no-project' }, spec },
        { fieldManager: 'siteforge-test', dryRun: true },
      )
      .then(
        () => undefined,
        (err: unknown) => err,
      );
    expect(refused).toBeInstanceOf(KubeApiError);
    expect((refused as KubeApiError).message).toContain('spec.project');
    repo.dispose();
  });
});
