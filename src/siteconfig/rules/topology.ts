/**
 * Topology: how many control-plane nodes and workers a cluster has, what that asks of its VIPs,
 * and the fields only a single-node cluster takes.
 */
import { quote } from '../../shared/errors.js';
import { DEPRECATED_FIELD } from './cluster.js';
import {
  checkVips,
  STACK_MISMATCH,
  VIP_CONFLICT,
  VIP_DUPLICATE,
  VIP_INVALID,
  VIP_IS_NODE_IP,
  VIP_OUTSIDE_MACHINE_NETWORK,
  vipList,
} from './networks.js';
import { defineRule } from './rule.js';
import type { ClusterCheck, NodeCheck, Rule } from './rule.js';

export const TOPOLOGY_INVALID = defineRule({
  code: 'TOPOLOGY_INVALID',
  severity: 'error',
  upstream: 'refuses 0 control-plane nodes only',
  why: "install: `sufficient-masters-count` (exactly 3, or 1); 3 + 1 worker: assisted-service's validations refuse a 4-node cluster (its enhancement `4-nodes-cluster-deployment`)",
});

export const VIPS_REQUIRED = defineRule({
  code: 'VIPS_REQUIRED',
  severity: 'error',
  upstream: 'takes it',
  why: 'install: the cluster stays `pending-for-input` without VIPs',
});

export const SNO_WITH_VIPS = defineRule({
  code: 'SNO_WITH_VIPS',
  severity: 'error',
  upstream: 'takes it',
  why: 'a single-node cluster uses user-managed networking, where assisted-service refuses VIPs',
});

export const REMOVE_SNO_CONTROL_PLANE = defineRule({
  code: 'REMOVE_SNO_CONTROL_PLANE',
  severity: 'error',
  upstream: 'no such field upstream',
  why: "SiteForge's own field `remove`: on the only control-plane node it would destroy the cluster",
});

export const REMOVE_CONTROL_PLANE = defineRule({
  code: 'REMOVE_CONTROL_PLANE',
  severity: 'warning',
  upstream: 'no such field upstream',
  why: "SiteForge's own field `remove`: etcd keeps two members until the node is replaced, and the cluster goes on",
});

export const SNO_ONLY_CPUSET = defineRule({
  code: 'SNO_ONLY_FIELD',
  on: '`cpuset`',
  severity: 'warning',
  was: 'error',
  upstream: 'ignores `cpuset` on multi-node clusters',
  why: 'SiteForge does the same: no workload partitioning, the deprecation annotation as upstream writes it',
});

/** The rules of this topic, for the registry. */
export const topologyRules: readonly Rule[] = [
  TOPOLOGY_INVALID,
  VIPS_REQUIRED,
  SNO_WITH_VIPS,
  REMOVE_SNO_CONTROL_PLANE,
  REMOVE_CONTROL_PLANE,
  SNO_ONLY_CPUSET,
];

/** `remove: true` on a control-plane node. */
export const removeCheck: NodeCheck = {
  scope: 'node',
  name: 'node removal',
  rules: [REMOVE_SNO_CONTROL_PLANE, REMOVE_CONTROL_PLANE],
  check(c, { node, at }) {
    if (node.remove !== true || (node.role ?? 'master') !== 'master' || !c.topologySound) return;
    if (c.isSno) {
      c.report(
        REMOVE_SNO_CONTROL_PLANE,
        [...at, 'remove'],
        'remove: true on the only control-plane node would destroy the cluster',
        'to decommission a single-node cluster, delete its cluster entry instead',
      );
    } else {
      c.report(
        REMOVE_CONTROL_PLANE,
        [...at, 'remove'],
        'removing a control-plane node leaves etcd with two members until it is replaced',
        'add the replacement node in the same change, or follow the control-plane replacement procedure',
        'key',
      );
    }
  },
};

/**
 * The node counts, and the VIPs they ask for: none on a single-node cluster, both kinds on a
 * compact or standard one; then the VIPs themselves (networks.ts).
 */
export const topologyAndVipsCheck: ClusterCheck = {
  scope: 'cluster',
  name: 'topology and VIPs',
  rules: [
    DEPRECATED_FIELD,
    VIP_CONFLICT,
    TOPOLOGY_INVALID,
    VIPS_REQUIRED,
    SNO_WITH_VIPS,
    VIP_INVALID,
    VIP_DUPLICATE,
    VIP_OUTSIDE_MACHINE_NETWORK,
    VIP_IS_NODE_IP,
    STACK_MISMATCH,
  ],
  check(c) {
    const { cluster, at } = c;
    // Which VIPs a cluster needs depends on its topology: both must be sound to check either.
    if (!['apiVIPs', 'apiVIP', 'ingressVIPs', 'ingressVIP'].every((field) => c.sound(field)))
      return;
    const apiVips = vipList(c, 'apiVIPs', 'apiVIP');
    const ingressVips = vipList(c, 'ingressVIPs', 'ingressVIP');
    const hasVips = apiVips.length > 0 || ingressVips.length > 0;
    const topology = `${String(c.masters)} control-plane and ${String(c.workers)} worker node(s)`;
    if (!c.topologySound) {
      // A node role is broken: the counts are unknown, and so is whether VIPs are needed.
    } else if (c.masters === 1) {
      if (hasVips) {
        c.report(
          SNO_WITH_VIPS,
          [...at, apiVips.length > 0 ? apiVips[0]!.field : ingressVips[0]!.field],
          'a single-node cluster takes no API or ingress VIPs',
          'remove apiVIPs/ingressVIPs: single-node clusters use the node address, set machineNetwork instead',
        );
      }
    } else if (c.masters === 3) {
      if (apiVips.length === 0 || ingressVips.length === 0) {
        c.report(
          VIPS_REQUIRED,
          [...at, 'clusterName'],
          `a ${c.workers === 0 ? 'compact' : 'standard'} cluster (${topology}) needs apiVIPs and ingressVIPs`,
          'add apiVIPs and ingressVIPs: free addresses inside the machine network',
        );
      }
    } else {
      c.report(
        TOPOLOGY_INVALID,
        [...at, 'nodes'],
        `cluster ${quote(cluster.clusterName)} has ${topology}`,
        'use 1 control-plane node (single-node, optionally with workers added later), or 3 control-plane nodes with 0 workers (compact) or 2+ workers (standard)',
      );
    }
    if (c.topologySound && c.masters === 3 && c.workers === 1) {
      c.report(
        TOPOLOGY_INVALID,
        [...at, 'nodes'],
        `cluster ${quote(cluster.clusterName)} has ${topology}`,
        'a standard cluster needs at least 2 workers to run the ingress routers highly available; add a worker or make it compact',
      );
    }
    checkVips(c, apiVips, ingressVips);
  },
};

/** cpuset: deprecated, and ignored on multi-node clusters (as siteconfig-generator does). */
export const cpusetCheck: NodeCheck = {
  scope: 'node',
  name: 'cpuset',
  rules: [DEPRECATED_FIELD, SNO_ONLY_CPUSET],
  check(c, { node, at, sound }) {
    if (node.cpuset === undefined || !sound('cpuset')) return;
    c.report(
      DEPRECATED_FIELD,
      [...at, 'cpuset'],
      'cpuset is deprecated since OpenShift 4.15',
      'set cpuPartitioningMode: AllNodes on the cluster and a PerformanceProfile instead',
      'key',
    );
    // siteconfig-generator ignores cpuset on multi-node clusters, and so does the compiler.
    if (!c.isSno && c.topologySound)
      c.report(
        SNO_ONLY_CPUSET,
        [...at, 'cpuset'],
        'cpuset is ignored: workload partitioning by cpuset applies to single-node clusters only',
        'remove cpuset, or use cpuPartitioningMode: AllNodes',
        'key',
      );
  },
};
