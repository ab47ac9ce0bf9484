/**
 * A nats-server binary for fault tests: the real one, except that it refuses to start while the
 * test holds it — a restart that fails until the test lets go.
 */
import { chmodSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface HeldNats {
  /** The wrapper script: pass it as NATS_SERVER_BIN. */
  bin: string;
  /** From now on the server refuses to start. */
  hold(): void;
  /** It starts again. */
  release(): void;
}

export function heldNatsServer(dir: string): HeldNats {
  const bin = join(dir, 'nats-held.sh');
  const flag = join(dir, 'hold');
  writeFileSync(bin, `#!/bin/sh\nif [ -e '${flag}' ]; then echo '[FTL] held by the test' >&2; exit 1; fi\nexec nats-server "$@"\n`);
  chmodSync(bin, 0o755);
  return { bin, hold: () => writeFileSync(flag, ''), release: () => rmSync(flag, { force: true }) };
}
