/**
 * A job's own stdout and stderr, as its error shows them. The runtime keeps each job's output apart
 * (python/job_output.py: a pipe per job, its first KiB and last 3 KiB kept) and sends it before the
 * job's end; only a failed job's error shows it, to the user whose job it was. It never goes to a
 * log line or another job's error.
 */
import { z } from 'zod';

/** The header of the runtime's `output` message; the payload is the kept excerpt. */
export const OutputHeader = z.object({
  output: z.literal(true),
  /** Bytes the job wrote in all. */
  bytes: z.number().int().nonnegative(),
  /** Bytes left out of the excerpt (the middle of a long output). */
  dropped: z.number().int().nonnegative(),
  /** Bytes of the excerpt before the gap, when something was dropped. */
  head: z.number().int().nonnegative().optional(),
});

export interface JobOutput {
  excerpt: Buffer;
  bytes: number;
  dropped: number;
  head: number;
}

/** The most of a job's output its error shows, in characters (the runtime keeps 4 KiB at most). */
export const SHOWN_OUTPUT_CHARS = 4_096;

/** Printable text: terminal escapes and other control characters are not passed on. */
function printable(bytes: Buffer): string {
  return bytes
    .toString('utf8')
    .replace(/\r\n?/g, '\n')
    .replace(/\x1b\[[0-9;?]*[ -/]*[@-~]/g, '')
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, '');
}

/** Of the error itself, what is kept before the output is appended (the whole stays under JobFailure's 10,000). */
const ERROR_CHARS = 5_000;

/** The job's error with its own output appended (nothing when it printed nothing). */
export function withOutput(error: string, output: JobOutput | undefined): string {
  if (!output || output.bytes === 0) return error;
  const shown = error.length > ERROR_CHARS ? `${error.slice(0, ERROR_CHARS)}…` : error;
  const { excerpt, dropped, head } = output;
  const first = dropped > 0 ? `${printable(excerpt.subarray(0, head))}\n[… ${dropped.toLocaleString('en-US')} bytes left out …]\n` : '';
  const rest = printable(dropped > 0 ? excerpt.subarray(head) : excerpt).trimEnd();
  const text = (first + rest).slice(-SHOWN_OUTPUT_CHARS - 100).trim();
  if (!text) return shown;
  return `${shown}\n--- what the strategy printed (${output.bytes.toLocaleString('en-US')} bytes) ---\n${text}`;
}
