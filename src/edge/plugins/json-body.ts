import type { FastifyInstance } from 'fastify';

/**
 * Fastify's JSON parser (prototype-poisoning checks included), except that an empty body counts
 * as no body: `curl -H 'content-type: application/json' -X POST` then means "no fields", and a
 * route that needs a body still says which fields are missing.
 */
export function registerJsonParser(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') done(null, undefined);
    else parse(request, text, done);
  });
}
