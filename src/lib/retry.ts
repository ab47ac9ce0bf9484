/**
 * Runs `task` until it succeeds, up to `attempts` times, waiting 50 ms, 100 ms, 200 ms… between
 * tries. For writes that are safe to repeat (keyed rows that replace rather than double).
 */
export async function retry<T>(task: () => Promise<T>, attempts = 5): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await task();
    } catch (err) {
      if (attempt >= attempts) throw err;
      await new Promise((r) => setTimeout(r, 50 * 2 ** (attempt - 1)));
    }
  }
}
