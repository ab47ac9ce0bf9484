import { z } from 'zod';
import fastifyStatic from '@fastify/static';
import type { ActivityFeed } from '../../community/index.ts';
import { IsoDateTime } from '../../../schemas/common.ts';
import type { Manifest } from '../web/bundle.ts';
import { html, pageShell, type SafeHtml } from '../web/html.ts';
import { pulseBody } from '../web/pulse-page.ts';
import { setPageHeaders } from '../web/security-headers.ts';
import type { App } from '../types.ts';

export interface WebRoutesDeps {
  feed: Pick<ActivityFeed, 'list'>;
  assets: { manifest: Manifest; assetsDir: string };
}

const YEAR_S = 365 * 24 * 3600;

const FAVICON =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#0f172a"/>' +
  '<path d="M2 11l4-4 3 3 5-6" stroke="#22c55e" stroke-width="2" fill="none"/></svg>';

/**
 * The web app: its pages (an HTML shell each; the bundle draws them), /pulse, and the assets.
 * Answers the public pages it registered (the sitemap lists those; model and account pages are per user).
 */
export async function webRoutes(app: App, { feed, assets }: WebRoutesDeps): Promise<string[]> {
  const publicPages: string[] = [];
  const { manifest } = assets;
  await app.register(fastifyStatic, {
    root: assets.assetsDir,
    prefix: '/assets/',
    // Hashed names: a file's content never changes, so browsers keep it a year without asking.
    maxAge: YEAR_S * 1000,
    immutable: true,
    preCompressed: true,
    index: false,
    // One route per built file (the build is done before the app starts): nothing else is looked up on disk.
    wildcard: false,
    schemaHide: true,
    setHeaders: (reply) => reply.header('x-content-type-options', 'nosniff'),
  });

  app.get('/favicon.svg', { schema: { hide: true } }, async (_request, reply) =>
    reply.type('image/svg+xml').header('cache-control', 'public, max-age=86400').header('x-content-type-options', 'nosniff').send(FAVICON),
  );

  const page = (path: string, title: string, name: string, body: (query: Record<string, string>) => SafeHtml, listed = false) => {
    if (listed) publicPages.push(path);
    app.get(path, { schema: { hide: true } }, async (request, reply) =>
      setPageHeaders(reply).send(pageShell({ title, page: name, body: body(request.query as Record<string, string>), assets: manifest })),
    );
  };

  const ideaBox = (prompt: string) => html`<section class="idea">
<h1>Describe a trading idea</h1>
<form id="idea-form" method="get" action="/quick-deploy">
<textarea id="prompt" name="prompt" rows="4" maxlength="4000" placeholder="e.g. Buy EURUSD on 15min when RSI crosses up through 30, stop 20 pips, take 40" required>${prompt}</textarea>
<div id="chips" class="chips"></div>
<div id="market-chips" class="chips"></div>
<div class="row"><button id="run" type="submit" name="run" value="1">Generate, backtest and deploy</button><span id="credits" class="muted"></span></div>
</form>
<div id="templates" class="templates"></div>
<div id="examples" class="examples"></div>
</section>
<section id="progress" class="progress" hidden><div class="bar"><div id="pct" class="fill"></div></div><p id="step-msg" class="muted"></p><pre id="code-stream" class="code"></pre></section>`;
  page('/', 'New strategy', 'home', () => ideaBox(''), true);
  // The contract's deep link: the prompt is pre-filled (as text); with run=1 the pipeline starts at once.
  page('/quick-deploy', 'Quick deploy', 'quick-deploy', (q) => ideaBox(typeof q.prompt === 'string' ? q.prompt : ''), true);
  page('/models/:stem', 'Model', 'model', () => html`<div id="model" class="model"><p class="muted">Loading the model…</p></div>`);
  page(
    '/models/:stem/optimize',
    'Optimise',
    'optimize',
    () => html`<div id="optimize" class="optimize"><p class="muted">Loading the model…</p></div>`,
  );
  page('/market', 'Market', 'market', () => html`<div id="market" class="market"></div>`, true);
  page('/account', 'Account', 'account', () => html`<div id="account" class="account"></div>`);
  // Sign-in, claim, sessions and recovery (issue 21).
  page('/sign-in', 'Sign in', 'sign-in', () => html`<div id="sign-in" class="account"></div>`, true);
  page('/recover', 'Recover your account', 'recover', () => html`<div id="recover" class="account"></div>`);
  page('/account/claim', 'Sign-in methods', 'claim', () => html`<div id="claim" class="account"></div>`);
  page('/account/sessions', 'Sessions', 'sessions', () => html`<div id="sessions-page" class="account"></div>`);
  page(
    '/community',
    'Community',
    'community',
    () => html`<div id="community" class="community"><p class="muted">Loading the leaderboard…</p></div>`,
    true,
  );
  page(
    '/community/:id',
    'Community entry',
    'community-entry',
    () => html`<div id="community" class="community"><p class="muted">Loading…</p></div>`,
  );

  publicPages.push('/pulse');
  app.get('/pulse', {
    config: { auth: 'none' },
    schema: {
      tags: ['discovery'],
      summary: 'Live feed of public activity (HTML)',
      description:
        'The activity stream as a web page: the newest events server-rendered (readable without JavaScript; `before` pages ' +
        'back as in GET /api/v1/activity), then live through GET /api/v1/activity/stream.',
      querystring: z.object({ before: IsoDateTime.optional().describe('Only events older than this (the page’s "older" link)') }),
      response: { 200: { description: 'An HTML page', content: { 'text/html': { schema: z.string() } } } },
    },
    handler: async (request, reply) => {
      const list = feed.list({ limit: 50, before: request.query.before });
      return setPageHeaders(reply).send(
        pageShell({ title: 'Pulse', page: 'pulse', body: pulseBody(list), assets: manifest, script: 'pulse' }),
      );
    },
  });
  return publicPages;
}
