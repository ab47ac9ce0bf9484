import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';

/** `DATA_DIR/run.json`: which process serves this data directory, and its NATS. */
const RunFile = z.object({ pid: z.number().int(), natsUrl: z.string() });
export type RunFile = z.infer<typeof RunFile>;

/** Writes the run file; returns the function that removes it. */
export function writeRunFile(dataDir: string, info: RunFile): () => void {
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, 'run.json');
  writeFileSync(path, JSON.stringify(info));
  return () => rmSync(path, { force: true });
}

/** The service running on `dataDir`, or null when none is (a stale file is ignored). */
export function readRunFile(dataDir: string): RunFile | null {
  const path = join(dataDir, 'run.json');
  if (!existsSync(path)) return null;
  const parsed = RunFile.safeParse(JSON.parse(readFileSync(path, 'utf8')));
  if (!parsed.success) return null;
  try {
    process.kill(parsed.data.pid, 0);
    return parsed.data;
  } catch {
    return null;
  }
}
