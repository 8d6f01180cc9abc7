// The closing line of a CI log: 'N passed, N failed', from vitest's JSON reports (one or more, summed).
// A test file that failed to load (or whose hooks failed) has no failed test
// in it, yet nothing in it ran: it counts as one failure, and is named.
import { readFileSync } from 'node:fs';

let passed = 0;
let failed = 0;
let brokenCount = 0;
for (const file of process.argv.slice(2)) {
  let report;
  try {
    report = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    console.log(`no test report at ${file}: ${err.message}`);
    failed += 1;
    continue;
  }
  const broken = report.testResults.filter(
    (r) => r.status === 'failed' && !r.assertionResults.some((a) => a.status === 'failed'),
  );
  for (const r of broken) console.log(`failed suite: ${r.name}: ${(r.message || 'failed').split('\n')[0]}`);
  passed += report.numPassedTests;
  failed += report.numFailedTests + broken.length;
  brokenCount += broken.length;
}
const suites = brokenCount ? ` (${brokenCount} of them test files that failed to load or set up)` : '';
console.log(`${passed} passed, ${failed} failed${suites}`);
process.exit(failed > 0 ? 1 : 0);
