/**
 * A small Python highlighter for the strategy code: comments, strings, numbers, keywords and
 * the names after def, as spans whose text is set as text (the code is never parsed as HTML).
 */
const KEYWORDS = new Set(
  'False None True and as assert break class continue def del elif else except finally for from global if import in is lambda not or pass raise return try while with yield'.split(
    ' ',
  ),
);
const TOKEN =
  /(#[^\n]*)|("""[\s\S]*?"""|'''[\s\S]*?'''|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*')|\b(\d+(?:\.\d+)?(?:e-?\d+)?)\b|\b([A-Za-z_]\w*)\b/g;

export function highlightPython(code: string): DocumentFragment {
  const out = document.createDocumentFragment();
  const span = (cls: string, text: string) => {
    const el = document.createElement('span');
    el.className = cls;
    el.textContent = text;
    out.append(el);
  };
  let last = 0;
  let afterDef = false;
  for (const m of code.matchAll(TOKEN)) {
    const index = m.index ?? 0;
    if (index > last) out.append(code.slice(last, index));
    last = index + m[0].length;
    if (m[1]) span('hl-comment', m[0]);
    else if (m[2]) span('hl-string', m[0]);
    else if (m[3]) span('hl-number', m[0]);
    else if (afterDef) span('hl-def', m[0]);
    else if (KEYWORDS.has(m[0])) span('hl-keyword', m[0]);
    else out.append(m[0]);
    afterDef = m[0] === 'def';
  }
  if (last < code.length) out.append(code.slice(last));
  return out;
}
