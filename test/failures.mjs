// Prints what failed in a run of node's test runner (its TAP output, a file): each test or hook
// that is `not ok`, with its place and error, innermost first, so the end of a CI log says it.
import { readFileSync } from 'node:fs';

const lines = readFileSync(process.argv[2], 'utf8').split('\n');
const wanted = /^\s*(location|error|failureType|code|expected|actual|operator):/;
// A multi-line value (`error: |-`) is a YAML block scalar: its text is the more-indented lines under it.
const BLOCK_LINES = 12;
const indent = (s) => s.length - s.trimStart().length;
let shown = 0;
for (let i = 0; i < lines.length; i++) {
  const line = lines[i];
  if (!/^\s*not ok \d+/.test(line)) continue;
  const details = [];
  // The YAML block after it, up to its closing `...`: only the lines that say where and why.
  for (let j = i + 1; j < lines.length && !/^\s*\.\.\.\s*$/.test(lines[j]); j++) {
    if (!wanted.test(lines[j])) continue;
    details.push(`    ${lines[j].trim().slice(0, 400)}`);
    if (!/:\s*[|>][-+]?\s*$/.test(lines[j])) continue;
    const keyIndent = indent(lines[j]);
    let k = j + 1;
    for (; k < lines.length && (lines[k].trim() === '' || indent(lines[k]) > keyIndent); k++) {
      if (k - j <= BLOCK_LINES && lines[k].trim() !== '') details.push(`      ${lines[k].trim().slice(0, 400)}`);
    }
    j = k - 1;
  }
  console.log(line.trim());
  for (const d of details) console.log(d);
  if (++shown >= 60) {
    console.log('# (more failures above)');
    break;
  }
}
if (shown === 0) console.log('# no test reported not ok: the runner itself failed (see its last lines above)');
