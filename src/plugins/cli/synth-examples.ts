/**
 * The cdk8s app behind `cdk8s synth` (see cdk8s.yaml): compiles the SiteConfig files of
 * examples/sites (or the paths in SITEFORGE_SITES, separated by ":") through the construct API
 * into one chart under the cdk8s output directory. It is an edge: it reads files and env.
 */
import { App, Chart } from 'cdk8s';
import { compareIssues, formatIssue } from '../../shared/errors.js';
import { Fleet } from '../../siteconfig/constructs/index.js';
import { loadSiteConfigs } from '../../siteconfig/index.js';
import { fsSiteFiles } from '../fs-site-files.js';
import { readLimits } from '../limit-options.js';
import { packagedExtraManifests } from '../packaged-extra-manifests.js';
import { RunBudget } from '../run-budget.js';
import { listInputFiles, readInputFiles } from './read-inputs.js';

const cwd = process.cwd();
const paths = (process.env['SITEFORGE_SITES'] ?? 'examples/sites')
  .split(':')
  .filter((p) => p !== '');
const budget = new RunBudget(readLimits(process.env));
const { sites, issues } = loadSiteConfigs(
  readInputFiles(listInputFiles(paths, cwd, budget), cwd, budget),
  {
    files: fsSiteFiles('/', cwd, budget),
    defaultExtraManifests: packagedExtraManifests(),
    limits: budget.limits,
  },
);
const problems = [...issues].sort(compareIssues).filter((issue) => issue.severity !== 'note');
if (problems.length > 0) process.stderr.write(`${problems.map(formatIssue).join('\n')}\n`);
if (problems.some((issue) => issue.severity === 'error')) {
  process.exitCode = 1;
} else {
  const app = new App();
  const fleet = new Fleet(new Chart(app, 'sites', { disableResourceNameHashes: true }), 'fleet');
  for (const { siteConfig, resources } of sites) {
    fleet.addSite(
      { ...siteConfig.spec, name: siteConfig.metadata.name, apiVersion: siteConfig.apiVersion },
      resources,
    );
  }
  app.synth();
}
