// Ends every run with one plain line, "N passed, N failed, N skipped", which CI logs and
// humans can both read without colour codes.
export default class PlainSummaryReporter {
  onTestRunEnd(modules, unhandledErrors) {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const mod of modules) {
      for (const test of mod.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failed++;
        else skipped++;
      }
    }
    process.stdout.write(`\n${passed} passed, ${failed + unhandledErrors.length} failed, ${skipped} skipped\n`);
  }
}
