/**
 * Drives `signalforge import-ticks` as a user would: real child processes, the real OANDA EURUSD
 * tick file from the shared data, first with no service running (the CLI opens the store
 * itself), then with one running on the data directory (the CLI hands the import to it over
 * NATS, found through DATA_DIR/run.json, and the running service's bar cache must reload).
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { serveChild, shutdownChild, stopChild, type ChildService } from '../helpers/child-service.ts';
import { runCli } from '../helpers/cli.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DATA = '../shared/data/fx/lean_quotes_2014-05-01_09/normalized';
const TICKS = `${DATA}/oanda_EURUSD_ticks_2014-05-01_2014-05-09.csv.gz`;
const M1 = `${DATA}/oanda_EURUSD_m1_2014-05-01_2014-05-09.csv.gz`;
const TICK_COUNT = 321_559;

/** `signalforge import-ticks ARGS` as a child process. */
const importTicks = (dataDir: string, args: string[]) => runCli(dataDir, ['import-ticks', ...args]);

/** The vendor's own 1-minute bid bars (bar open, UTC). */
function vendorM1(): Array<{ timestamp: string; open: number; high: number; low: number; close: number }> {
  const lines = gunzipSync(readFileSync(resolve(ROOT, M1)))
    .toString('utf8')
    .trim()
    .split('\n');
  const header = lines[0]!.split(',');
  const at = (name: string) => header.indexOf(name);
  const [t, o, h, l, c] = ['ts_utc', 'bid_open', 'bid_high', 'bid_low', 'bid_close'].map(at) as [number, number, number, number, number];
  return lines.slice(1).map((line) => {
    const f = line.split(',');
    return { timestamp: new Date(f[t]!).toISOString(), open: Number(f[o]), high: Number(f[h]), low: Number(f[l]), close: Number(f[c]) };
  });
}

const SUMMARY = new RegExp(
  `${TICK_COUNT} rows, ${TICK_COUNT} ticks imported, 0 bad 2014-05-01T00:00:00\\.292Z → 2014-05-09T20:59:58\\.835Z`,
);
const REBUILT = new RegExp(`EURUSD: bars rebuilt 2014-05-01T00:00:00\\.000Z → 2014-05-09T21:00:00\\.000Z from ${TICK_COUNT} stored ticks`);

describe('signalforge import-ticks', () => {
  const dirs: string[] = [];
  const tempDir = (prefix: string) => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    dirs.push(dir);
    return dir;
  };

  before(() => assert.ok(existsSync(resolve(ROOT, TICKS)), `the shared tick file ${TICKS} is missing`));
  after(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  describe('with no service running', () => {
    let dataDir: string;
    before(() => {
      dataDir = tempDir('sf-import-');
    });

    it('imports the OANDA file, prints the counts, and a second run stores no duplicates', async () => {
      const first = await importTicks(dataDir, ['--symbol', 'EURUSD', '--format', 'csv', TICKS]);
      assert.equal(first.code, 0, first.stderr);
      assert.match(first.stdout, SUMMARY);
      assert.match(first.stdout, REBUILT);
      assert.ok(existsSync(join(dataDir, 'clickhouse')), 'the CLI opened the store in DATA_DIR itself');
      assert.ok(!existsSync(join(dataDir, 'run.json')), 'and no service was involved');

      const again = await importTicks(dataDir, ['--symbol', 'EURUSD', '--format', 'csv', TICKS]);
      assert.equal(again.code, 0, again.stderr);
      assert.match(again.stdout, SUMMARY, 'every row read and written again');
      assert.match(again.stdout, REBUILT, `still ${TICK_COUNT} distinct ticks stored in the span, not twice as many`);
    });

    it('refuses bad arguments with exit code 2 and says which', async () => {
      const format = await importTicks(dataDir, ['--symbol', 'EURUSD', '--format', 'metatrader', TICKS]);
      assert.equal(format.code, 2);
      assert.match(format.stderr, /bad arguments/);
      assert.match(format.stderr, /--format: .*"dukascopy"\|"histdata"\|"truefx"\|"csv"/);
      assert.match(format.stderr, /usage: signalforge/);
      assert.equal(format.stdout, '');

      const symbol = await importTicks(dataDir, ['--format', 'csv', TICKS]);
      assert.equal(symbol.code, 2);
      assert.match(symbol.stderr, /--symbol: .*"EURUSD"/);

      const noFile = await importTicks(dataDir, ['--symbol', 'EURUSD', '--format', 'csv']);
      assert.equal(noFile.code, 2);
      assert.match(noFile.stderr, /FILE: /);

      // An option it does not know: the parser's sentence and the usage, no stack.
      const unknown = await importTicks(dataDir, ['--symbol', 'EURUSD', '--from', '2014-05-01', TICKS]);
      assert.equal(unknown.code, 2);
      assert.match(unknown.stderr, /^signalforge import-ticks: Unknown option '--from'/);
      assert.match(unknown.stderr, /usage: signalforge/);
      assert.doesNotMatch(unknown.stderr, /\n\s+at /, 'no stack trace');

      const help = await importTicks(dataDir, ['--help']);
      assert.equal(help.code, 0);
      assert.match(help.stdout, /import-ticks/);
    });

    it('a missing file fails (exit 1) with a one-line message naming it', async () => {
      const missing = join(dataDir, 'no-such-ticks.csv.gz');
      const res = await importTicks(dataDir, ['--symbol', 'EURUSD', '--format', 'csv', missing]);
      assert.equal(res.code, 1);
      assert.equal(res.stderr, `signalforge: ${missing}: no such file: check the path\n`);
      assert.equal(res.stdout, '');
    });

    it('reports bad rows by line number (header = line 1) and imports the good ones', async () => {
      const file = join(tempDir('sf-import-bad-'), 'EURUSD_bad_rows.csv');
      writeFileSync(
        file,
        [
          'ts_utc,bid,ask', //                            1 header
          '2014-05-12T00:00:00.100Z,1.37000,1.37010', //  2 good
          '2014-05-12T00:00:01.100Z,1.37001,1.37011', //  3 good
          'this is not a tick', //                        4 wrong number of columns
          '2014-05-12T00:00:02.100Z,abc,1.37012', //      5 price not a number
          '', //                                          6 blank: ignored
          '2014-05-12T00:00:03.100Z,1.37005,0', //        7 ask not positive
          '2014-05-12T00:00:00.500Z,1.37003,1.37013', //  8 earlier than the previous good tick (line 3)
          '2014-05-12 00:00:04,1.37003,1.37013', //       9 no time zone
          '2014-05-12T00:00:05.100Z,1.37004,1.37014', // 10 good
          '',
        ].join('\n'),
      );
      const res = await importTicks(dataDir, ['--symbol', 'EURUSD', '--format', 'csv', file]);
      assert.equal(res.code, 0, res.stderr);
      assert.match(res.stdout, /: 8 rows, 3 ticks imported, 5 bad 2014-05-12T00:00:00\.100Z → 2014-05-12T00:00:05\.100Z/);
      const bad = [...res.stdout.matchAll(/^ {2}line (\d+): (.*)$/gm)].map((m) => [Number(m[1]), m[2]!] as const);
      assert.deepEqual(
        bad.map(([line]) => line),
        [4, 5, 7, 8, 9],
        res.stdout,
      );
      // Each with its reason and the line itself.
      assert.match(bad[0]![1], /columns.*: this is not a tick$/);
      assert.match(bad[1]![1], /^bid .*: 2014-05-12T00:00:02\.100Z,abc,1\.37012$/);
      assert.match(bad[2]![1], /^ask 0 .*: 2014-05-12T00:00:03\.100Z,1\.37005,0$/);
      assert.match(bad[3]![1], /backwards.*2014-05-12T00:00:01\.100Z.*sort/);
      assert.match(bad[4]![1], /zone.*: 2014-05-12 00:00:04,1\.37003,1\.37013$/);
      assert.match(res.stdout, /EURUSD: bars rebuilt 2014-05-12T00:00:00\.000Z → 2014-05-12T01:00:00\.000Z from 3 stored ticks/);
    });
  });

  describe('with a service running on the data directory', () => {
    let dataDir: string;
    let service: ChildService;
    before(async () => {
      dataDir = tempDir('sf-import-live-');
      service = await serveChild(dataDir, { env: { MARKET_FEED: 'none' } });
    });
    after(async () => {
      // Still running when a test failed: SIGTERM stops its nats-server too (SIGKILL would orphan it).
      if (service) await shutdownChild(service);
    });

    it('hands the import to the service, whose /ohlc then serves the bars: equal to the vendor’s own M1 bars', async () => {
      const minted = await fetch(`${service.url}/api/v1/key/trial`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      assert.equal(minted.status, 200);
      const { api_key: key } = (await minted.json()) as { api_key: string };
      const ohlc = async () => {
        const res = await fetch(`${service.url}/api/v1/ohlc?symbol=EURUSD&timeframe=1min&start=2014-05-01&end=2014-05-09&limit=5000`, {
          headers: { 'x-api-key': key },
        });
        assert.equal(res.status, 200);
        return (await res.json()) as { source: string; count: number; candles: Array<Record<string, number | string>> };
      };
      // Read first, so the service holds the (empty) series in its cache: the import must make it reload.
      const before = await ohlc();
      assert.equal(before.count, 0);
      assert.equal(before.source, 'none');
      assert.ok(existsSync(join(dataDir, 'run.json')), 'the service announces itself in DATA_DIR/run.json');

      const res = await importTicks(dataDir, ['--symbol', 'EURUSD', '--format', 'csv', TICKS]);
      assert.equal(res.code, 0, res.stderr);
      assert.match(res.stdout, SUMMARY);
      assert.match(res.stdout, REBUILT);
      const imported = service.lines.filter((l) => l.includes('"msg":"tick file imported"')).map((l) => JSON.parse(l));
      assert.equal(imported.length, 1, 'the running service did the import');
      assert.equal(imported[0].pid, service.child.pid);
      assert.equal(imported[0].imported, TICK_COUNT);

      const after = await ohlc();
      assert.equal(after.source, 'import');
      assert.equal(after.count, 5000);
      const vendor = vendorM1();
      assert.equal(vendor.length, 9552);
      after.candles.forEach((candle, i) => {
        const { volume, ...bar } = candle;
        assert.deepEqual(bar, vendor[i], `bar ${i}`);
        assert.ok(Number.isInteger(volume) && (volume as number) >= 1, 'volume: the tick count (OANDA gives no volumes)');
      });

      // A file the service cannot read: the CLI fails with the service's message.
      const missing = await importTicks(dataDir, ['--symbol', 'EURUSD', '--format', 'csv', join(dataDir, 'nope.csv')]);
      assert.equal(missing.code, 1);
      assert.equal(missing.stderr, `signalforge: ${join(dataDir, 'nope.csv')}: no such file: check the path\n`);

      await stopChild(service);
      assert.ok(!existsSync(join(dataDir, 'run.json')), 'the run file is removed on the way out');
    });
  });
});
