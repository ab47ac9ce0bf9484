/**
 * mintTrial, the one way a trial account is minted (the REST route and hosted MCP both call it):
 * a handle first, then the per-IP mint slot, and a refused mint gives the handle back.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { AccountDirectory } from '../../src/accounts/directory.ts';
import { CreditLedger } from '../../src/accounts/credits.ts';
import { MintLimiter } from '../../src/accounts/mint-limiter.ts';
import { mintTrial, type TrialMintParts } from '../../src/accounts/trial.ts';
import { connectBus, openBucket, startEmbeddedNats, type Bus, type EmbeddedNats, type JsonKv } from '../../src/bus/index.ts';
import { MintLimitedError, UsernameTakenError } from '../../src/errors.ts';
import { createLogger } from '../../src/log.ts';
import { Buckets } from '../../schemas/messages.ts';
import { type UsernameRecord } from '../../schemas/account-records.ts';

const log = createLogger('silent');
let dir: string;
let nats: EmbeddedNats;
let bus: Bus;
let usernames: JsonKv<typeof UsernameRecord>;
let directory: AccountDirectory;
let parts: TrialMintParts;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sf-trial-'));
  nats = await startEmbeddedNats({ bin: process.env.NATS_SERVER_BIN ?? 'nats-server', storeDir: join(dir, 'nats'), log });
  bus = await connectBus(nats.url, 'test-trial', log);
  const [users, apiKeys, sessions, counters, credits, mintWindows] = await Promise.all([
    openBucket(bus, Buckets.users),
    openBucket(bus, Buckets.apiKeys),
    openBucket(bus, Buckets.sessions),
    openBucket(bus, Buckets.counters),
    openBucket(bus, Buckets.credits),
    openBucket(bus, Buckets.mintWindows),
  ]);
  usernames = await openBucket(bus, Buckets.usernames);
  directory = new AccountDirectory({ users, usernames, apiKeys, sessions, counters }, log);
  await directory.start();
  const ledger = new CreditLedger(credits);
  parts = { directory, mintLimiter: new MintLimiter(mintWindows, 2), metering: { grant: (...args) => ledger.grant(...args) } };
});

after(async () => {
  directory?.stop();
  await bus?.close();
  await nats?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The user id holding a handle, or null when it is free. */
const holder = async (handle: string) => (await usernames.get(handle.toLowerCase()))?.value.user_id ?? null;

describe('mintTrial', () => {
  it('creates a trial account with its key, its session and the trial credits', async () => {
    const minted = await mintTrial(parts, { ip: '192.0.2.1', username: 'Alice', device: 'Firefox on Linux', credits: 50 });
    assert.equal(minted.user.username, 'Alice');
    assert.equal(minted.user.is_trial, true);
    assert.equal(minted.credits, 50);
    assert.ok(minted.apiKey && minted.sessionToken);
    assert.equal(await holder('alice'), minted.user.user_id);
    assert.equal(directory.get(minted.user.user_id)?.username, 'Alice');
  });

  it('gives an auto handle when no username is asked for', async () => {
    const minted = await mintTrial(parts, { ip: '192.0.2.2', credits: 50 });
    assert.match(minted.user.username, /^[a-z]+-[a-z]+-\d{2}$/);
    assert.equal(await holder(minted.user.username), minted.user.user_id);
  });

  it('refuses a taken username without spending a mint slot', async () => {
    const ip = '192.0.2.3';
    await assert.rejects(mintTrial(parts, { ip, username: 'alice', credits: 50 }), UsernameTakenError);
    await mintTrial(parts, { ip, credits: 50 });
    await mintTrial(parts, { ip, credits: 50 });
    await assert.rejects(mintTrial(parts, { ip, credits: 50 }), MintLimitedError, 'the 409 spent no slot: two mints, then the limit');
  });

  it('gives back the handle of a mint the limit refused, asked for or automatic', async () => {
    const ip = '192.0.2.4';
    await mintTrial(parts, { ip, credits: 50 });
    await mintTrial(parts, { ip, credits: 50 });
    await assert.rejects(mintTrial(parts, { ip, username: 'ivan', credits: 50 }), MintLimitedError);
    assert.equal(await holder('ivan'), null, 'the asked-for handle is free again');
    const reserved: string[] = [];
    const spy: TrialMintParts = {
      ...parts,
      directory: {
        createTrial: (...args) => directory.createTrial(...args),
        reserveTrial: async (username) => {
          const reservation = await directory.reserveTrial(username);
          reserved.push(reservation.username);
          return reservation;
        },
      },
    };
    await assert.rejects(mintTrial(spy, { ip, credits: 50 }), MintLimitedError);
    assert.equal(reserved.length, 1);
    assert.equal(await holder(reserved[0]!), null, 'the auto handle is free again');
  });
});
