/**
 * Pulls the strategy code out of a model's reply while it streams: the text of the first fenced
 * block (```python … ```), or, without a fence, everything from the first line that looks like
 * Python. Prose before and after is dropped. The `# signalforge:` header line is always ours:
 * emitted first, and any header line the model wrote is dropped, so the code is bound to the
 * requested market whatever the model did.
 *
 * What `emit` receives concatenates to exactly what `finish()` returns, so the streamed tokens
 * and the final code agree.
 */
const FENCE = '```';
const HEADER_LINE = /^\s*#\s*signalforge:/;
/** A first line that starts code when the reply has no fence. */
const CODE_START = /^(#\s*signalforge:|import\s|from\s|def\s)/;

type State = 'seek' | 'code' | 'done';

export class CodeExtractor {
  private state: State = 'seek';
  private pending = '';
  /** The current line has been partly emitted: the rest of it cannot be a fence or a header. */
  private midLine = false;
  private out = '';

  constructor(
    private readonly header: string,
    private readonly emit: (text: string) => void = () => {},
  ) {}

  push(delta: string): void {
    if (this.state === 'done' || delta === '') return;
    this.pending += delta;
    this.drain(false);
  }

  /** Flushes what is held back and returns the whole code (ending with a newline). */
  finish(): string {
    this.drain(true);
    if (this.state === 'seek') this.start();
    if (!this.out.endsWith('\n')) this.write('\n');
    this.state = 'done';
    return this.out;
  }

  private write(text: string): void {
    if (!text) return;
    this.out += text;
    this.emit(text);
  }

  private start(): void {
    this.state = 'code';
    this.write(`${this.header}\n`);
  }

  private drain(final: boolean): void {
    while (this.state !== 'done' && this.pending) {
      const nl = this.pending.indexOf('\n');
      if (nl < 0 && !final) {
        if (this.state === 'code') this.partial();
        return;
      }
      const line = nl < 0 ? this.pending : this.pending.slice(0, nl);
      this.pending = nl < 0 ? '' : this.pending.slice(nl + 1);
      this.line(line, nl >= 0);
    }
  }

  /** A complete line (or the last one, without its newline, when finishing). */
  private line(line: string, newline: boolean): void {
    const eol = newline ? '\n' : '';
    if (this.midLine) {
      this.midLine = false;
      this.write(line + eol);
      return;
    }
    const trimmed = line.trimStart();
    if (this.state === 'seek') {
      if (trimmed.startsWith(FENCE)) this.start();
      else if (CODE_START.test(trimmed)) {
        this.start();
        this.line(line, newline);
      }
      return;
    }
    if (trimmed.startsWith(FENCE)) {
      this.state = 'done';
      this.pending = '';
      return;
    }
    if (HEADER_LINE.test(line)) return;
    this.write(line + eol);
  }

  /** Emits the start of an unfinished line unless it may still become a fence or a header. */
  private partial(): void {
    if (this.midLine) {
      this.write(this.pending);
      this.pending = '';
      return;
    }
    const t = this.pending.trimStart();
    const undecided = t === '' || FENCE.startsWith(t) || t.startsWith(FENCE) || t.startsWith('#');
    if (undecided) return;
    this.midLine = true;
    this.write(this.pending);
    this.pending = '';
  }
}

/** The code of a complete reply (no streaming). */
export function extractCode(reply: string, header: string): string {
  const extractor = new CodeExtractor(header);
  extractor.push(reply);
  return extractor.finish();
}
