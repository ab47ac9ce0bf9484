import type { Logger } from '../log.ts';
import { withDeadline } from './deadline.ts';

export type ShutdownStep = () => Promise<unknown> | unknown;

/** What one step of a shutdown may take before the next one goes regardless (SHUTDOWN_STEP_MS). */
export const DEFAULT_STEP_MS = 5_000;

/** A step's name in the log: its function name, else its source (`() => trainer.stop()` reads well). */
const label = (step: ShutdownStep): string =>
  step.name ||
  String(step)
    .replace(/^(async\s*)?\(\)\s*=>\s*/, '')
    .replace(/\s+/g, ' ')
    .slice(0, 80);

/**
 * The parts of a running role, stopped in reverse order of start. Every step has a deadline:
 * a step that hangs (a dead dependency, a request that never ends) is logged and left behind,
 * so a stop always reaches the last steps (the store, then the embedded NATS).
 */
export class ShutdownStack {
  private readonly steps: ShutdownStep[] = [];

  constructor(
    private readonly log: Logger,
    private readonly stepMs = DEFAULT_STEP_MS,
  ) {}

  /** Adds a step (run before every step pushed earlier). */
  push(step: ShutdownStep): void {
    this.steps.push(step);
  }

  /** Runs every step once, latest first; never throws. */
  async unwind(): Promise<void> {
    for (const step of this.steps.splice(0).reverse()) {
      try {
        await withDeadline(step(), this.stepMs, `shutdown step "${label(step)}"`);
      } catch (err) {
        this.log.error({ err: (err as Error).message, step: label(step) }, 'error while shutting down; going on');
      }
    }
  }
}
