/**
 * A limit on calls in flight, shared by whoever holds it: for fan-outs (a thousand object-store
 * reads when a tracker starts) that would otherwise all wait at once and time out together.
 * Calls beyond the limit wait their turn, in order. No async wrapper or closure per call (delivery
 * makes one call per webhook): the caller gets its call's own promise.
 */
export function concurrencyLimit(limit: number): <T>(call: () => Promise<T>) => Promise<T> {
  let active = 0;
  const waiting: Array<() => void> = [];
  // A finished call hands its slot straight to the next waiter, so `active` never overshoots.
  const release = (): void => {
    const next = waiting.shift();
    if (next) next();
    else active--;
  };
  const run = <T>(call: () => Promise<T>): Promise<T> => {
    let running: Promise<T>;
    try {
      running = call();
    } catch (err) {
      release();
      return Promise.reject(err);
    }
    // Released however it ends; the caller handles its rejection on the promise it gets.
    running.then(release, release);
    return running;
  };
  return (call) => {
    if (active < limit) {
      active++;
      return run(call);
    }
    return new Promise<void>((resolve) => waiting.push(resolve)).then(() => run(call));
  };
}
