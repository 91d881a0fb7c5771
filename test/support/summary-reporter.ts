import type { Reporter, SerializedError, TestModule } from 'vitest/node';

/**
 * Ends the run with one plain line, `N passed, N failed`, that any CI log reader understands, and
 * repeats each unhandled error (which fails the run although every test passed) in a few lines, so
 * the tail of a CI log says what went wrong.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<SerializedError>) {
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
      if (module.state() === 'failed' && module.children.size === 0) failed++;
    }
    for (const error of unhandledErrors) {
      const stack = (error.stack ?? '').split('\n').slice(0, 8).join('\n');
      process.stdout.write(`\nunhandled error: ${error.name ?? 'Error'}: ${error.message}\n${stack}\n`);
    }
    const errors = unhandledErrors.length > 0 ? `, ${unhandledErrors.length} unhandled error(s)` : '';
    process.stdout.write(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}${errors}\n`);
  }
}
