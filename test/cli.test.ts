/**
 * The `signalforge` command line as an operator meets it: `--help`/`-h` prints the command's
 * usage and exits 0 without starting anything (no NATS connection, no data directory); an
 * unknown option or command is refused with exit 2, one line naming it, and the usage. The real
 * CLI runs as a child process, its NATS_URL pointing at a listener of ours that counts the
 * connections it gets: a role that started would connect there (and hang: the test's timeout).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { EnvConfig } from '../schemas/config.ts';
import { StdioEnv } from '../src/mcp/stdio.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** A CLI that started a role instead of answering would hang here: the hang detector. */
const CLI_TIMEOUT_MS = 60_000;

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

describe('signalforge CLI', () => {
  let dir: string;
  let dataDir: string;
  let nats: Server;
  let natsUrl: string;
  let connections = 0;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sf-cli-'));
    dataDir = join(dir, 'data');
    nats = createServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((ready) => nats.listen(0, '127.0.0.1', ready));
    natsUrl = `nats://127.0.0.1:${(nats.address() as { port: number }).port}`;
  });
  after(async () => {
    await new Promise((done) => nats.close(done));
    rmSync(dir, { recursive: true, force: true });
  });

  /** `node --import tsx src/cli.ts ARGS` with NATS_URL at our counting listener and DATA_DIR not yet made. */
  function cli(args: string[]): Promise<Ran> {
    const env: NodeJS.ProcessEnv = { ...process.env, NATS_URL: natsUrl, DATA_DIR: dataDir, PORT: '0', HEALTH_PORT: '0' };
    delete env.CLICKHOUSE_URL;
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    return new Promise((done) => child.once('close', (code) => done({ code, stdout, stderr })));
  }

  /** The command names, read off the top-level usage. */
  const commandsOf = (usage: string) => {
    const list = usage.split('\ncommands:\n')[1]!.split('\n\n')[0]!;
    return list.split('\n').map((line) => line.trim().split(/\s+/)[0]!);
  };

  const nothingStarted = (what: string) => {
    assert.equal(connections, 0, `${what}: no connection to NATS_URL`);
    assert.equal(existsSync(dataDir), false, `${what}: no data directory made`);
  };

  it('--help, -h and `help` at the top level list every command and exit 0', { timeout: CLI_TIMEOUT_MS }, async () => {
    for (const args of [['--help'], ['-h'], ['help']]) {
      const ran = await cli(args);
      assert.equal(ran.code, 0, `${args.join(' ')}: ${ran.stderr}`);
      assert.match(ran.stdout, /^usage: signalforge <command>/);
      assert.equal(ran.stderr, '');
      assert.deepEqual(commandsOf(ran.stdout), [
        'serve',
        'edge',
        'trainer',
        'delivery',
        'ingest',
        'store',
        'actors',
        'import-ticks',
        'admin',
        'mcp',
      ]);
    }
    nothingStarted('top-level help');
  });

  it(
    'every command answers --help and -h with its usage, its options and its environment, and starts nothing',
    { timeout: CLI_TIMEOUT_MS * 5 },
    async () => {
      const commands = commandsOf((await cli(['--help'])).stdout);
      const known = new Set([...Object.keys(EnvConfig.shape), ...Object.keys(StdioEnv.shape)]);
      // Two at a time: each is a node start, and the machine has few cores.
      const asks = commands.flatMap((command) => ['--help', '-h'].map((flag) => [command, flag] as const));
      const answers: Ran[] = [];
      for (let i = 0; i < asks.length; i += 2) answers.push(...(await Promise.all(asks.slice(i, i + 2).map((ask) => cli([...ask])))));
      asks.forEach(([command, flag], i) => {
        const ran = answers[i]!;
        assert.equal(ran.code, 0, `${command} ${flag}: ${ran.stderr}`);
        assert.equal(ran.stderr, '', `${command} ${flag} writes nothing to stderr`);
        assert.match(ran.stdout, new RegExp(`^usage: signalforge ${command}\\b`), `${command} ${flag}`);
        assert.match(ran.stdout, /\noptions:\n[^]*-h, --help/, `${command} ${flag} lists its options`);
        const env = ran.stdout.split('\nenvironment:\n')[1];
        assert.ok(env, `${command} ${flag} names its environment`);
        for (const name of env
          .trim()
          .split('\n')
          .map((line) => line.trim().split(/\s+/)[0]!)) {
          assert.ok(known.has(name), `${command}: ${name} is a setting the service reads`);
        }
      });
      // Help wins over the rest of the line, and `help <command>` is the same text.
      const edge = await cli(['edge', '--help']);
      assert.deepEqual(await cli(['edge', '--bogus', '-h']), edge);
      assert.deepEqual(await cli(['help', 'edge']), edge);
      assert.match(edge.stdout, /NATS_URL/);
      nothingStarted("every command's help");
    },
  );

  it(
    "an unknown option is refused with exit 2, a line naming it and the command's usage on stderr",
    { timeout: CLI_TIMEOUT_MS },
    async () => {
      for (const command of ['edge', 'serve', 'store', 'mcp']) {
        const ran = await cli([command, '--bogus']);
        assert.equal(ran.code, 2, `${command} --bogus`);
        assert.equal(ran.stdout, '');
        const [first, blank, usage] = ran.stderr.split('\n');
        assert.equal(first, `signalforge ${command}: Unknown option '--bogus'`);
        assert.equal(blank, '');
        assert.match(usage!, new RegExp(`^usage: signalforge ${command}\\b`));
      }
      const extra = await cli(['trainer', 'now']);
      assert.equal(extra.code, 2);
      assert.match(extra.stderr, /^signalforge trainer: Unexpected argument 'now'\n\nusage: signalforge trainer/);
      nothingStarted('refused options');
    },
  );

  it(
    'an unknown command or top-level option is refused with exit 2 and the list of commands; no command at all too',
    { timeout: CLI_TIMEOUT_MS },
    async () => {
      const unknown = await cli(['edges']);
      assert.equal(unknown.code, 2);
      assert.match(unknown.stderr, /^signalforge: unknown command "edges"\n\nusage: signalforge <command>/);
      const option = await cli(['--verbose', 'edge']);
      assert.equal(option.code, 2);
      assert.match(option.stderr, /^signalforge: unknown option --verbose .*\n\nusage: signalforge <command>/);
      const none = await cli([]);
      assert.equal(none.code, 2);
      assert.match(none.stderr, /^signalforge: a command is needed\n\nusage: signalforge <command>/);
      const helpUnknown = await cli(['help', 'edges']);
      assert.equal(helpUnknown.code, 2);
      assert.match(helpUnknown.stderr, /^signalforge: unknown command "edges"/);
      nothingStarted('refused commands');
    },
  );
});
