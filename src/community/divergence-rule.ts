/**
 * The live tracker's check of a shared entry against its own backtest (actors/tracker/divergence.ts
 * does it; the views and the leaderboard read its flag). Kept here, beside the ranking, so the
 * rule in words and the numbers it names are one.
 */

/** Bars of live trading each check covers (the tracker checks once this many bars have been tracked since the last). */
export const DIVERGENCE_CHECK_BARS = 96;
/** The checks that compared something (a trade or a position on either side) the rule looks back over. */
export const DIVERGENCE_WINDOW_CHECKS = 10;
/** Divergent checks among those that flag an entry. */
export const DIVERGENCE_FLAG_CHECKS = 3;
/**
 * Agreeing checks in a row, with something traded or held, that clear the flag: a whole window's
 * worth, so a strategy whose backtest edge shows only now and then cannot clear itself between.
 */
export const DIVERGENCE_CLEAR_CHECKS = DIVERGENCE_WINDOW_CHECKS;
/** Prices agree within this fraction of the price (float rounding; the engine is the same on both sides). */
export const PRICE_TOLERANCE = 1e-9;

export const DIVERGENCE_RULE =
  '**Live divergence.** The tracker follows every entry on live bars with its frozen model, computing features on a ' +
  `short warm window. Every ${DIVERGENCE_CHECK_BARS} bars it replays those same bars through the backtest’s path — ` +
  'features computed on as many rows as its train job computed them on (the fit span and the post-cutoff bars), ' +
  'ending at the last bar checked, the same ' +
  'model and the same position engine started from the live engine’s state at the first bar — and compares the ' +
  'trades: sides, entry and exit bars, exit reasons and prices (within a relative 1e-9), and the positions still open. ' +
  'A check whose features cannot be computed that way (an error or a time-out) counts as divergent; a check with ' +
  'nothing traded or held on either side counts for nothing. ' +
  `When **${DIVERGENCE_FLAG_CHECKS} of the last ${DIVERGENCE_WINDOW_CHECKS} checks** that compared something diverge, the ` +
  'entry is flagged: `divergence` (since, flagged_at, the divergent checks among the recent ones and the first ' +
  'difference found) shows on the entry and in community.json, and the entry is left off the leaderboard (counted in ' +
  `\`hidden\`). A single divergence now and then (a probability a hair from the threshold) flags nothing. The flag clears ` +
  `after **${DIVERGENCE_CLEAR_CHECKS} agreeing checks in a row** with something traded or held. An entry is frozen: a ` +
  'new version is a new share, a new entry, checked afresh from its publication.';
