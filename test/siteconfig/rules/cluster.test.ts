import { describe, it } from 'vitest';
import {
  DEPRECATED_FIELD,
  IGNITION_OVERRIDE_INVALID,
  IGNORED_FIELD,
  INSTALL_CONFIG_OVERRIDES_INVALID,
  INSTALLER_ARGS_INVALID,
  NTP_SOURCE_INVALID,
  PROXY_URL_INVALID,
  V2_ONLY_FIELD,
} from '../../../src/siteconfig/rules/cluster.js';
import { expectRule } from '../../support/rule-cases.js';
import { snoSite } from '../../support/sites.js';

describe('cluster field rules', () => {
  it('refuses install-config overrides that are no JSON object', () => {
    expectRule(
      INSTALL_CONFIG_OVERRIDES_INVALID,
      snoSite({ cluster: `      installConfigOverrides: '[1]'\n` }),
      snoSite({ cluster: `      installConfigOverrides: '{"capabilities":{}}'\n` }),
    );
  });

  it('refuses an Ignition override without an Ignition 3 version', () => {
    expectRule(
      IGNITION_OVERRIDE_INVALID,
      snoSite({ cluster: `      ignitionConfigOverride: '{"a":1}'\n` }),
      snoSite({ cluster: `      ignitionConfigOverride: '{"ignition":{"version":"3.2.0"}}'\n` }),
    );
  });

  it('refuses installer args that are no JSON list of strings', () => {
    expectRule(
      INSTALLER_ARGS_INVALID,
      snoSite({ node: `          installerArgs: '[1]'\n` }),
      snoSite({ node: `          installerArgs: '["--append-karg","nameserver=8.8.8.8"]'\n` }),
    );
  });

  it('refuses a proxy that is no http URL', () => {
    expectRule(
      PROXY_URL_INVALID,
      snoSite({ cluster: '      proxy:\n        httpProxy: ftp://proxy.example.com\n' }),
      snoSite({ cluster: '      proxy:\n        httpProxy: http://proxy.example.com:3128\n' }),
    );
  });

  it('refuses an NTP source that is neither address nor host name', () => {
    expectRule(
      NTP_SOURCE_INVALID,
      snoSite({ cluster: '      additionalNTPSources:\n        - "ntp example"\n' }),
      snoSite({ cluster: '      additionalNTPSources:\n        - ntp.example.com\n' }),
    );
  });

  it('warns about a field no generator uses', () => {
    expectRule(
      IGNORED_FIELD,
      snoSite({ node: '          hardwareProfile: dell\n' }),
      snoSite(),
      '/spec/clusters/0/nodes/0/hardwareProfile',
    );
  });

  it('warns about a deprecated field', () => {
    expectRule(
      DEPRECATED_FIELD,
      snoSite({ cluster: '      apiVIP: 10.0.0.5\n' }),
      snoSite(),
      '/spec/clusters/0/apiVIP',
    );
  });

  it('warns about siteConfigMap in a v1 file', () => {
    const map = '      siteConfigMap:\n        name: site-data\n';
    expectRule(
      V2_ONLY_FIELD,
      snoSite({ cluster: map }),
      snoSite({ cluster: map, apiVersion: 'ran.openshift.io/v2' }),
    );
  });
});
