import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CodeExtractor, extractCode } from '../../../src/generation/claude/extract.ts';

const HEADER = '# signalforge: symbol=EURUSD timeframe=15min';
const BODY =
  'import numpy as np\nimport pandas as pd\n\n\ndef feature_engineering(df, close, open_, high, low):\n    df["x"] = close.pct_change()  # ``not a fence``\n    df = df.bfill().ffill()\n    return df\n';

/** Streams `reply` through an extractor cut at every position and in 1-char steps: all agree. */
function streamed(reply: string, cuts: number[]): { emitted: string; code: string } {
  let emitted = '';
  const x = new CodeExtractor(HEADER, (t) => (emitted += t));
  let at = 0;
  for (const cut of [...cuts, reply.length]) {
    x.push(reply.slice(at, cut));
    at = cut;
  }
  return { emitted, code: x.finish() };
}

function everySplit(reply: string, expected: string): void {
  for (let i = 0; i <= reply.length; i++) {
    const { emitted, code } = streamed(reply, [i]);
    assert.equal(code, expected, `cut at ${i}`);
    assert.equal(emitted, code, `emitted = code, cut at ${i}`);
  }
  const chars = streamed(
    reply,
    Array.from({ length: reply.length }, (_, i) => i),
  );
  assert.equal(chars.code, expected, 'one character at a time');
  assert.equal(chars.emitted, expected);
}

describe('CodeExtractor', () => {
  it('takes the fenced block, drops the prose around it, and puts our header first', () => {
    const reply = `Here is your strategy:\n\n\`\`\`python\n${BODY}\`\`\`\n\nIt uses returns. \`\`\`more\`\`\``;
    everySplit(reply, `${HEADER}\n${BODY}`);
  });

  it('replaces a header line the model wrote (right or wrong market) with ours', () => {
    for (const theirs of [HEADER, '# signalforge: symbol=GBPUSD timeframe=1h', '#signalforge: symbol=EURUSD']) {
      everySplit(`\`\`\`python\n${theirs}\n${BODY}\`\`\``, `${HEADER}\n${BODY}`);
    }
  });

  it('reads a reply without a fence from its first line of code', () => {
    everySplit(`Sure.\n${BODY}`, `${HEADER}\n${BODY}`);
    everySplit(`${HEADER}\n${BODY}`, `${HEADER}\n${BODY}`);
  });

  it('ends the code with a newline, also when the fence never closes (cut at max_tokens)', () => {
    assert.equal(extractCode('```python\nimport numpy as np', HEADER), `${HEADER}\nimport numpy as np\n`);
    assert.equal(extractCode('```\nimport numpy as np\n```', HEADER), `${HEADER}\nimport numpy as np\n`);
  });

  it('keeps comment lines and indented code that merely start like a fence or a header', () => {
    const body = '    # ``` inside a comment\n#: a comment\nx = 1\n';
    everySplit(`\`\`\`python\n${body}\`\`\``, `${HEADER}\n${body}`);
  });

  it('gives only the header for a reply with no code at all (the checks then refuse it)', () => {
    assert.equal(extractCode('I cannot help with that.', HEADER), `${HEADER}\n`);
  });
});
