/**
 * The live tracker's check of a shared entry against its own backtest (actors/tracker/divergence.ts
 * does it; the views and the leaderboard read its flag). Kept here, beside the ranking, so the
 * rule in words and the numbers it names are one.
 */

/** Bars of live trading each check covers (the tracker checks once this many bars have been tracked since the last). */
export const DIVERGENCE_CHECK_BARS = 96;
/** Divergent checks in a row that flag an entry. */
export const DIVERGENCE_FLAG_CHECKS = 3;
/** Agreeing checks in a row, with something traded or held, that clear the flag. */
export const DIVERGENCE_CLEAR_CHECKS = 3;
/** Prices agree within this fraction of the price (float rounding; the engine is the same on both sides). */
export const PRICE_TOLERANCE = 1e-9;

export const DIVERGENCE_RULE =
  '**Live divergence.** The tracker follows every entry on live bars with its frozen model, computing features on a ' +
  `short warm window. Every ${DIVERGENCE_CHECK_BARS} bars it replays those same bars through the backtest’s path — ` +
  'features computed on a window as long as the one the entry was fitted on, ending at the last bar checked, the same ' +
  'model and the same position engine started from the live engine’s state at the first bar — and compares the ' +
  'trades: sides, entry and exit bars, exit reasons and prices (within a relative 1e-9), and the positions still open. ' +
  'A check whose features cannot be computed that way (an error or a time-out) counts as divergent. ' +
  `After **${DIVERGENCE_FLAG_CHECKS} divergent checks in a row** the entry is flagged: \`divergence\` (since, flagged_at, ` +
  'the number of checks and the first difference found) shows on the entry and in community.json, and the entry is ' +
  'left off the leaderboard (counted in `hidden`). Checks with nothing traded or held on either side change nothing. ' +
  `The flag clears after **${DIVERGENCE_CLEAR_CHECKS} agreeing checks in a row** with something traded or held. An entry ` +
  'is frozen: a new version is a new share, a new entry, checked afresh from its publication.';
