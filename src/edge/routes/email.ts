import { z } from 'zod';
import type { FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { EmailAddresses } from '../../accounts/index.ts';
import { confirmationMail, EMAIL_OFF, type SmtpMailer } from '../../delivery/index.ts';
import { UnavailableError, UnprocessableError } from '../../errors.ts';
import { isoFromMs } from '../../lib/iso-time.ts';
import type { Logger } from '../../log.ts';
import { ErrorBody } from '../../../schemas/common.ts';
import {
  EmailConfirmResponse,
  EmailRegisterRequest,
  EmailRegisterResponse,
  EmailStatus,
  EmailTokenQuery,
  EmailUnsubscribeResponse,
} from '../../../schemas/email.ts';
import { requireUser } from '../plugins/auth.ts';
import { setPageHeaders } from '../web/security-headers.ts';
import type { App } from '../types.ts';

export interface EmailRoutesDeps {
  /** Null when the server sends no e-mail (no SMTP_URL): the routes say why. */
  addresses: EmailAddresses | null;
  mailer: Pick<SmtpMailer, 'send'> | null;
  dailyCap: number;
  /** Base URL of the links mailed (PUBLIC_URL, else the address the service listens on; never the request's Host). */
  publicUrl: () => string;
  log: Logger;
}

const HTML = { description: 'An HTML page (for a person who followed the link)', content: { 'text/html': { schema: z.string() } } };

const escapeHtml = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** A small page (no inline script or style: the web app's CSP holds here too; the app's icon, or the browser asks for a /favicon.ico there is none of). */
function page(reply: FastifyReply, title: string, body: string): FastifyReply {
  return setPageHeaders(reply).send(
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="/favicon.svg" type="image/svg+xml"><title>${escapeHtml(title)}</title></head><body><h1>${escapeHtml(title)}</h1>${body}</body></html>`,
  );
}

const wantsHtml = (accept: string | undefined): boolean => /text\/html/.test(accept ?? '');

/**
 * The email channel's address (issue 38): the key's owner registers one, a signed single-use link
 * mailed to it confirms it, and every signal mail carries a signed one-click unsubscribe link
 * (RFC 8058: its POST needs no key). Tokens are HMAC-signed for one account and one address.
 */
export function emailRoutes(app: App, deps: EmailRoutesDeps): void {
  const need = (): EmailAddresses => {
    if (!deps.addresses) throw new UnprocessableError(EMAIL_OFF);
    return deps.addresses;
  };
  const availability = (): { available: boolean; reason: string | null } =>
    deps.addresses ? { available: true, reason: null } : { available: false, reason: EMAIL_OFF };

  // Said where channels are listed (/openapi.json, /api/v1/docs, /llms.txt): whether this server can mail at all.
  const here = deps.addresses ? '' : ` (unavailable on this server: no SMTP_URL)`;

  app.get('/api/v1/email', {
    config: { auth: 'key' },
    schema: {
      tags: ['deploy'],
      summary: `Your signal e-mail address: confirmed, waiting for its link, or unsubscribed; and today’s count${here}`,
      description:
        '`available: false` (with the reason) on a server that sends no e-mail (no SMTP_URL): the email channel cannot be deployed there.',
      response: { 200: EmailStatus },
    },
    handler: async (request) => {
      const user = requireUser(request);
      if (!deps.addresses) {
        return {
          available: false,
          unavailable_reason: EMAIL_OFF,
          status: 'none' as const,
          address: null,
          pending_address: null,
          pending_expires_at: null,
          signals_sent_today: 0,
          daily_cap: deps.dailyCap,
        };
      }
      return deps.addresses.status(user.user_id, deps.dailyCap, availability());
    },
  });

  app.post('/api/v1/email', {
    config: { auth: 'key' },
    schema: {
      tags: ['deploy'],
      summary: `Register the address the email channel mails signals to: a confirmation link is mailed to it${here}`,
      description:
        'Mails a link to the address; following it (GET or POST) confirms the address, and from then on deployments with the ' +
        '`email` channel may send there (POST /deploy refuses the channel with 422 until then). The link works once, for 24 hours; ' +
        'registering again sends a new link and voids the old one. A confirmed address stays in use until the new one is confirmed. ' +
        'At most 5 confirmation mails per account per UTC day (429 after). 422 when the server sends no e-mail (no SMTP_URL); ' +
        '503 when its mail server could not take the mail (try again).',
      body: EmailRegisterRequest,
      response: { 202: EmailRegisterResponse, 422: ErrorBody, 429: ErrorBody, 503: ErrorBody },
    },
    handler: async (request, reply) => {
      const user = requireUser(request);
      const addresses = need();
      const { address } = request.body;
      const base = deps.publicUrl().replace(/\/+$/, '');
      const { token, expires_at } = await addresses.register(user.user_id, address, base);
      const expires = isoFromMs(expires_at);
      const mail = confirmationMail(address, `${base}/api/v1/email/confirm?token=${token}`, expires);
      const sent = await deps.mailer!.send({ ...mail, to: address });
      if (!sent.ok) {
        deps.log.warn({ user_id: user.user_id, smtp_code: sent.code, error: sent.error }, 'confirmation mail not sent');
        throw new UnavailableError(`the confirmation mail could not be sent (${sent.error}): try again shortly`);
      }
      deps.log.info({ user_id: user.user_id }, 'e-mail confirmation link sent');
      return reply.code(202).send({
        status: 'pending' as const,
        address,
        expires_at: expires,
        message: `a confirmation link was mailed to ${address}: follow it (within 24 hours) to receive signals there`,
      });
    },
  });

  const confirm = async (token: string) => {
    const done = await need().confirm(token);
    deps.log.info({ user_id: done.user_id }, 'e-mail address confirmed');
    return {
      status: 'confirmed' as const,
      address: done.address,
      message: `${done.address} is confirmed: deploy a model with the email channel (POST /api/v1/deploy, channels ["email"]) to receive its signals`,
    };
  };

  app.get('/api/v1/email/confirm', {
    config: { auth: 'none' },
    schema: {
      tags: ['deploy'],
      summary: 'Confirm an address (the link mailed by POST /api/v1/email)',
      description:
        'Answers with a page for the person who followed the link. A forged, altered, used or expired token is refused (400, saying what to do) and changes nothing.',
      querystring: EmailTokenQuery,
      response: { 200: HTML },
    },
    handler: async (request, reply) => {
      const done = await confirm(request.query.token);
      return page(reply, 'Address confirmed', `<p>${escapeHtml(done.message)}.</p>`);
    },
  });

  app.post('/api/v1/email/confirm', {
    config: { auth: 'none' },
    schema: {
      tags: ['deploy'],
      summary: 'Confirm an address by its token (JSON)',
      description: 'The same as following the link. A forged, altered, used or expired token is refused (400) and changes nothing.',
      querystring: EmailTokenQuery,
      response: { 200: EmailConfirmResponse, 400: ErrorBody },
    },
    handler: async (request) => confirm(request.query.token),
  });

  app.get('/api/v1/email/unsubscribe', {
    config: { auth: 'none' },
    schema: {
      tags: ['deploy'],
      summary: 'The unsubscribe page of a signal mail (asks; it does not unsubscribe by itself)',
      description: 'A GET never unsubscribes (RFC 8058: link scanners fetch links); the page’s button POSTs to the same URL.',
      querystring: EmailTokenQuery,
      response: { 200: HTML },
    },
    handler: async (request, reply) =>
      page(
        reply,
        'Stop signal e-mails?',
        `<form method="post" action="/api/v1/email/unsubscribe?token=${encodeURIComponent(request.query.token)}">` +
          '<input type="hidden" name="List-Unsubscribe" value="One-Click"><button type="submit">Unsubscribe</button></form>',
      ),
  });

  // RFC 8058's one-click POST comes as a form (List-Unsubscribe=One-Click): accepted here only.
  app.register(async (plain) => {
    const scope = plain.withTypeProvider<ZodTypeProvider>();
    for (const type of ['application/x-www-form-urlencoded', 'multipart/form-data']) {
      scope.addContentTypeParser(type, { parseAs: 'string', bodyLimit: 4096 }, (_request, body, done) => done(null, String(body)));
    }
    scope.post('/api/v1/email/unsubscribe', {
      config: { auth: 'none' },
      schema: {
        tags: ['deploy'],
        summary: 'One-click unsubscribe (RFC 8058): stop signal mails to the token’s address',
        description:
          'The URL of every signal mail’s `List-Unsubscribe` header (with `List-Unsubscribe-Post: List-Unsubscribe=One-Click`): ' +
          'a POST with any body (mail providers send `List-Unsubscribe=One-Click` as a form) and no key. The token names the ' +
          'account and the address and is signed, so nobody can unsubscribe an address that is not in their mail. The address stops ' +
          'being the account’s confirmed one: its deployments’ email delivery is disabled (their delivery log says so) until an address ' +
          'is confirmed again. Idempotent. Answers JSON, or a page when the request accepts text/html.',
        querystring: EmailTokenQuery,
        response: { 200: EmailUnsubscribeResponse, 400: ErrorBody, 404: ErrorBody },
      },
      handler: async (request, reply) => {
        const done = await need().unsubscribe(request.query.token);
        deps.log.info({ user_id: done.user_id, changed: done.changed }, 'e-mail address unsubscribed');
        const message = done.changed
          ? `${done.address} will get no more signal e-mails (confirm it again with POST /api/v1/email to resume)`
          : `${done.address} was already not receiving signal e-mails`;
        if (wantsHtml(request.headers.accept)) return page(reply, 'Unsubscribed', `<p>${escapeHtml(message)}.</p>`);
        return { status: 'unsubscribed' as const, address: done.address, message };
      },
    });
  });
}
