const DAY_MS = 86_400_000;

/** The UTC calendar day of `now` as YYYY-MM-DD. */
export const utcDate = (now: number): string => new Date(now).toISOString().slice(0, 10);

/** The UTC calendar month of `now` as YYYY-MM. */
export const utcMonth = (now: number): string => new Date(now).toISOString().slice(0, 7);

/** The UTC calendar day of `now` as YYYYMMDD, safe inside NATS KV keys. */
export const utcDayKey = (now: number): string => utcDate(now).replaceAll('-', '');

export const startOfUtcDay = (now: number): number => Math.floor(now / DAY_MS) * DAY_MS;

export const nextUtcMidnight = (now: number): number => startOfUtcDay(now) + DAY_MS;
