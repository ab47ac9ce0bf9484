/** The web app's entry: each server-rendered page names itself in body[data-page]. */
import { storedKey, call, maskKey } from './lib/api.ts';
import { startIdeaPage } from './pages/idea.ts';
import { startModelPage } from './pages/model.ts';
import { startOptimizePage } from './pages/optimize.ts';
import { startMarketPage } from './pages/market.ts';
import { startAccountPage } from './pages/account.ts';
import { startEntryPage, startLeaderboardPage } from './pages/community.ts';
import { startRecoverPage, startSignInPage } from './pages/sign-in.ts';
import { startClaimPage } from './pages/claim.ts';
import { startSessionsPage } from './pages/sessions.ts';

const PAGES: Record<string, () => void | Promise<void>> = {
  home: startIdeaPage,
  'quick-deploy': startIdeaPage,
  model: startModelPage,
  optimize: startOptimizePage,
  market: startMarketPage,
  account: startAccountPage,
  community: startLeaderboardPage,
  'community-entry': startEntryPage,
  'sign-in': startSignInPage,
  recover: startRecoverPage,
  claim: startClaimPage,
  sessions: startSessionsPage,
};

/** Who this browser is (never mints: only a stored key is looked up). */
async function showWho(): Promise<void> {
  const who = document.getElementById('who');
  const key = storedKey();
  if (!who || !key) return;
  try {
    const me = await call<{ username: string }>('GET', '/api/v1/whoami-key');
    who.textContent = `${me.username} · ${maskKey(key)}`;
  } catch {
    who.textContent = '';
  }
}

const page = PAGES[document.body.dataset.page ?? ''];
void showWho();
if (page) {
  Promise.resolve(page()).catch((err: unknown) => {
    const main = document.getElementById('main');
    const p = document.createElement('p');
    p.className = 'error';
    p.textContent = err instanceof Error ? err.message : String(err);
    main?.prepend(p);
  });
}
