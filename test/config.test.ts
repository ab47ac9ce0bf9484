import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../src/config.ts';
import { defaultDataDir } from '../schemas/config.ts';

describe('loadConfig', () => {
  it('has the documented defaults', () => {
    const config = loadConfig({});
    assert.equal(config.PORT, 8080);
    assert.ok(!config.DATA_DIR.startsWith('.'), 'state lives outside the working directory by default');
    assert.equal(config.TRIAL_CREDITS, 50);
    assert.equal(config.TRIAL_MINTS_PER_HOUR, 5);
    assert.equal(config.RATE_LIMIT_PER_MIN, 120);
    assert.equal(config.SSE_HEARTBEAT_MS, 15_000);
    assert.equal(config.TRUST_PROXY, false);
    assert.equal(config.NATS_URL, undefined);
    assert.equal(config.CLICKHOUSE_URL, undefined);
  });

  it('keeps state outside any working tree by default: the system state directory as root, else XDG state', () => {
    assert.equal(defaultDataDir({ HOME: '/home/ann' }, 0), '/var/lib/signalforge');
    assert.equal(defaultDataDir({ HOME: '/home/ann' }, 1000), '/home/ann/.local/state/signalforge');
    assert.equal(defaultDataDir({ HOME: '/home/ann', XDG_STATE_HOME: '/srv/state' }, 1000), '/srv/state/signalforge');
    assert.equal(loadConfig({ DATA_DIR: './mine' }).DATA_DIR, './mine', 'an explicit DATA_DIR wins');
    if (process.getuid?.() !== 0)
      assert.equal(loadConfig({ HOME: '/home/bo' }).DATA_DIR, '/home/bo/.local/state/signalforge', 'the environment given decides');
  });

  it('reads and coerces the environment; empty values count as unset', () => {
    const config = loadConfig({
      PORT: '9000',
      TRUST_PROXY: 'true',
      NATS_URL: 'nats://10.0.0.5:4222',
      CLICKHOUSE_URL: '',
      TRIAL_CREDITS: '10000',
    });
    assert.equal(config.PORT, 9000);
    assert.equal(config.TRUST_PROXY, true);
    assert.equal(config.NATS_URL, 'nats://10.0.0.5:4222');
    assert.equal(config.CLICKHOUSE_URL, undefined);
    assert.equal(config.TRIAL_CREDITS, 10_000);
  });

  it('names every bad variable, its value and what is allowed', () => {
    assert.throws(
      () => loadConfig({ PORT: '70000', LOG_LEVEL: 'loud', CLICKHOUSE_URL: 'not a url', TRUST_PROXY: 'maybe' }),
      (err: unknown) => {
        assert.ok(err instanceof ConfigError);
        assert.match(err.message, /PORT="70000": .*65535/);
        assert.match(err.message, /LOG_LEVEL="loud": .*(info|debug)/);
        assert.match(err.message, /CLICKHOUSE_URL="not a url": .*http/);
        assert.match(err.message, /TRUST_PROXY="maybe"/);
        return true;
      },
    );
  });
});
