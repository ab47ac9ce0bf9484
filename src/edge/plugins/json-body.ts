import type { FastifyInstance } from 'fastify';

/**
 * JSON is the only body the API takes: Fastify's JSON parser (prototype-poisoning checks
 * included), except that an empty body counts as no body (`curl -H 'content-type:
 * application/json' -X POST` then means "no fields", and a route that needs a body still says
 * which fields are missing). Every other content-type — text/plain included, which Fastify would
 * parse by default — is refused with 415: the content-types a foreign page may send without a
 * CORS preflight (text/plain, forms) never reach a route.
 */
export function registerJsonParser(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') done(null, undefined);
    else parse(request, text, done);
  });
}
