import type { Actor } from './actor.ts';
import { LeaseHost, type LeaseHostDeps, type Running } from './lease-host.ts';

/** An actor host's deps: a lease host's, whose holders are fed actors. */
export type ActorHostDeps<S, M> = LeaseHostDeps<S, Actor<M>>;

/**
 * Runs one fed actor per desired spec across hosts (a LeaseHost: same claims, heartbeat,
 * hand-over and restarts) and hands them messages: `dispatch` to every running actor whose spec
 * matches, `dispatchTo` one by id. A message that arrives while the actor starts is kept (the
 * latest one) and handed over once it runs. A `handle` that throws faults the actor: it is
 * stopped and started again after a backoff.
 */
export class ActorHost<S, M> extends LeaseHost<S, Actor<M>> {
  /** The latest message that arrived while an actor was starting: handed over once it runs. */
  private readonly missed = new WeakMap<Running<S, Actor<M>>, M>();

  /** Hands a message to the running actor of `id`, if this host runs it. */
  dispatchTo(id: string, message: M): void {
    const run = this.running.get(id);
    if (run) this.deliver(id, run, message);
  }

  /** Hands a message to every running actor whose spec `to` accepts. */
  dispatch(message: M, to: (spec: S) => boolean): void {
    for (const [id, run] of this.running) if (to(run.spec)) this.deliver(id, run, message);
  }

  private deliver(id: string, run: Running<S, Actor<M>>, message: M): void {
    if (run.started) void this.feed(id, run, message);
    else if (run.starting) this.missed.set(run, message);
  }

  protected override onStarted(id: string, run: Running<S, Actor<M>>): void {
    if (!this.missed.has(run)) return;
    const missed = this.missed.get(run)!;
    this.missed.delete(run);
    void this.feed(id, run, missed);
  }

  private async feed(id: string, run: Running<S, Actor<M>>, message: M): Promise<void> {
    const actor = run.holder;
    try {
      await actor?.handle(message);
      if (run.holder === actor) run.failures = 0;
    } catch (err) {
      if (run.holder === actor && run.started) this.fault(id, run, err);
    }
  }
}
