// Prints what failed in a run of node's test runner (its TAP output, a file): each test or hook
// that is `not ok`, with its place and error, innermost first, so the end of a CI log says it.
import { readFileSync } from 'node:fs';

const lines = readFileSync(process.argv[2], 'utf8').split('\n');
const wanted = /^\s*(location|error|failureType|code):/;
let shown = 0;
for (let i = 0; i < lines.length; i++) {
  const line = lines[i];
  if (!/^\s*not ok \d+/.test(line)) continue;
  const details = [];
  // The YAML block after it, up to its closing `...`: only the lines that say where and why.
  for (let j = i + 1; j < lines.length && !/^\s*\.\.\.\s*$/.test(lines[j]); j++) {
    if (wanted.test(lines[j])) details.push(`    ${lines[j].trim().slice(0, 400)}`);
  }
  console.log(line.trim());
  for (const d of details) console.log(d);
  if (++shown >= 60) {
    console.log('# (more failures above)');
    break;
  }
}
if (shown === 0) console.log('# no test reported not ok: the runner itself failed (see its last lines above)');
