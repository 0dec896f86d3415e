import { describe, it } from 'vitest';
import { filesFromMap } from '../../../src/siteconfig/index.js';
import {
  BIOS_FILE_INVALID,
  BIOS_FILE_NOT_FOUND,
  TEMPLATE_MISMATCH,
  TEMPLATE_NOT_FOUND,
  TEMPLATE_PLACEHOLDER,
  TEMPLATE_WRONG_KIND,
} from '../../../src/siteconfig/rules/templates.js';
import type { LoadCase } from '../../support/rule-cases.js';
import { expectRule } from '../../support/rule-cases.js';
import { snoSite } from '../../support/sites.js';

function kac(options: { name?: string; wave?: string; kind?: string } = {}): string {
  return `apiVersion: agent.open-cluster-management.io/v1
kind: ${options.kind ?? 'KlusterletAddonConfig'}
metadata:
  name: ${options.name ?? '"{{ .Cluster.ClusterName }}"'}
  namespace: "{{ .Cluster.ClusterName }}"
  annotations:
    argocd.argoproj.io/sync-wave: "${options.wave ?? '2'}"
spec:
  clusterName: "{{ .Cluster.ClusterName }}"
`;
}

/** The site referring to templates/kac.yaml, with that file holding `content` (or none). */
function withTemplate(content?: string): LoadCase {
  return {
    input: snoSite({
      cluster: '      crTemplates:\n        KlusterletAddonConfig: templates/kac.yaml\n',
    }),
    options: {
      files: filesFromMap(content === undefined ? {} : { 'sites/templates/kac.yaml': content }),
    },
  };
}

/** The site whose node refers to bios.yaml, with that file holding `content` (or none). */
function withBios(content?: string): LoadCase {
  return {
    input: snoSite({ node: '          biosConfigRef:\n            filePath: bios.yaml\n' }),
    options: {
      files: filesFromMap(content === undefined ? {} : { 'sites/bios.yaml': content }),
    },
  };
}

describe('crTemplate and BIOS file rules', () => {
  it('refuses a crTemplate that is not there', () => {
    expectRule(TEMPLATE_NOT_FOUND, withTemplate(), withTemplate(kac()));
  });

  it('refuses a crTemplate of another kind', () => {
    expectRule(TEMPLATE_WRONG_KIND, withTemplate(kac({ kind: 'ConfigMap' })), withTemplate(kac()));
  });

  it('refuses a crTemplate in another sync wave', () => {
    expectRule(TEMPLATE_MISMATCH, withTemplate(kac({ wave: '5' })), withTemplate(kac()));
  });

  it('refuses a placeholder naming no field', () => {
    expectRule(
      TEMPLATE_PLACEHOLDER,
      withTemplate(kac({ name: '"{{ .Cluster.NoSuchField }}"' })),
      withTemplate(kac()),
    );
  });

  it('refuses a BIOS file that is not there', () => {
    expectRule(BIOS_FILE_NOT_FOUND, withBios(), withBios('ProcTurboMode: Disabled\n'));
  });

  it('refuses a BIOS file that is no map of settings', () => {
    expectRule(BIOS_FILE_INVALID, withBios('- a\n'), withBios('ProcTurboMode: Disabled\n'));
  });
});
