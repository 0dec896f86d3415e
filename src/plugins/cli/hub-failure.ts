/**
 * What the commands that talk to a hub (apply, check, rollout) say when the hub is not there or
 * refuses them: one line and exit 3, the same words from every command.
 */
import { KubeApiError, KubeUnreachableError } from '../../kube/errors.js';
import { ExitCode } from '../exit-code.js';

/** Reports an unreachable hub or refused credentials; `undefined` for any other error. */
export function reportHubFailure(
  err: unknown,
  io: { readonly stderr: (text: string) => void },
): ExitCode | undefined {
  if (err instanceof KubeUnreachableError) {
    io.stderr(`siteforge: ${err.message}\n`);
    return ExitCode.Unreachable;
  }
  if (err instanceof KubeApiError && err.status === 401) {
    io.stderr(`siteforge: the hub does not accept the kubeconfig's credentials: ${err.message}\n`);
    return ExitCode.Unreachable;
  }
  return undefined;
}
