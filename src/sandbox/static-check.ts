/**
 * The static checks on strategy code, before anything runs it: the AST check (check.py, under
 * Debian's python, stdlib only) and the strategy_config() schema. Both answer with every
 * violation at once, each with line, col and a one-line fix hint.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { CheckResult, StrategyConfig, type StaticViolation } from '../../schemas/strategy.ts';
import { UnavailableError } from '../errors.ts';
import { ALL_WALLS, sandboxCommand, sandboxSettings } from './jail-command.ts';

/** Larger code is refused without spawning: real strategies are a few KB. */
export const MAX_CODE_BYTES = 200 * 1024;
const CHECK_TIMEOUT_MS = 10_000;
const MAX_OUTPUT_BYTES = 4 * 1024 * 1024;
/** The generated JSON Schema the Python runtime validates strategy_config() with. */
export const STRATEGY_CONFIG_SCHEMA_FILE = fileURLToPath(new URL('./python/strategy_config.schema.json', import.meta.url));

/**
 * Runs the AST check on `code`. Resolves with the violations (ok iff none); rejects with
 * UnavailableError only when the checker itself cannot answer (missing python, timeout).
 */
export async function checkStrategyCode(code: string): Promise<CheckResult> {
  const bytes = Buffer.byteLength(code, 'utf8');
  if (bytes > MAX_CODE_BYTES) {
    return fail({
      line: 1,
      col: 1,
      rule: 'too-large',
      message: `code is ${bytes} bytes; the limit is ${MAX_CODE_BYTES}`,
      hint: 'keep the strategy short: only the two functions',
    });
  }
  const stdout = await runChecker(code);
  let parsed: unknown;
  try {
    parsed = JSON.parse(stdout);
  } catch {
    throw new UnavailableError(`strategy checker answered with invalid JSON: ${stdout.slice(0, 200)}`);
  }
  const result = CheckResult.safeParse(parsed);
  if (!result.success) throw new UnavailableError(`strategy checker answered out of shape: ${result.error.message}`);
  return result.data;
}

/**
 * Validates what strategy_config() returned. Violations carry the key path in `message`;
 * line/col are 0 because the value has no source position once it has been returned.
 */
export function checkStrategyConfig(value: unknown): CheckResult {
  const parsed = StrategyConfig.safeParse(value);
  if (parsed.success) return { ok: true, violations: [] };
  const violations = parsed.error.issues.map((issue) => {
    const path = issue.path.length ? issue.path.join('.') : '(config)';
    return { line: 0, col: 0, rule: 'config', message: `${path}: ${issue.message}`, hint: hintFor(path) };
  });
  return { ok: false, violations };
}

/** The JSON Schema of StrategyConfig, single-sourced from the zod schema. */
export function strategyConfigJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(StrategyConfig, { io: 'input' }) as Record<string, unknown>;
}

function hintFor(path: string): string {
  if (path.startsWith('model_params')) return 'see the allowed model_params and bounds for this model_type';
  if (path === '(config)') return 'return a dict with exactly the keys of the contract table';
  return `set ${path} as the contract's strategy_config table describes`;
}

function fail(v: StaticViolation): CheckResult {
  return { ok: false, violations: [v] };
}

function runChecker(code: string): Promise<string> {
  return new Promise((resolve, reject) => {
    // The checker parses hostile text, so it runs sandboxed like a job (and confines itself to a
    // uid of its own and the seccomp filter before reading it). -S: no site imports (stdlib only).
    let command: [string, string[]];
    try {
      command = sandboxCommand('check.py', [], sandboxSettings(), ALL_WALLS, ['-I', '-S']);
    } catch (err) {
      return reject(new UnavailableError((err as Error).message));
    }
    const child = spawn(command[0], command[1], { stdio: ['pipe', 'pipe', 'pipe'], env: { LANG: 'C.UTF-8' } });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let size = 0;
    const timer = setTimeout(() => child.kill('SIGKILL'), CHECK_TIMEOUT_MS);
    child.stdout.on('data', (b: Buffer) => {
      size += b.length;
      if (size > MAX_OUTPUT_BYTES) child.kill('SIGKILL');
      else out.push(b);
    });
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(new UnavailableError(`cannot start the strategy checker (${command[0]}): ${e.message}`));
    });
    child.on('close', (status, signal) => {
      clearTimeout(timer);
      if (status === 0) return resolve(Buffer.concat(out).toString('utf8'));
      const why = signal ? `killed by ${signal} (timeout ${CHECK_TIMEOUT_MS} ms or output too large)` : `exit ${status}`;
      reject(new UnavailableError(`strategy checker failed: ${why}: ${Buffer.concat(err).toString('utf8').slice(-500)}`));
    });
    // The child may exit before reading everything (e.g. killed); ignore EPIPE on stdin.
    child.stdin.on('error', () => {});
    child.stdin.end(code, 'utf8');
  });
}

// `node --import tsx src/sandbox/static-check.ts --write-schema` regenerates the JSON Schema file.
if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv.includes('--write-schema')) {
  writeFileSync(STRATEGY_CONFIG_SCHEMA_FILE, `${JSON.stringify(strategyConfigJsonSchema(), null, 2)}\n`);
  process.stdout.write(`wrote ${STRATEGY_CONFIG_SCHEMA_FILE}\n`);
}
