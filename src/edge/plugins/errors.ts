import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import {
  AppError,
  BadRequestError,
  BadUrlError,
  errorBody,
  ForbiddenError,
  InternalError,
  MalformedJsonError,
  NotFoundError,
  PayloadTooLargeError,
  RequestTimeoutError,
  RouteNotFoundError,
  UnavailableError,
  UnknownFieldError,
  UnsupportedMediaTypeError,
  UriTooLongError,
  ValidationError,
  ConflictError,
  HeadersTooLargeError,
  UnauthorizedError,
  UnprocessableError,
  RateLimitedError,
} from '../../errors.ts';
import { PoolFullError } from '../../lib/fair-share.ts';

export interface ErrorLimits {
  bodyLimitBytes: number;
  maxParamLength: number;
}

function describeValidation(error: FastifyError): string {
  const where = error.validationContext ?? 'request';
  const problems = (error.validation ?? []).map((v) => {
    const path = v.instancePath.replace(/^\//, '').replaceAll('/', '.');
    return path ? `${path}: ${v.message}` : String(v.message);
  });
  return `invalid ${where}: ${problems.join('; ')}`;
}

/** Fastify's own failures (by their FST_ code), as the class a client should see. */
const FASTIFY_CODES: Record<string, (error: FastifyError, limits: ErrorLimits) => AppError> = {
  FST_ERR_CTP_INVALID_JSON_BODY: () => new MalformedJsonError('malformed JSON body'),
  FST_ERR_CTP_EMPTY_JSON_BODY: () => new MalformedJsonError('empty JSON body'),
  FST_ERR_CTP_INVALID_MEDIA_TYPE: () => new UnsupportedMediaTypeError('unsupported content-type: send the body as application/json'),
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: () => new BadRequestError('content-length does not match the body'),
  FST_ERR_CTP_BODY_TOO_LARGE: (_e, l) => new PayloadTooLargeError(`request body too large: the limit is ${l.bodyLimitBytes} bytes`),
  FST_ERR_BAD_URL: () => new BadUrlError('the URL cannot be decoded: a path segment holds an invalid percent-encoding'),
  FST_ERR_MAX_PARAM_LENGTH: (_e, l) => new UriTooLongError(`a path parameter is too long: at most ${l.maxParamLength} characters`),
};

/** Any other 4xx Fastify or a plugin raises, by status; unlisted ones count as a bad request. */
const BY_STATUS: Record<number, new (message: string) => AppError> = {
  400: BadRequestError,
  401: UnauthorizedError,
  403: ForbiddenError,
  404: NotFoundError,
  408: RequestTimeoutError,
  409: ConflictError,
  413: PayloadTooLargeError,
  414: UriTooLongError,
  415: UnsupportedMediaTypeError,
  422: UnprocessableError,
  431: HeadersTooLargeError,
  503: UnavailableError,
};

/** Every failure, whatever layer raised it, as one of the classes of the error table. */
export function toAppError(error: FastifyError | Error, limits: ErrorLimits): AppError {
  if (error instanceof AppError) return error;
  // A shared pool (strategy runtime, Pine workers) already holds as many of this user's requests as it queues.
  if (error instanceof PoolFullError) return new RateLimitedError(error.message, 2);
  const fastifyError = error as FastifyError;
  if (hasZodFastifySchemaValidationErrors(fastifyError)) {
    const unknown = fastifyError.validation.some((v) => v.keyword === 'unrecognized_keys');
    const message = describeValidation(fastifyError);
    return unknown ? new UnknownFieldError(message) : new ValidationError(message);
  }
  const known = fastifyError.code ? FASTIFY_CODES[fastifyError.code] : undefined;
  if (known) return known(fastifyError, limits);
  // The JSON parser's prototype-poisoning refusal and the like: a 4xx with a message of its own.
  const status = fastifyError.statusCode;
  if (status === 429) return new RateLimitedError(error.message, 1);
  if (status && status >= 400 && status < 500) return new (BY_STATUS[status] ?? BadRequestError)(error.message);
  return new InternalError();
}

export function sendError(reply: FastifyReply, error: AppError): FastifyReply {
  return reply.status(error.status).headers(error.headers).type('application/json; charset=utf-8').send(errorBody(error));
}

/**
 * One error handler for the whole service: every failure leaves as `{ error, code, error_code }`
 * with the right status — handler errors, validation, body parsing, unknown routes and router
 * errors (an undecodable URL, an over-long path parameter). Errors of the HTTP parser itself are
 * answered in the same shape by the clientError handler (plugins/client-errors.ts).
 * Unexpected errors are logged in full and answered with a generic 500.
 */
export function registerErrorHandling(app: FastifyInstance, limits: ErrorLimits): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const appError = toAppError(error, limits);
    if (appError.status >= 500) request.log.error({ err: error }, 'request failed');
    void sendError(reply, appError);
  });

  app.setNotFoundHandler((request, reply) => {
    void sendError(
      reply,
      new RouteNotFoundError(`no route ${request.method} ${request.url.split('?')[0]}: the API is described at /openapi.json`),
    );
  });
}

/** Fastify's `frameworkErrors` option: router failures that happen before any route is found. */
export function frameworkErrors(limits: ErrorLimits) {
  return (error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void => {
    void sendError(reply, toAppError(error, limits));
  };
}
