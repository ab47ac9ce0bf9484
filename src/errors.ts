/**
 * One table of failures. Each class carries its HTTP status; the error handler turns any of them
 * into `{ error, code }` with that status. Messages say what to do, not just what broke.
 */
export class AppError extends Error {
  readonly status: number = 500;
  readonly headers: Record<string, string> = {};
  /** Extra fields sent beside `error` and `code` (e.g. a rejected strategy's `violations`). */
  details: Record<string, unknown> = {};
}

export class BadRequestError extends AppError {
  override name = 'BadRequestError';
  override readonly status = 400;
}
/** Strategy code refused by the static check: 400 with every violation (line, col, rule, hint). */
export class StrategyRejectedError extends BadRequestError {
  override name = 'StrategyRejectedError';
  constructor(message: string, violations: unknown[]) {
    super(message);
    this.details = { violations };
  }
}
export class UnauthorizedError extends AppError {
  override name = 'UnauthorizedError';
  override readonly status = 401;
  constructor(message = 'missing or invalid API key: send it in the X-API-Key header (get one with POST /api/v1/key/trial)') {
    super(message);
  }
}
export class OutOfCreditsError extends AppError {
  override name = 'OutOfCreditsError';
  override readonly status = 402;
  constructor(readonly needed: number, readonly balance: number) {
    super(`out of credits: this call costs ${needed} and your balance is ${balance}`);
  }
}
export class ForbiddenError extends AppError {
  override name = 'ForbiddenError';
  override readonly status = 403;
}
export class NotFoundError extends AppError {
  override name = 'NotFoundError';
  override readonly status = 404;
}
export class ConflictError extends AppError {
  override name = 'ConflictError';
  override readonly status = 409;
}
export class PayloadTooLargeError extends AppError {
  override name = 'PayloadTooLargeError';
  override readonly status = 413;
}
export class UnprocessableError extends AppError {
  override name = 'UnprocessableError';
  override readonly status = 422;
}
export class RateLimitedError extends AppError {
  override name = 'RateLimitedError';
  override readonly status = 429;
  /** @param retryAfterSeconds how long until the caller may try again (sent as Retry-After). */
  constructor(message: string, readonly retryAfterSeconds: number) {
    super(message);
    this.headers['retry-after'] = String(Math.max(1, Math.ceil(retryAfterSeconds)));
  }
}
export class UnavailableError extends AppError {
  override name = 'UnavailableError';
  override readonly status = 503;
}
