/**
 * `siteforge apply` and `siteforge check`: the generated objects sent to a hub for users without
 * Argo CD. Loaded on demand by main.ts, because @kubernetes/client-node takes ~0.7 s to import
 * and the other commands do not need it.
 *
 * check is a server-side dry run of every wave. The API server answers an object in a namespace
 * that does not exist yet with 404 before validating it, and a dry-run Namespace is never
 * persisted; so objects whose namespace the input creates are dry-run in the `default`
 * namespace instead (see DRY_RUN_STAND_IN_NAMESPACE). check creates nothing on the hub.
 */
import type { InputIssue } from '../../shared/errors.js';
import { ClientNodeKubeClient } from '../../kube/client-node-kube-client.js';
import { KubeApiErrorCode } from '../../kube/errors.js';
import { objectName } from '../../kube/kube-client.js';
import type { KubeClient } from '../../kube/kube-client.js';
import { ExitCode } from '../exit-code.js';
import { reportHubFailure } from './hub-failure.js';
import { applyInWaves, DRY_RUN_STAND_IN_NAMESPACE, WaveTimeoutError } from '../apply-waves.js';
import type { AppliedObject, ApplyItem, RejectedObject } from '../apply-waves.js';
import { renderFleet, reportIssues, SourceLocator } from '../render-fleet.js';
import type { ManifestSource, RenderOptions } from '../render-fleet.js';
import type { RunBudget } from '../run-budget.js';
import { listInputFiles, readInputFiles } from './read-inputs.js';

/** What apply and check take from the command line. */
export interface KubeCommandArgs {
  readonly command: 'apply' | 'check';
  /** SiteConfig files or directories. */
  readonly paths: readonly string[];
  /** @default $KUBECONFIG, then ~/.kube/config */
  readonly kubeconfig?: string | undefined;
  /** apply only: `--dry-run=server`. */
  readonly dryRun: boolean;
  /** Warnings of the SiteConfig validation fail the run. */
  readonly strict: boolean;
}

/** Where the command writes; messages all go to stderr. */
export interface KubeCommandIo {
  readonly cwd: string;
  readonly stderr: (text: string) => void;
}

/** Dependencies that tests may replace. */
export interface KubeCommandDeps {
  /** @default ClientNodeKubeClient from the kubeconfig */
  readonly connect?: (kubeconfig: string | undefined) => KubeClient;
}

/**
 * Validates and renders the input, then applies it (or dry-runs it) on the hub. Never throws
 * for a hub that is unreachable or rejects objects; those are exit codes 3 and 1.
 */
export async function runKubeCommand(
  args: KubeCommandArgs,
  io: KubeCommandIo,
  budget: RunBudget,
  render: Pick<
    RenderOptions,
    'files' | 'kustomizationRoot' | 'secrets' | 'format' | 'templateNamespace'
  > = {},
  deps: KubeCommandDeps = {},
): Promise<ExitCode> {
  const files = readInputFiles(listInputFiles(args.paths, io.cwd, budget), io.cwd, budget);
  const { clusters, siteCount, issues } = renderFleet(files, {
    ...render,
    withObjects: true,
    limits: budget.limits,
    deadline: budget,
  });
  const report = reportIssues(issues, args.strict);
  if (report.text !== '') io.stderr(report.text);
  if (report.errors > 0) {
    io.stderr(
      `siteforge: ${String(report.errors)} error(s), ${String(report.warnings)} warning(s); nothing was sent to the hub\n`,
    );
    return ExitCode.Invalid;
  }
  if (siteCount === 0) {
    io.stderr(`siteforge: no SiteConfig found in ${args.paths.join(', ')}\n`);
    return ExitCode.Invalid;
  }
  // Every cluster must come with its objects: applying only some of the input would look like
  // success. renderFleet attaches them for SiteConfig input.
  const unsupported = clusters.filter((c) => c.objects === undefined).map((c) => c.clusterName);
  if (unsupported.length > 0) {
    io.stderr(
      `siteforge: ${args.command} cannot send cluster(s) ${unsupported.join(', ')} yet: only SiteConfig input is supported\n`,
    );
    return ExitCode.Invalid;
  }
  const items: ApplyItem<ManifestSource>[] = clusters.flatMap((c) =>
    (c.objects ?? []).map(({ manifest, source }) => ({ object: manifest, source })),
  );

  const check = args.command === 'check';
  const dryRun = check || args.dryRun;
  const suffix = dryRun ? ' (server dry run)' : '';
  try {
    const client = (deps.connect ?? connect)(args.kubeconfig);
    const result = await applyInWaves(client, items, {
      dryRun,
      continueAfterRejection: check,
      onWave: (wave, applied) => {
        if (!check) for (const a of applied) io.stderr(`${appliedLine(wave, a, dryRun)}\n`);
      },
    });
    if (result.rejected.length > 0) {
      const locator = new SourceLocator(files, budget.limits);
      io.stderr(
        reportIssues(
          result.rejected.map((r) => rejectionIssue(r, locator)),
          false,
        ).text,
      );
      const skipped =
        result.skippedWaves.length > 0
          ? `; wave(s) ${result.skippedWaves.join(', ')} not applied`
          : '';
      io.stderr(
        `siteforge: the hub rejected ${String(result.rejected.length)} of ${String(items.length)} object(s)${skipped}\n`,
      );
      return ExitCode.Invalid;
    }
    io.stderr(summary(args.command, result.applied, clusters.length, suffix));
    return ExitCode.Ok;
  } catch (err) {
    const hubFailure = reportHubFailure(err, io);
    if (hubFailure !== undefined) return hubFailure;
    if (err instanceof WaveTimeoutError) {
      io.stderr(`siteforge: ${err.message}\n`);
      return ExitCode.Invalid;
    }
    throw err;
  }
}

function connect(kubeconfig: string | undefined): KubeClient {
  return ClientNodeKubeClient.fromKubeconfig(kubeconfig === undefined ? {} : { kubeconfig });
}

/** `wave 1 created AgentClusterInstall sno1/sno1`; names only, never content. */
function appliedLine(
  wave: number,
  applied: AppliedObject<ManifestSource>,
  dryRun: boolean,
): string {
  const { object } = applied.item;
  const line = `wave ${String(wave)} ${applied.outcome} ${object.kind} ${objectName(object)}`;
  if (!dryRun) return line;
  if (applied.standInNamespace === undefined) return `${line} (server dry run)`;
  return `${line} (server dry run in namespace ${applied.standInNamespace}: ${String(object.metadata.namespace)} does not exist yet)`;
}

function summary(
  command: 'apply' | 'check',
  applied: readonly AppliedObject<ManifestSource>[],
  clusterCount: number,
  suffix: string,
): string {
  const objects = `${String(applied.length)} object(s) of ${String(clusterCount)} cluster(s)`;
  if (command === 'check') {
    const standIns = applied.filter((a) => a.standInNamespace !== undefined).length;
    const note =
      standIns > 0
        ? `; ${String(standIns)} checked in namespace ${DRY_RUN_STAND_IN_NAMESPACE} because their own namespace does not exist yet`
        : '';
    return `siteforge: the hub accepts all ${objects} (server dry run${note})\n`;
  }
  const count = (outcome: string): number => applied.filter((a) => a.outcome === outcome).length;
  return `siteforge: applied ${objects}: ${String(count('created'))} created, ${String(count('configured'))} configured, ${String(count('unchanged'))} unchanged${suffix}\n`;
}

const HINTS: Partial<Record<string, string>> = {
  [KubeApiErrorCode.Invalid]:
    "the hub's schema for this kind (crds/) rejects the generated value; change the SiteConfig entry that produces it",
  [KubeApiErrorCode.Conflict]:
    'another field manager owns these fields and siteforge never forces; remove them from the other manager, or delete the object',
  [KubeApiErrorCode.NotFound]: 'create the namespace first, or add it to the input',
  [KubeApiErrorCode.Forbidden]:
    "the kubeconfig's user may not do this, or the namespace is being deleted",
};

/** The operator that serves each API group SiteForge emits, as hubs install it. */
const PROVIDERS: Readonly<Record<string, string>> = {
  'agent-install.openshift.io': 'the multicluster engine (assisted-service)',
  'extensions.hive.openshift.io': 'the multicluster engine (assisted-service)',
  'hive.openshift.io': 'the multicluster engine (Hive)',
  'cluster.open-cluster-management.io': 'the multicluster engine or ACM',
  'agent.open-cluster-management.io': 'Red Hat Advanced Cluster Management',
  'siteconfig.open-cluster-management.io':
    'the SiteConfig operator (Red Hat Advanced Cluster Management 2.12 or later)',
  'metal3.io': 'the bare-metal operator (metal3; on OpenShift, the Bare Metal platform)',
  'external-secrets.io': 'the External Secrets Operator',
};

/**
 * What to do when the hub does not serve a kind in the apiVersion SiteForge wrote: for the
 * ExternalSecret, pick the version the hub's operator serves (0.17.0 and later: v1 only; 0.16.x:
 * both; earlier: v1beta1 only); for other kinds, install the operator that provides them.
 */
function unservedKindHint(kind: string, apiVersion: string): string {
  if (apiVersion === 'external-secrets.io/v1beta1')
    return 'External Secrets Operator 0.17.0 and later serve only external-secrets.io/v1: drop externalSecret.apiVersion (v1 is the default), or keep v1beta1 only with an operator before 0.17';
  if (apiVersion === 'external-secrets.io/v1')
    return 'install the External Secrets Operator 0.16 or later on the hub; releases before 0.16 serve only external-secrets.io/v1beta1: with those, set externalSecret.apiVersion: external-secrets.io/v1beta1';
  const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
  const provider = PROVIDERS[group] ?? `the operator that provides ${kind}`;
  return `install ${provider} on the hub, in a release that serves ${apiVersion}`;
}

/** A rejection as an input issue at the SiteConfig entry that produced the object. */
function rejectionIssue(
  rejected: RejectedObject<ManifestSource>,
  locator: SourceLocator,
): InputIssue {
  const { object, source } = rejected.item;
  const { error } = rejected;
  const causes = error.details.causes
    // CEL rules skipped because of the other causes: noise next to the real problem.
    .filter((c) => !(c.message ?? '').includes('validation rules were not checked'))
    .map((c) =>
      c.field && c.field !== '<nil>'
        ? `${c.field}: ${c.message ?? c.reason ?? ''}`
        : (c.message ?? ''),
    )
    .filter((text) => text !== '');
  const unserved = error.code === KubeApiErrorCode.KindUnknown;
  const why = unserved
    ? `the hub does not serve ${object.kind} in ${object.apiVersion}`
    : causes.length > 0
      ? causes.join('; ')
      : error.message;
  const pos = locator.locate(source);
  const hint = unserved ? unservedKindHint(object.kind, object.apiVersion) : HINTS[error.code];
  return {
    severity: 'error',
    code: error.code,
    message: `wave ${String(rejected.wave)} ${object.kind} ${objectName(object)} rejected by the hub (${String(error.status)} ${error.reason}): ${why}`,
    ...(hint !== undefined && { hint }),
    file: source.file,
    line: pos.line,
    column: pos.column,
    path: `/${source.path.join('/')}`,
  };
}
