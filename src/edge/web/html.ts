/** Server-rendered HTML: escaping, and the shell every page of the web app shares. */
import type { Manifest } from './bundle.ts';

/** Escapes text for HTML element content and quoted attribute values. */
export const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** A piece of HTML already escaped (built by `html`), inserted as-is. */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

type Part = string | number | SafeHtml | null | undefined | readonly Part[];

const render = (part: Part): string => {
  if (part === null || part === undefined) return '';
  if (part instanceof SafeHtml) return part.value;
  if (Array.isArray(part)) return part.map(render).join('');
  return escapeHtml(String(part));
};

/** Tagged template: every interpolated value is escaped unless it is SafeHtml. */
export function html(strings: TemplateStringsArray, ...values: Part[]): SafeHtml {
  let out = strings[0]!;
  values.forEach((value, i) => {
    out += render(value) + strings[i + 1]!;
  });
  return new SafeHtml(out);
}

export interface ShellOptions {
  title: string;
  /** Which page script runs (body data-page). */
  page: string;
  body: SafeHtml;
  assets: Manifest;
  /** The script entry to load; pages of the app load `app`. */
  script?: 'app' | 'pulse';
}

const NAV: readonly [string, string][] = [
  ['/', 'New strategy'],
  ['/market', 'Market'],
  ['/community', 'Community'],
  ['/pulse', 'Pulse'],
  ['/account', 'Account'],
  ['/api-docs', 'API'],
];

export function pageShell({ title, page, body, assets, script = 'app' }: ShellOptions): string {
  return `<!doctype html>${html`<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · signalforge</title>
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/assets/${assets.styles}">
<script type="module" src="/assets/${assets[script]}"></script>
</head>
<body data-page="${page}">
<header class="top"><a class="brand" href="/">signalforge</a><nav>${NAV.map(([href, label]) => html`<a href="${href}">${label}</a>`)}</nav><span id="who" class="who"></span></header>
<main id="main">${body}</main>
</body>
</html>`}`;
}
