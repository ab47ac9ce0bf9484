/**
 * Home and /quick-deploy: the idea box. Running it mints a trial account if this browser has
 * none, then streams POST /one_shot (step progress and the code as it is written) and ends on
 * the model page. /quick-deploy?prompt=…&run=1 starts at once; without run=1 it waits for a click.
 */
import { ensureKey, freshKey, publicGet, send } from '../lib/api.ts';
import { $, h, mount } from '../lib/dom.ts';
import { readSse } from '../lib/sse.ts';
import { rememberRun } from '../lib/runs.ts';

import type { ExamplesResponse, PresetsResponse } from '../../schemas/generation.ts';

const SYMBOLS = ['EURUSD', 'GBPUSD', 'USDJPY', 'USDCHF', 'AUDUSD', 'NZDUSD', 'USDCAD'];
const TIMEFRAMES = ['1min', '5min', '15min', '1h'];
/** The symbol and timeframe picked with the chips; unset = what the prompt names (else EURUSD 15min). */
const picked: { symbol?: string; timeframe?: string } = {};

export async function startIdeaPage(): Promise<void> {
  const form = $<HTMLFormElement>('#idea-form');
  const prompt = $<HTMLTextAreaElement>('#prompt');
  const params = new URLSearchParams(location.search);
  // The server pre-filled the box; set it again from the URL as text (never parsed as HTML).
  if (params.has('prompt')) prompt.value = params.get('prompt') ?? '';
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    void run(prompt.value.trim());
  });
  marketChips();
  void loadPresets(prompt);
  void loadExamples(prompt);
  if (document.body.dataset.page === 'quick-deploy' && params.get('run') === '1' && prompt.value.trim()) await run(prompt.value.trim());
}

async function loadPresets(prompt: HTMLTextAreaElement): Promise<void> {
  const presets = await publicGet<PresetsResponse>('/api/v1/presets');
  mount(
    $('#chips'),
    presets.chips.map((chip) =>
      h(
        'button',
        { type: 'button', class: 'chip', onclick: () => (prompt.value = `${prompt.value.trim()} ${chip.text}`.trim()) },
        chip.label,
      ),
    ),
  );
  performance.mark('sf:interactive');
  mount(
    $('#templates'),
    h('h2', {}, 'Or start from a template'),
    presets.templates.map((t) =>
      h(
        'button',
        { type: 'button', class: 'template', title: t.description, onclick: () => (prompt.value = `${t.title}: ${t.description}`) },
        h('strong', {}, t.title),
        h('span', {}, t.description),
      ),
    ),
  );
}

/** One chip group per choice: clicking the picked chip again unpicks it. */
function marketChips(): void {
  const group = (name: 'symbol' | 'timeframe', values: string[]) =>
    values.map((value) =>
      h(
        'button',
        {
          type: 'button',
          class: 'chip',
          'data-market': name,
          'aria-pressed': 'false',
          onclick: () => {
            picked[name] = picked[name] === value ? undefined : value;
            for (const chip of document.querySelectorAll<HTMLElement>(`[data-market="${name}"]`))
              chip.setAttribute('aria-pressed', String(chip.textContent === picked[name]));
          },
        },
        value,
      ),
    );
  mount($('#market-chips'), group('symbol', SYMBOLS), h('span', { class: 'sep' }), group('timeframe', TIMEFRAMES));
}

async function loadExamples(prompt: HTMLTextAreaElement): Promise<void> {
  const { examples } = await publicGet<ExamplesResponse>('/api/v1/examples');
  mount(
    $('#examples'),
    h('h2', {}, 'Example ideas'),
    h(
      'ul',
      {},
      examples
        .slice(0, 8)
        .map((e) => h('li', {}, h('button', { type: 'button', class: 'link', onclick: () => (prompt.value = e.prompt) }, e.prompt))),
    ),
  );
}

let running = false;

async function run(text: string): Promise<void> {
  if (!text || running) return;
  running = true;
  const button = $<HTMLButtonElement>('#run');
  button.disabled = true;
  const progress = $('#progress');
  progress.hidden = false;
  const fill = $('#pct');
  const msg = $('#step-msg');
  const code = $('#code-stream');
  code.textContent = '';
  try {
    msg.textContent = 'Setting up your account…';
    await ensureKey();
    showFreshKey();
    const res = await send('POST', '/api/v1/one_shot', { prompt: text, ...picked });
    if (!res.ok) {
      const body = await res.json().catch(() => ({}));
      throw new Error(body.error ?? `one_shot: HTTP ${res.status}`);
    }
    let written = '';
    let done: { stem: string; webhook_secret?: string } | null = null;
    let failure: string | null = null;
    await readSse(res, ({ event, data }) => {
      const d = data as any;
      if (event === 'token') {
        written += d.text;
        code.textContent = written;
        code.scrollTop = code.scrollHeight;
      } else if (event === 'step') {
        fill.style.width = `${d.pct}%`;
        msg.textContent = `${d.stage}: ${d.msg} (${d.pct}%)`;
      } else if (event === 'done') done = d;
      else if (event === 'error') failure = d.error;
    });
    if (failure) throw new Error(failure);
    if (!done) throw new Error('the pipeline stream ended without a result; see your models on the account page');
    const { stem } = done as { stem: string };
    rememberRun(stem, { code: written, prompt: text });
    location.assign(`/models/${encodeURIComponent(stem)}`);
  } catch (err) {
    msg.textContent = '';
    progress.prepend(h('p', { class: 'error' }, err instanceof Error ? err.message : String(err)));
    button.disabled = false;
    running = false;
  }
}

/** A key minted just now is shown in full this once; the app shows it masked afterwards. */
function showFreshKey(): void {
  const key = freshKey();
  if (!key) return;
  $('#progress').before(
    h(
      'div',
      { class: 'notice', id: 'fresh-key' },
      h('p', {}, `Your trial account ${key.username} has ${key.credits} credits. Your API key, shown only this once:`),
      h('code', { class: 'key' }, key.api_key),
      h('button', { type: 'button', onclick: () => void navigator.clipboard?.writeText(key.api_key) }, 'Copy'),
    ),
  );
}
