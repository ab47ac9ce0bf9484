import { ERROR_CODES, type ErrorCode } from '../schemas/errors.ts';

export { ERROR_CODES, type ErrorCode } from '../schemas/errors.ts';

/**
 * One class per stable machine code of the table in schemas/errors.ts (its HTTP status comes from
 * there). The error handler turns any of them into `{ error, code, error_code }`. Messages say
 * what to do, not just what broke. A class narrows its parent: catch `NotFoundError` and you
 * also catch `ModelNotFoundError`.
 */
export class AppError extends Error {
  readonly errorCode: ErrorCode = 'SF_INTERNAL';
  readonly headers: Record<string, string> = {};
  /** Extra fields sent beside `error` and `code` (e.g. a rejected strategy's `violations`). */
  details: Record<string, unknown> = {};

  get status(): number {
    return ERROR_CODES[this.errorCode].status;
  }
}

export class BadRequestError extends AppError {
  override name = 'BadRequestError';
  override readonly errorCode: ErrorCode = 'SF_BAD_REQUEST';
}
/** A field, query or path parameter of the wrong type or value. */
export class ValidationError extends BadRequestError {
  override name = 'ValidationError';
  override readonly errorCode: ErrorCode = 'SF_VALIDATION';
}
/** A JSON body field the endpoint does not know. */
export class UnknownFieldError extends BadRequestError {
  override name = 'UnknownFieldError';
  override readonly errorCode: ErrorCode = 'SF_UNKNOWN_FIELD';
}
export class MalformedJsonError extends BadRequestError {
  override name = 'MalformedJsonError';
  override readonly errorCode: ErrorCode = 'SF_MALFORMED_JSON';
}
export class BadUrlError extends BadRequestError {
  override name = 'BadUrlError';
  override readonly errorCode: ErrorCode = 'SF_BAD_URL';
}
/** An HTTP request the parser refused before any routing (bad request line, bad header). */
export class MalformedRequestError extends BadRequestError {
  override name = 'MalformedRequestError';
  override readonly errorCode: ErrorCode = 'SF_MALFORMED_REQUEST';
}
/** A webhook URL the service will not call (SSRF rules, strict parsing): 400 with the reason. */
export class WebhookTargetError extends BadRequestError {
  override name = 'WebhookTargetError';
  override readonly errorCode: ErrorCode = 'SF_WEBHOOK_TARGET';
}
/** Strategy code refused by the static check: 400 with every violation (line, col, rule, hint). */
export class StrategyRejectedError extends BadRequestError {
  override name = 'StrategyRejectedError';
  override readonly errorCode: ErrorCode = 'SF_STRATEGY_REJECTED';
  constructor(message: string, violations: unknown[]) {
    super(message);
    this.details = { violations };
  }
}
export class UnauthorizedError extends AppError {
  override name = 'UnauthorizedError';
  override readonly errorCode: ErrorCode = 'SF_UNAUTHORIZED';
  constructor(message = 'missing or invalid API key: send it in the X-API-Key header (get one with POST /api/v1/key/trial)') {
    super(message);
  }
}
/** A sign-in that does not match: one message whatever did not match, so it names no account. */
export class SignInFailedError extends UnauthorizedError {
  override name = 'SignInFailedError';
  override readonly errorCode: ErrorCode = 'SF_SIGN_IN_FAILED';
}
/** A WebAuthn answer that does not verify. */
export class PasskeyRejectedError extends BadRequestError {
  override name = 'PasskeyRejectedError';
  override readonly errorCode: ErrorCode = 'SF_PASSKEY_REJECTED';
}
export class OutOfCreditsError extends AppError {
  override name = 'OutOfCreditsError';
  override readonly errorCode: ErrorCode = 'SF_CREDITS_SHORT';
  constructor(
    readonly needed: number,
    readonly balance: number,
  ) {
    super(`out of credits: this call costs ${needed} and your balance is ${balance}`);
  }
}
export class ForbiddenError extends AppError {
  override name = 'ForbiddenError';
  override readonly errorCode: ErrorCode = 'SF_FORBIDDEN';
}
/** A cookie-authenticated state change sent by another site's page (cross-site request forgery). */
export class ForeignOriginError extends ForbiddenError {
  override name = 'ForeignOriginError';
  override readonly errorCode: ErrorCode = 'SF_FOREIGN_ORIGIN';
}
/** A credential change on a claimed account without a fresh browser sign-in. */
export class RecentSignInRequiredError extends ForbiddenError {
  override name = 'RecentSignInRequiredError';
  override readonly errorCode: ErrorCode = 'SF_RECENT_SIGN_IN_REQUIRED';
}
export class NotFoundError extends AppError {
  override name = 'NotFoundError';
  override readonly errorCode: ErrorCode = 'SF_NOT_FOUND';
}
export class SessionNotFoundError extends NotFoundError {
  override name = 'SessionNotFoundError';
  override readonly errorCode: ErrorCode = 'SF_SESSION_NOT_FOUND';
}
export class RouteNotFoundError extends NotFoundError {
  override name = 'RouteNotFoundError';
  override readonly errorCode: ErrorCode = 'SF_ROUTE_NOT_FOUND';
}
export class ModelNotFoundError extends NotFoundError {
  override name = 'ModelNotFoundError';
  override readonly errorCode: ErrorCode = 'SF_MODEL_NOT_FOUND';
}
export class DeploymentNotFoundError extends NotFoundError {
  override name = 'DeploymentNotFoundError';
  override readonly errorCode: ErrorCode = 'SF_DEPLOYMENT_NOT_FOUND';
}
export class JobNotFoundError extends NotFoundError {
  override name = 'JobNotFoundError';
  override readonly errorCode: ErrorCode = 'SF_JOB_NOT_FOUND';
}
export class EntryNotFoundError extends NotFoundError {
  override name = 'EntryNotFoundError';
  override readonly errorCode: ErrorCode = 'SF_ENTRY_NOT_FOUND';
}
export class RequestTimeoutError extends AppError {
  override name = 'RequestTimeoutError';
  override readonly errorCode: ErrorCode = 'SF_REQUEST_TIMEOUT';
}
export class ConflictError extends AppError {
  override name = 'ConflictError';
  override readonly errorCode: ErrorCode = 'SF_CONFLICT';
}
export class UsernameTakenError extends ConflictError {
  override name = 'UsernameTakenError';
  override readonly errorCode: ErrorCode = 'SF_USERNAME_TAKEN';
}
export class PayloadTooLargeError extends AppError {
  override name = 'PayloadTooLargeError';
  override readonly errorCode: ErrorCode = 'SF_PAYLOAD_TOO_LARGE';
}
export class UriTooLongError extends AppError {
  override name = 'UriTooLongError';
  override readonly errorCode: ErrorCode = 'SF_URI_TOO_LONG';
}
export class UnsupportedMediaTypeError extends AppError {
  override name = 'UnsupportedMediaTypeError';
  override readonly errorCode: ErrorCode = 'SF_UNSUPPORTED_MEDIA_TYPE';
}
export class UnprocessableError extends AppError {
  override name = 'UnprocessableError';
  override readonly errorCode: ErrorCode = 'SF_UNPROCESSABLE';
}
/** POST /share refused by the contract's gate; `gate` carries the model's recorded values. */
export class ShareGateError extends UnprocessableError {
  override name = 'ShareGateError';
  override readonly errorCode: ErrorCode = 'SF_SHARE_GATE';
  constructor(message: string, gate: Record<string, unknown> = {}) {
    super(message);
    this.details = { gate };
  }
}
export class RateLimitedError extends AppError {
  override name = 'RateLimitedError';
  override readonly errorCode: ErrorCode = 'SF_RATE_LIMITED';
  /** @param retryAfterSeconds how long until the caller may try again (sent as Retry-After). */
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
    this.headers['retry-after'] = String(Math.max(1, Math.ceil(retryAfterSeconds)));
  }
}
export class DailyCapError extends RateLimitedError {
  override name = 'DailyCapError';
  override readonly errorCode: ErrorCode = 'SF_DAILY_CAP';
}
export class SignInThrottledError extends RateLimitedError {
  override name = 'SignInThrottledError';
  override readonly errorCode: ErrorCode = 'SF_SIGN_IN_THROTTLED';
}
export class MintLimitedError extends RateLimitedError {
  override name = 'MintLimitedError';
  override readonly errorCode: ErrorCode = 'SF_MINT_LIMITED';
}
export class StreamLimitError extends RateLimitedError {
  override name = 'StreamLimitError';
  override readonly errorCode: ErrorCode = 'SF_STREAM_LIMIT';
}
/** A plain request to a WebSocket endpoint (GET /api/v1/predict). */
export class UpgradeRequiredError extends AppError {
  override name = 'UpgradeRequiredError';
  override readonly errorCode: ErrorCode = 'SF_UPGRADE_REQUIRED';
}
export class HeadersTooLargeError extends AppError {
  override name = 'HeadersTooLargeError';
  override readonly errorCode: ErrorCode = 'SF_HEADERS_TOO_LARGE';
}
export class InternalError extends AppError {
  override name = 'InternalError';
  override readonly errorCode: ErrorCode = 'SF_INTERNAL';
  constructor(message = 'internal error: the failure was logged; try again, and report it if it persists') {
    super(message);
  }
}
export class UnavailableError extends AppError {
  override name = 'UnavailableError';
  override readonly errorCode: ErrorCode = 'SF_UNAVAILABLE';
}

/** The body every error leaves with. Details first, so they can never overwrite the three fields. */
export function errorBody(error: AppError): Record<string, unknown> & { error: string; code: number; error_code: ErrorCode } {
  return { ...error.details, error: error.message, code: error.status, error_code: error.errorCode };
}
