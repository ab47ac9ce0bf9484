/**
 * One sandbox process (a zygote, or a feature session) and the messages to and from it, one
 * request at a time. A zygote answers a job with relayed pieces of the child's answer and then
 * `done` (or a failure of its own); a session answers each request with one message. Either may
 * send the job's own output first (job-output.ts): a failed job's error shows it, nothing else does.
 *
 * The process's own stderr holds only the runtime's messages (each job writes to a pipe of its
 * own): it goes to the operators' log when the process exits, never into a job's error.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { JobFailure, type JobFailureKind } from '../../schemas/sandbox.ts';
import type { Logger } from '../log.ts';
import { wallBackstops, watchdogMs } from './job-clock.ts';
import { OutputHeader, withOutput, type JobOutput } from './job-output.ts';
import { MessageReader, ProtocolError, byteLength, encodeMessage, type Message } from './protocol.ts';

/** Which limit of its clock a job reached (job-clock.ts): its CPU budget, the idle backstop, or the wall ceiling. */
export type JobLimit = 'cpu' | 'idle' | 'wall';

export class StrategyJobError extends Error {
  override name = 'StrategyJobError';
  constructor(
    readonly kind: JobFailureKind,
    message: string,
    /** Set when the job ended at a limit of its clock. */
    readonly limit?: JobLimit,
  ) {
    super(message);
  }
}

interface Pending {
  resolve(message: Message): void;
  reject(err: Error): void;
  watchdog: NodeJS.Timeout;
  /** The child's answer, reassembled from relayed pieces (zygote jobs). */
  relay?: MessageReader;
  answer?: Message;
  broken?: string;
  /** The job's own stdout and stderr, when it wrote any. */
  output?: JobOutput;
}

/** Of the runtime's own stderr, what the operators' log keeps when it exits. */
const STDERR_KEPT = 4_000;

export class SandboxProcess {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly reader: MessageReader;
  private current: Pending | null = null;
  readonly ready: Promise<void>;
  readonly exited: Promise<void>;
  busy = false;
  dead = false;
  /** CPU seconds the last zygote job used, as the zygote measured it (null: not measured). */
  jobCpuS: number | null = null;
  private stopping = false;

  constructor(command: [string, string[]], onExit: (p: SandboxProcess) => void, log: Logger) {
    // Its own process group: a signal to the service's group does not reach it before Node
    // decides; Node ends it (and bubblewrap ends everything inside with it).
    this.child = spawn(command[0], command[1], { stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    let markReady!: () => void;
    let failReady!: (err: Error) => void;
    this.ready = new Promise((resolve, reject) => ((markReady = resolve), (failReady = reject)));
    this.ready.catch(() => undefined);
    this.current = { resolve: () => markReady(), reject: failReady, watchdog: setTimeout(() => undefined, 0) };
    this.reader = new MessageReader((m) => this.receive(m));
    this.child.stdout.on('data', (chunk: Buffer) => {
      try {
        this.reader.push(chunk);
      } catch (err) {
        log.error({ err }, 'strategy runtime wrote outside its protocol; killing it');
        this.child.kill('SIGKILL');
      }
    });
    let stderr = '';
    this.child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-STDERR_KEPT)));
    this.child.stdin.on('error', () => undefined); // EPIPE once it died: the exit handler reports
    let markExited!: () => void;
    this.exited = new Promise((resolve) => (markExited = resolve));
    this.child.on('exit', (code, signal) => {
      this.dead = true;
      markExited();
      this.child.stdin.destroy();
      // What it said on stderr is the runtime's, for operators: the job's error says only that it died.
      const err = new StrategyJobError(
        'crash',
        `the strategy runtime process exited (${code ?? signal}) while running the strategy; try again`,
      );
      this.settle((p) => p.reject(err));
      if (!this.stopping) log.warn({ code, signal, stderr: stderr.trim() || undefined }, 'strategy runtime process exited');
      onExit(this);
    });
  }

  private receive(message: Message): void {
    const pending = this.current;
    if (!pending) return;
    const h = message.header;
    if (h.output === true) {
      const output = OutputHeader.safeParse(h);
      if (output.success) {
        const { bytes, dropped, head } = output.data;
        pending.output = { excerpt: message.payload, bytes, dropped, head: head ?? message.payload.length };
      }
      return;
    }
    if (h.relay === true) {
      if (!pending.relay) {
        pending.relay = new MessageReader((answer) => {
          if (pending.answer) throw new ProtocolError('more than one answer');
          pending.answer = answer;
        });
      }
      if (pending.broken) return;
      try {
        pending.relay.push(message.payload);
      } catch (err) {
        pending.broken = (err as Error).message;
      }
      return;
    }
    // The zygote's own last word on a job (done, or its failure) says what the job cost.
    this.jobCpuS = typeof h.cpu_s === 'number' && h.cpu_s >= 0 ? h.cpu_s : null;
    if (h.done === true) {
      const answer = pending.answer;
      // Which clock limit ended a job is the zygote's word, not the job's own answer's.
      const { budget: _claimed, ...header } = answer?.header ?? {};
      if (answer && !pending.broken) this.settle((p) => p.resolve(withJobOutput({ ...answer, header }, p.output)));
      else
        this.settle((p) =>
          p.reject(
            new StrategyJobError('crash', withOutput(`the strategy's answer was malformed: ${pending.broken ?? 'incomplete'}`, p.output)),
          ),
        );
      return;
    }
    this.settle((p) => p.resolve(withJobOutput(message, p.output)));
  }

  private settle(how: (p: Pending) => void): void {
    const pending = this.current;
    this.current = null;
    this.busy = false;
    if (!pending) return;
    clearTimeout(pending.watchdog);
    how(pending);
  }

  private send(parts: Buffer[], watchdogMs: number): Promise<Message> {
    this.busy = true;
    return new Promise((resolve, reject) => {
      const watchdog = setTimeout(() => this.child.kill('SIGKILL'), watchdogMs);
      this.current = { resolve, reject, watchdog };
      for (const part of parts) this.child.stdin.write(part);
    });
  }

  /** A session request: one message in, one out. */
  request(header: Record<string, unknown>, payload: Buffer, watchdogMs: number): Promise<Message> {
    return this.send(encodeMessage(header, payload), watchdogMs);
  }

  /**
   * A zygote job: the control message, then the job message, which the zygote splices to a
   * child without reading it. Resolves with the child's answer or the zygote's failure message.
   * `control.timeout_ms` is the job's CPU budget; its wall-clock backstops go with it, and the
   * watchdog waits for them (job-clock.ts) whatever shorter one the caller asks.
   */
  job(control: Record<string, unknown>, job: Buffer[], watchdog: number): Promise<Message> {
    const budget = typeof control.timeout_ms === 'number' ? control.timeout_ms : 30_000;
    const header = { ...wallBackstops(budget), ...control, job_bytes: byteLength(job) };
    this.jobCpuS = null;
    return this.send([...encodeMessage(header), ...job], Math.max(watchdog, watchdogMs(budget)));
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  stop(): void {
    this.stopping = true;
    this.child.stdin.end();
    this.child.kill('SIGKILL');
  }
}

/** A failure with the job's own output appended to its error; any other message as it is. */
function withJobOutput(message: Message, output: JobOutput | undefined): Message {
  const { ok, error } = message.header;
  if (ok !== false || typeof error !== 'string' || !output) return message;
  return { ...message, header: { ...message.header, error: withOutput(error, output) } };
}

/** The message's header when it says ok, else the failure as a StrategyJobError. */
export function okHeader(message: Message): Record<string, unknown> {
  if (message.header.ok === true) return message.header;
  const failure = JobFailure.safeParse(message.header);
  const limit = message.header.budget;
  if (failure.success)
    throw new StrategyJobError(
      failure.data.kind,
      failure.data.error,
      limit === 'cpu' || limit === 'idle' || limit === 'wall' ? limit : undefined,
    );
  throw new StrategyJobError('crash', `the strategy runtime answered out of shape: ${JSON.stringify(message.header).slice(0, 300)}`);
}
