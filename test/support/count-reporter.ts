import type { Reporter, TestModule } from 'vitest/node';

/**
 * Prints the plain `N passed, N failed` line that CI reads, after vitest's own summary.
 * Skipped tests are counted separately and never as passed.
 */
export default class CountReporter implements Reporter {
  onTestRunEnd(testModules: readonly TestModule[]): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failed++;
        else skipped++;
      }
      // A file that failed to load has no tests but must still fail the run.
      if (module.state() === 'failed' && [...module.children.allTests()].length === 0) failed++;
    }
    process.stdout.write(
      `\n${String(passed)} passed, ${String(failed)} failed, ${String(skipped)} skipped\n`,
    );
  }
}
