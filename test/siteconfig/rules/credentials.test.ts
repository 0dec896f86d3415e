import { describe, it } from 'vitest';
import type { SecretSource } from '../../../src/siteconfig/index.js';
import {
  CREDENTIAL_EMPTY,
  CREDENTIAL_NOT_UTF8,
  PULL_SECRET_INVALID,
  SECRET_DIRECTORY_INVALID,
  SECRET_DIRECTORY_NOT_FOUND,
  SECRET_KEY_MISSING,
} from '../../../src/siteconfig/rules/credentials.js';
import type { LoadCase } from '../../support/rule-cases.js';
import { expectRule } from '../../support/rule-cases.js';
import { snoSite } from '../../support/sites.js';

type Files = Record<string, string | Uint8Array>;

const secrets = (dirs: Record<string, Files>): SecretSource => ({
  readDirectory: (name) => dirs[name],
});

/** The site's node reading its BMC credentials from directory `name`, with `dirs` present. */
function bmcFrom(name: string, dirs: Record<string, Files>): LoadCase {
  return {
    input: snoSite({
      node: `          bmcCredentials:\n            fromDirectory: ${name}\n`,
    }).replace('          bmcCredentialsName:\n            name: sno1-bmc\n', ''),
    options: { secrets: secrets(dirs) },
  };
}

/** The site reading its pull secret from directory `pull`, holding `files`. */
function pullFrom(files: Files): LoadCase {
  return {
    input: snoSite().replace(
      '  clusterImageSetNameRef',
      '  pullSecret:\n    fromDirectory: pull\n  clusterImageSetNameRef',
    ),
    options: { secrets: secrets({ pull: files }) },
  };
}

const GOOD = { username: 'admin', password: 'secret' };

describe('credential rules', () => {
  it('refuses a credentials directory that is not there', () => {
    expectRule(SECRET_DIRECTORY_NOT_FOUND, bmcFrom('bmc', {}), bmcFrom('bmc', { bmc: GOOD }));
  });

  it('refuses a directory name that leaves the secrets directory', () => {
    expectRule(
      SECRET_DIRECTORY_INVALID,
      bmcFrom('a/../../etc', { 'a/../../etc': GOOD }),
      bmcFrom('bmc', { bmc: GOOD }),
    );
  });

  it('refuses a credentials directory without a password', () => {
    expectRule(
      SECRET_KEY_MISSING,
      bmcFrom('bmc', { bmc: { username: 'admin' } }),
      bmcFrom('bmc', { bmc: GOOD }),
    );
  });

  it('refuses an empty credential file', () => {
    expectRule(
      CREDENTIAL_EMPTY,
      bmcFrom('bmc', { bmc: { ...GOOD, password: '\n' } }),
      bmcFrom('bmc', { bmc: GOOD }),
    );
  });

  it('refuses a credential file that is not UTF-8', () => {
    expectRule(
      CREDENTIAL_NOT_UTF8,
      bmcFrom('bmc', { bmc: { ...GOOD, password: new Uint8Array([0xff, 0xfe]) } }),
      bmcFrom('bmc', { bmc: GOOD }),
    );
  });

  it('refuses a pull secret without an auths map', () => {
    expectRule(
      PULL_SECRET_INVALID,
      pullFrom({ '.dockerconfigjson': '{"registry":"x"}' }),
      pullFrom({ '.dockerconfigjson': '{"auths":{}}' }),
    );
  });
});
