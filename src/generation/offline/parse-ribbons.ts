/**
 * A moving-average ribbon with its periods written apart from it: "a 3 ema ribbon 8/13/21",
 * "ema ribbon on usdchf 15min — 8,13,21,34,55". Rewritten as "ema 8/13/21 ribbon", the list
 * beside the name, which the mention parser reads as one average per period (a count before the
 * name, "3 ema", is how many there are, not a period).
 */
const RIBBON = /\b(?:\d{1,2} )?(emas?|smas?|wmas?|moving averages?) ribbons?\b([^.;!?]{0,60}?)(\d{1,3}(?: ?[,/] ?\d{1,3}){2,})\b/g;

export function rewriteRibbons(text: string): string {
  return text.replace(
    RIBBON,
    (_, name: string, between: string, list: string) =>
      `${name} ${list.replace(/ ?[,/] ?/g, '/')} ribbon${between.trimEnd() ? ` ${between.trim()}` : ''}`,
  );
}
