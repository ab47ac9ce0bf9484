/** Raised by `withDeadline` when the work did not settle in time. */
export class DeadlineError extends Error {
  override name = 'DeadlineError';
}

/**
 * Waits for `work` at most `ms`: resolves with its value, or rejects with DeadlineError naming
 * `what`. The work itself is not cancelled (it may still settle later, unobserved).
 */
export async function withDeadline<T>(work: Promise<T> | T, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DeadlineError(`${what} did not finish within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([Promise.resolve(work), late]);
  } finally {
    clearTimeout(timer);
  }
}
