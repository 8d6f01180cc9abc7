// The closing line of a CI log: 'N passed, N failed', from vitest's JSON report.
// A test file that failed to load (or whose hooks failed) has no failed test
// in it, yet nothing in it ran: it counts as one failure, and is named.
import { readFileSync } from 'node:fs';

const file = process.argv[2];
let report;
try {
  report = JSON.parse(readFileSync(file, 'utf8'));
} catch (err) {
  console.log(`0 passed, 1 failed (no test report at ${file}: ${err.message})`);
  process.exit(1);
}
const broken = report.testResults.filter(
  (r) => r.status === 'failed' && !r.assertionResults.some((a) => a.status === 'failed'),
);
for (const r of broken) console.log(`failed suite: ${r.name}: ${(r.message || 'failed').split('\n')[0]}`);
const failed = report.numFailedTests + broken.length;
const suites = broken.length ? ` (${broken.length} of them test files that failed to load or set up)` : '';
console.log(`${report.numPassedTests} passed, ${failed} failed${suites}`);
process.exit(failed > 0 ? 1 : 0);
