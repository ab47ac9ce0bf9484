import { readFileSync } from 'node:fs';

/**
 * The V8 flags `npm start` gives Node (package.json's start script: what comes between `node`
 * and `--import`), which bin/signalforge.js and the image carry too (test/deploy/node-flags.test.ts):
 * role processes of tests and benchmarks run with them, as the service does.
 */
export function serviceNodeFlags(): string[] {
  const start: string = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).scripts.start;
  const words = start.split(/\s+/);
  const node = words.indexOf('node');
  const end = words.indexOf('--import', node);
  if (node < 0 || end < 0) throw new Error(`package.json's start script runs no "node … --import tsx": ${start}`);
  return words.slice(node + 1, end);
}
