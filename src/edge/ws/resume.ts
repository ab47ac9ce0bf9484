import { BadRequestError } from '../../errors.ts';

/** A position in a stream of frames: [bar open ms, index of the event within the bar]. */
export type Position = readonly [number, number];

export const isAfter = (a: Position, b: Position | null): boolean => b === null || a[0] > b[0] || (a[0] === b[0] && a[1] > b[1]);

/** `sig_<deployment_id>_<bar open ms>_<n>` → its position; null for any other text. */
export function signalPosition(id: string): Position | null {
  const m = /_(\d+)_(\d+)$/.exec(id);
  return m ? [Number(m[1]), Number(m[2])] : null;
}

/**
 * A subscription's `since`: a signal id of this deployment (its position), or a bar time (ISO-8601
 * or epoch ms: everything of later bars). Anything else is a 400 that says what to send.
 */
export function parseSince(since: string, deploymentId?: string): Position {
  if (since.startsWith('sig_')) {
    const position = signalPosition(since);
    if (deploymentId === undefined || !position || !since.startsWith(`sig_${deploymentId}_`)) {
      throw new BadRequestError(
        `since: ${since} is not a signal id of this channel's deployment: send the id of the last signal frame you received, or a bar time`,
      );
    }
    return position;
  }
  const ms = /^\d+$/.test(since) ? Number(since) : Date.parse(since);
  if (!Number.isFinite(ms))
    throw new BadRequestError('since: send the last signal id (sig_…) or bar time (ISO-8601 or epoch ms) you received');
  return [ms, Number.POSITIVE_INFINITY];
}

/**
 * Live frames held back while the missed ones are read from storage, then let through: the
 * live subscription opens first, so nothing falls between what storage returns and what comes
 * live; what both carry is dropped by position (`isAfter` the last one sent).
 */
export class CatchUp<T> {
  private held: T[] | null;

  constructor(
    resuming: boolean,
    private readonly deliver: (item: T) => void,
  ) {
    this.held = resuming ? [] : null;
  }

  push(item: T): void {
    if (this.held) this.held.push(item);
    else this.deliver(item);
  }

  /** Storage has been replayed: the held live frames go, then live ones as they come. */
  release(): void {
    const held = this.held ?? [];
    this.held = null;
    for (const item of held) this.deliver(item);
  }
}
