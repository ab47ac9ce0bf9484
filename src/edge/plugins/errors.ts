import type { FastifyError, FastifyInstance } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { AppError } from '../../errors.ts';

/** Fastify's own failures, mapped to the status and wording a client should see. */
const FASTIFY_CODES: Record<string, { status: number; message?: string }> = {
  FST_ERR_CTP_INVALID_JSON_BODY: { status: 400, message: 'malformed JSON body' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { status: 415, message: 'unsupported content-type: send application/json' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { status: 400, message: 'content-length does not match the body' },
};

function describeValidation(error: FastifyError): string {
  const where = error.validationContext ?? 'request';
  const problems = (error.validation ?? []).map((v) => {
    const path = v.instancePath.replace(/^\//, '').replaceAll('/', '.');
    return path ? `${path}: ${v.message}` : String(v.message);
  });
  return `invalid ${where}: ${problems.join('; ')}`;
}

/**
 * One error handler for the whole service: every failure leaves as `{ error, code }` with the
 * right status. Unexpected errors are logged in full and answered with a generic 500.
 */
export function registerErrorHandling(app: FastifyInstance, { bodyLimitBytes }: { bodyLimitBytes: number }): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    let status = 500;
    let message = 'internal error: the failure was logged; try again, and report it if it persists';
    let details: Record<string, unknown> = {};
    if (error instanceof AppError) {
      details = error.details;
      status = error.status;
      message = error.message;
      reply.headers(error.headers);
    } else if (hasZodFastifySchemaValidationErrors(error)) {
      status = 400;
      message = describeValidation(error);
    } else if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      status = 413;
      message = `request body too large: the limit is ${bodyLimitBytes} bytes`;
    } else if (error.code && FASTIFY_CODES[error.code]) {
      status = FASTIFY_CODES[error.code]!.status;
      message = FASTIFY_CODES[error.code]!.message ?? error.message;
    } else if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
      status = error.statusCode;
      message = error.message;
    }
    if (status >= 500) request.log.error({ err: error }, 'request failed');
    void reply.status(status).send({ ...details, error: message, code: status });
  });

  app.setNotFoundHandler((request, reply) => {
    void reply.status(404).send({
      error: `no route ${request.method} ${request.url.split('?')[0]}: the API is described at /openapi.json`,
      code: 404,
    });
  });
}
