import type { Reporter, SerializedError, TestModule } from 'vitest/node';

/**
 * Ends the run with one plain line that any CI log reader understands: tests passed, failed and
 * skipped, and test files failed (a file whose setup fails fails without failing a test). Before it,
 * each reason tests were skipped for (a server this machine lacks, and what to install), and each
 * unhandled error (which fails the run although every test passed) in a few lines, so the tail of a
 * CI log says what went wrong.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<SerializedError>) {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    let failedFiles = 0;
    const skipNotes = new Map<string, number>();
    for (const module of testModules) {
      if (module.state() === 'failed') failedFiles++;
      for (const test of module.children.allTests()) {
        const result = test.result();
        if (result.state === 'passed') passed++;
        else if (result.state === 'failed') failed++;
        else {
          skipped++;
          if (result.state === 'skipped' && result.note) skipNotes.set(result.note, (skipNotes.get(result.note) ?? 0) + 1);
        }
      }
    }
    for (const [note, count] of skipNotes) process.stdout.write(`\nskipped ${count} test(s): ${note}\n`);
    for (const error of unhandledErrors) {
      const stack = (error.stack ?? '').split('\n').slice(0, 8).join('\n');
      process.stdout.write(`\nunhandled error: ${error.name ?? 'Error'}: ${error.message}\n${stack}\n`);
    }
    const errors = unhandledErrors.length > 0 ? `, ${unhandledErrors.length} unhandled error(s)` : '';
    process.stdout.write(
      `\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}; ` +
        `${failedFiles} of ${testModules.length} test files failed${errors}\n`,
    );
  }
}
