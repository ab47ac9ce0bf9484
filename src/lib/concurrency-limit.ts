/**
 * A limit on calls in flight, shared by whoever holds it: for fan-outs (a thousand object-store
 * reads when a tracker starts) that would otherwise all wait at once and time out together.
 * Calls beyond the limit wait their turn, in order.
 */
export function concurrencyLimit(limit: number): <T>(call: () => Promise<T>) => Promise<T> {
  let active = 0;
  const waiting: Array<() => void> = [];
  return async (call) => {
    // A finished call hands its slot straight to the next waiter, so `active` never overshoots.
    if (active < limit) active++;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await call();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else active--;
    }
  };
}
