/**
 * `work`'s answer, or a rejection naming `what` once `ms` pass first. The work itself goes on (a
 * KV write may still land later; its caller decides what that means) and a late failure of it is
 * not left unhandled.
 */
export async function answerWithin<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  work.catch(() => undefined);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>(
    (_, reject) => (timer = setTimeout(() => reject(new Error(`no answer from ${what} within ${ms} ms`)), ms)),
  );
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}
