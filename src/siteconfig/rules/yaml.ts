/**
 * YAML: plain scalars that Go's YAML 1.1 readers read as something else than the text SiteForge
 * (YAML 1.2) reads (yaml-lookalikes.ts reports them, at the severity load.ts picks for the kind of document).
 */
import { defineRule } from './rule.js';
import type { Rule } from './rule.js';

export const YAML11_LOOKALIKE = defineRule({
  code: 'YAML11_LOOKALIKE',
  severity: 'warning',
  upstream:
    'reads SiteConfigs with yaml.v3 into typed fields: `env: yes` in a string field stays the text',
  why: 'SiteForge reads the same; the warning is for the other Go tools that read the file (kubectl, Argo CD: YAML 1.1, where `yes` is a boolean)',
  reportedBy: 'load.ts',
});

export const YAML11_LOOKALIKE_IN_CLUSTER_INSTANCE = defineRule({
  code: 'YAML11_LOOKALIKE',
  on: 'a ClusterInstance',
  severity: 'error',
  upstream:
    'no ClusterInstance input; the SiteConfig operator gets it from the API server, which read it as YAML 1.1',
  why: 'Kubernetes reads the file itself: `env: yes` becomes the label `"true"`, or the object is refused',
  reportedBy: 'load.ts',
});

/** The rules of this topic, for the registry. */
export const yamlRules: readonly Rule[] = [YAML11_LOOKALIKE, YAML11_LOOKALIKE_IN_CLUSTER_INSTANCE];
