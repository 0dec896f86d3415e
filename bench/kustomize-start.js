// One start of `siteforge kustomize-plugin FILE`, as kustomize runs it once per SiteConfig:
// a kustomization root with one generator, the temp copy kustomize passes, and the bin entry.
// Each exec alternates with a bare `node -e 0`, so both see the same machine load; medians.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Median wall times (ms) of `execs` plugin starts and as many `node -e 0`. */
export function measureKustomizeStart(cli, siteFile, execs) {
  const dir = mkdtempSync(join(tmpdir(), 'siteforge-bench-kustomize-'));
  try {
    const site = readFileSync(siteFile, 'utf8');
    writeFileSync(join(dir, 'kustomization.yaml'), 'generators:\n  - site.yaml\n');
    writeFileSync(join(dir, 'site.yaml'), site);
    writeFileSync(join(dir, 'kust-plugin-config-1'), site);
    const timed = (args) => {
      const start = process.hrtime.bigint();
      const run = spawnSync(process.execPath, args, { cwd: dir, encoding: 'utf8' });
      if (run.status !== 0) throw new Error(`${args.join(' ')} failed:\n${run.stderr}`);
      return Number(process.hrtime.bigint() - start) / 1e6;
    };
    const plugin = [];
    const bare = [];
    for (let i = 0; i < execs; i++) {
      bare.push(timed(['-e', '0']));
      plugin.push(timed([cli, 'kustomize-plugin', 'kust-plugin-config-1']));
    }
    return { perExec: median(plugin), bareNode: median(bare) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}
