/** Community: the leaderboard (sorts and filters), an entry (metrics, live record, lineage) and forking. */
import type { CommunityEntry, ForkResponse, Leaderboard, Lineage, LineageNode } from '../../schemas/community.ts';
import type { TradeStats } from '../../schemas/backtest.ts';
import { call, publicGet } from '../lib/api.ts';
import { $, h, mount, pct } from '../lib/dom.ts';
import { rememberRun } from '../lib/runs.ts';
import { trainAndWait } from '../lib/train.ts';
import { verdictBadge } from './robustness-panel.ts';

const METRICS = ['composite', 'dsr', 'sharpe', 'ret', 'wr', 'pf', 'n_trades', 'forks', 'live_ret', 'live_wr', 'live_pf'];
/** How a sort is named in the selector where its API name says little. */
const METRIC_LABELS: Record<string, string> = { dsr: 'dsr (deflated Sharpe)' };
const SYMBOLS = ['', 'EURUSD', 'GBPUSD', 'USDJPY', 'USDCHF', 'AUDUSD', 'NZDUSD', 'USDCAD'];
const TIMEFRAMES = ['', '1min', '5min', '15min', '1h'];

const entryLink = (id: number, title: string) => h('a', { href: `/community/${id}` }, title);

export async function startLeaderboardPage(): Promise<void> {
  const params = new URLSearchParams(location.search);
  const query = new URLSearchParams();
  for (const name of ['metric', 'symbol', 'timeframe']) if (params.get(name)) query.set(name, params.get(name)!);
  const board = await publicGet<Leaderboard>(`/api/v1/leaderboard?${query}`);
  const select = (name: string, options: string[]) =>
    h(
      'select',
      {
        name,
        onchange: (e: Event) => {
          const v = (e.target as HTMLSelectElement).value;
          if (v) params.set(name, v);
          else params.delete(name);
          location.search = params.toString();
        },
      },
      options.map((o) =>
        h(
          'option',
          { value: o, selected: (params.get(name) ?? (name === 'metric' ? board.ranked_by : '')) === o },
          METRIC_LABELS[o] ?? (o || `any ${name}`),
        ),
      ),
    );
  mount(
    $('#community'),
    h('h1', {}, 'Community leaderboard'),
    h(
      'div',
      { class: 'row' },
      'Rank by ',
      select('metric', METRICS),
      select('symbol', SYMBOLS),
      select('timeframe', TIMEFRAMES),
      h('span', { class: 'muted' }, ` ${board.total} entries`),
    ),
    board.entries.length === 0
      ? h('p', { class: 'muted' }, 'No shared strategy yet: share a profitable model from its page.')
      : h(
          'table',
          { class: 'stats leaderboard' },
          h(
            'thead',
            {},
            h(
              'tr',
              {},
              [
                '#',
                'Strategy',
                'Author',
                'Market',
                board.ranked_by,
                'Verdict',
                'Test return',
                'Win rate',
                'PF',
                'Live return',
                'Forks',
              ].map((c) => h('th', {}, c)),
            ),
          ),
          h(
            'tbody',
            {},
            board.entries.map((e) =>
              h(
                'tr',
                { class: e.qualified ? '' : 'muted' },
                h('td', {}, e.rank),
                h('td', {}, entryLink(e.community_id, e.title)),
                h('td', {}, e.author),
                h('td', {}, `${e.symbol} ${e.timeframe}`),
                h('td', {}, e.value === null ? '—' : Number(e.value.toFixed(4))),
                h(
                  'td',
                  { class: 'verdict-cell' },
                  e.verdict
                    ? verdictBadge(e.verdict)
                    : h('span', { class: 'muted', title: 'Shared before robustness reports existed' }, '—'),
                ),
                h('td', {}, pct(e.test.ret, 2)),
                h('td', {}, pct(e.test.wr)),
                h('td', {}, e.test.pf.toFixed(2)),
                h('td', {}, e.live ? pct(e.live.ret, 2) : '—'),
                h('td', {}, e.forks),
              ),
            ),
          ),
        ),
  );
  document.body.dataset.ready = '1';
}

const statsRow = (label: string, s: Pick<TradeStats, 'n' | 'wr' | 'ret' | 'pf' | 'mdd'> | null) =>
  h(
    'tr',
    {},
    h('th', {}, label),
    s ? [s.n, pct(s.wr), pct(s.ret, 2), s.pf.toFixed(2), pct(s.mdd, 2)].map((v) => h('td', {}, v)) : h('td', { colspan: 5 }, '—'),
  );

const node = (n: LineageNode, current = false) =>
  h(
    'span',
    { class: current ? 'node current' : 'node' },
    current ? n.title : entryLink(n.community_id, n.title),
    ` · ${n.author} · test ${pct(n.test.ret, 2)}`,
  );

export async function startEntryPage(): Promise<void> {
  const id = Number(location.pathname.split('/').pop());
  const [entry, lineage] = await Promise.all([
    publicGet<CommunityEntry>(`/api/v1/community/${id}`),
    publicGet<Lineage>(`/api/v1/lineage/${id}`),
  ]);
  const status = h('p', { class: 'muted', id: 'fork-status' });
  const fork = async () => {
    try {
      status.textContent = 'Forking…';
      const copy = await call<ForkResponse>('POST', `/api/v1/fork/${id}`, {});
      status.textContent = 'Training your copy…';
      const stem = await trainAndWait(copy.train_request, (text) => (status.textContent = `Training your copy: ${text}`));
      rememberRun(stem, { code: copy.code, prompt: `fork of community entry ${id}`, forked_from: copy.forked_from });
      location.assign(`/models/${encodeURIComponent(stem)}`);
    } catch (err) {
      status.textContent = err instanceof Error ? err.message : String(err);
    }
  };
  const live = entry.live;
  mount(
    $('#community'),
    h('h1', {}, entry.title),
    h(
      'p',
      { class: 'muted' },
      `by ${entry.author} · ${entry.model.symbol} ${entry.model.timeframe} · ${entry.model.model_type} · shared ${entry.created_at.slice(0, 10)} · ${entry.forks} forks`,
    ),
    entry.description ? h('p', { class: 'description' }, entry.description) : null,
    h('button', { type: 'button', id: 'fork', onclick: () => void fork() }, 'Fork and train a copy'),
    status,
    h('h2', {}, 'Backtest and live record'),
    h(
      'table',
      { class: 'stats' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ['Span', 'Trades', 'Win rate', 'Return', 'PF', 'Max DD'].map((c) => h('th', {}, c)),
        ),
      ),
      h(
        'tbody',
        {},
        statsRow('Train', entry.backtest.train),
        statsRow('Test', entry.backtest.test),
        statsRow('Post-cutoff', entry.backtest.post_cutoff),
        statsRow('Live since sharing', live ? live.stats : null),
      ),
    ),
    live
      ? h(
          'p',
          { class: 'muted' },
          `Live: ${live.bars} bars over ${live.days_tracked.toFixed(1)} days since ${live.since.slice(0, 16).replace('T', ' ')}.`,
        )
      : h('p', { class: 'muted' }, 'Live record: starts with the first bar after sharing.'),
    entryVerdict(entry),
    h('h2', {}, 'Lineage'),
    h(
      'ul',
      { class: 'lineage', id: 'lineage' },
      [...lineage.ancestors].reverse().map((a) => h('li', {}, node(a))),
      h(
        'li',
        {},
        node(lineage.entry, true),
        lineage.children.length
          ? h(
              'ul',
              {},
              lineage.children.map((c) => h('li', {}, node(c))),
            )
          : null,
      ),
    ),
  );
  document.body.dataset.ready = '1';
}

/** Is the edge real? The verdict frozen at share, beside the live record that tests it. */
function entryVerdict(entry: CommunityEntry): HTMLElement {
  const r = entry.robustness;
  if (!r || !entry.verdict)
    return h('p', { class: 'muted', id: 'entry-verdict' }, 'Robustness: shared before robustness reports existed, so it has no verdict.');
  return h(
    'div',
    { class: 'entry-verdict', id: 'entry-verdict' },
    h('p', {}, 'Is the edge real? ', verdictBadge(entry.verdict), h('span', { class: 'muted' }, ' at sharing')),
    h(
      'ul',
      { class: 'reasons' },
      r.reasons.map((reason) => h('li', {}, reason)),
    ),
    h(
      'p',
      { class: 'muted' },
      `Deflated Sharpe ${r.dsr.toFixed(3)} (p-value ${r.dsr_p_value.toFixed(3)} across ${r.trials} variant${r.trials === 1 ? '' : 's'} tried) · Sharpe ${r.sharpe_annualised.toFixed(2)} annualised · random-entry p-value ${r.random_p_value.toFixed(3)}` +
        (r.folds === null ? '' : ` · ${r.folds_profitable} of ${r.folds} walk-forward folds profitable`),
    ),
  );
}
