import { z } from 'zod';

/**
 * The stable machine codes of every error the service answers with (like Fastify's FST_ERR_*):
 * `error_code` in the body, beside the human `error` and the numeric `code` (= the HTTP status).
 * A code never changes meaning; new ones may be added. Each has exactly one error class in
 * src/errors.ts, and the OpenAPI error schema lists this table.
 */
export const ERROR_CODES = {
  SF_BAD_REQUEST: { status: 400, meaning: 'the request cannot be acted on as sent (the message says why)' },
  SF_VALIDATION: { status: 400, meaning: 'a field, query or path parameter has a wrong type or value (each one is named)' },
  SF_UNKNOWN_FIELD: { status: 400, meaning: 'the JSON body holds a field this endpoint does not know (named, with the nearest known one)' },
  SF_MALFORMED_JSON: { status: 400, meaning: 'the body is not valid JSON' },
  SF_BAD_URL: { status: 400, meaning: 'the URL or a path segment cannot be decoded' },
  SF_PASSKEY_REJECTED: {
    status: 400,
    meaning: 'the passkey answer does not verify (expired or reused challenge, wrong site, bad signature)',
  },
  SF_STRATEGY_REJECTED: { status: 400, meaning: 'strategy code refused by the static check (`violations` lists each rule broken)' },
  SF_WEBHOOK_TARGET: {
    status: 400,
    meaning: 'a webhook URL the service will not call (malformed, unresolvable, or a private or reserved address)',
  },
  SF_MALFORMED_REQUEST: { status: 400, meaning: 'the HTTP request itself is malformed (refused before routing)' },
  SF_UNAUTHORIZED: { status: 401, meaning: 'missing or invalid API key (or session)' },
  SF_SIGN_IN_FAILED: {
    status: 401,
    meaning: 'the username and password (or recovery code, or passkey) do not match an account that signs in that way',
  },
  SF_CREDITS_SHORT: { status: 402, meaning: 'the balance does not cover the call' },
  SF_FORBIDDEN: { status: 403, meaning: 'authenticated, but not allowed' },
  SF_FOREIGN_ORIGIN: { status: 403, meaning: 'a state-changing request authenticated by the session cookie came from another site' },
  SF_RECENT_SIGN_IN_REQUIRED: {
    status: 403,
    meaning: 'changing how a claimed account signs in needs a browser session signed in within the last 15 minutes',
  },
  SF_NOT_FOUND: { status: 404, meaning: 'the resource does not exist for this key' },
  SF_ROUTE_NOT_FOUND: { status: 404, meaning: 'no such method and path' },
  SF_MODEL_NOT_FOUND: { status: 404, meaning: 'no model of that stem or name for this key' },
  SF_DEPLOYMENT_NOT_FOUND: { status: 404, meaning: 'the model is not deployed by this key' },
  SF_JOB_NOT_FOUND: { status: 404, meaning: 'no train job of that id for this key' },
  SF_ENTRY_NOT_FOUND: { status: 404, meaning: 'no community entry of that id' },
  SF_SESSION_NOT_FOUND: { status: 404, meaning: 'no live session of that id for this account' },
  SF_REQUEST_TIMEOUT: { status: 408, meaning: 'the request (headers or body) did not arrive in time' },
  SF_CONFLICT: { status: 409, meaning: 'the request conflicts with the current state' },
  SF_USERNAME_TAKEN: { status: 409, meaning: 'the requested trial username is taken' },
  SF_PAYLOAD_TOO_LARGE: { status: 413, meaning: 'the body is over the size limit' },
  SF_URI_TOO_LONG: { status: 414, meaning: 'a path parameter is over its length limit' },
  SF_UNSUPPORTED_MEDIA_TYPE: { status: 415, meaning: 'the body is not application/json' },
  SF_UNPROCESSABLE: { status: 422, meaning: 'well-formed, but unusable (e.g. a strategy whose features fail a check)' },
  SF_SHARE_GATE: {
    status: 422,
    meaning: 'the model cannot be shared: its recorded test backtest needs n_trades >= 1 and total return > 0 (`gate` has its values)',
  },
  SF_RATE_LIMITED: { status: 429, meaning: 'too many requests from this key or address (see Retry-After)' },
  SF_DAILY_CAP: { status: 429, meaning: 'a daily cap is used up until UTC midnight (see Retry-After)' },
  SF_MINT_LIMITED: { status: 429, meaning: 'too many trial keys from this address this hour (see Retry-After)' },
  SF_STREAM_LIMIT: { status: 429, meaning: 'too many concurrent SSE streams for this key or address, or in total' },
  SF_SIGN_IN_THROTTLED: {
    status: 429,
    meaning:
      'too many sign-in attempts for this username or from this address (see Retry-After; the wait doubles with each further attempt)',
  },
  SF_UPGRADE_REQUIRED: { status: 426, meaning: 'the endpoint is a WebSocket: connect with `Upgrade: websocket`' },
  SF_HEADERS_TOO_LARGE: { status: 431, meaning: 'the request line and headers are over the size limit' },
  SF_INTERNAL: { status: 500, meaning: 'an unexpected failure (logged); try again' },
  SF_UNAVAILABLE: { status: 503, meaning: 'a dependency is down or the service is at its connection limit; try again' },
} as const satisfies Record<string, { status: number; meaning: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;
export const ERROR_CODE_NAMES = Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]];

/** The table as Markdown, for the API description. */
export const errorCodeTable = (): string =>
  [
    '| error_code | status | meaning |',
    '|---|---|---|',
    ...ERROR_CODE_NAMES.map((c) => `| \`${c}\` | ${ERROR_CODES[c].status} | ${ERROR_CODES[c].meaning} |`),
  ].join('\n');

export const ErrorCodeName = z.enum(ERROR_CODE_NAMES);
