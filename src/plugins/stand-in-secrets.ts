/**
 * Credentials for commands that compile or validate sites without writing their Secrets (a
 * rollout plan, the Argo CD Applications of a fleet): credentials never live in git, so they
 * cannot differ between two revisions and do not decide which sites exist. Sites that read
 * theirs at render time (`fromDirectory`) get these stand-in values, never shown.
 */
import type { SecretSource } from '../siteconfig/index.js';

export const STAND_IN_SECRETS: SecretSource = {
  readDirectory: () => ({
    username: 'stand-in',
    password: 'stand-in',
    '.dockerconfigjson': '{"auths":{}}',
  }),
};
