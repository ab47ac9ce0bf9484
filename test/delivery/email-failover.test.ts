/**
 * E-mail delivery across a delivery process killed (SIGKILL) while its relay refuses with 451
 * (try again later): two `signalforge delivery` processes on one real nats-server share the
 * deployments by lease; the holder dies between retries; the survivor takes every deployment over
 * once the leases expire and mails each signal exactly once, in order, when the relay accepts again.
 * (A process killed after the relay accepted a message but before it stored that may have it
 * mailed twice, with the same Message-ID — see the delivery README.)
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { EmailAddresses } from '../../src/accounts/index.ts';
import { connectBus, ensureStream, openBucket, startEmbeddedNats, type Bus, type EmbeddedNats, type JsonKv } from '../../src/bus/index.ts';
import type { DeploymentRecord, SignalEvent } from '../../schemas/live.ts';
import { Buckets, Streams } from '../../schemas/messages.ts';
import { startRole } from '../helpers/role-process.ts';
import { startSmtpStandIn, type SmtpStandIn } from '../helpers/smtp-stand-in.ts';
import { deploy, log, publish, signal, waitFor } from './harness.ts';

describe('email delivery across a killed delivery process', () => {
  let dir: string;
  let nats: EmbeddedNats;
  let bus: Bus;
  let deployments: JsonKv<typeof Buckets.deployments.schema>;
  let smtp: SmtpStandIn;
  const children: ChildProcess[] = [];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sf-email-failover-'));
    nats = await startEmbeddedNats({ bin: 'nats-server', storeDir: join(dir, 'nats'), log });
    bus = await connectBus(nats.url, 'email-failover-test', log);
    await ensureStream(bus, Streams.signals);
    deployments = await openBucket(bus, Buckets.deployments);
    smtp = await startSmtpStandIn();
  });
  after(async () => {
    for (const c of children) c.kill('SIGKILL');
    await smtp?.stop();
    await bus?.close();
    await nats?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('killed while its relay says try again later: every signal is mailed once, in order, by the survivor', { timeout: 120_000 }, async () => {
    const addresses = await EmailAddresses.open(bus);
    const deployed: DeploymentRecord[] = [];
    for (let i = 0; i < 3; i++) {
      const address = `trader${i}@example.com`;
      const { token } = await addresses.register(7100 + i, address, 'http://127.0.0.1:1');
      await addresses.confirm(token);
      deployed.push(await deploy({ deployments }, { userId: 7100 + i, channels: ['email'], extra: { email_to: address } }));
    }
    // The relay refuses everything until told otherwise: the holder keeps retrying.
    smtp.refuseNext(451, 100_000);
    const env = { SMTP_URL: smtp.url, WEBHOOK_RETRY_BASE_MS: '200', WEBHOOK_RETRY_MAX_MS: '400', PUBLIC_URL: 'https://signals.example' };
    const first = startRole('delivery', nats.url, env);
    children.push(first.child);
    const firstHost = (await first.running()).host as string;
    const leases = await openBucket(bus, Buckets.leases);
    const holders = async () => Promise.all(deployed.map(async (d) => (await leases.get(`delivery.${d.deployment_id}`))?.value.host ?? null));
    await waitFor(async () => (await holders()).every((h) => h === firstHost), 20_000, 'every deployment claimed by the first process');
    const second = startRole('delivery', nats.url, env);
    children.push(second.child);
    const secondHost = (await second.running()).host as string;

    const published = new Map<string, SignalEvent[]>(deployed.map((d) => [d.deployment_id, [signal(d, 0), signal(d, 1)]]));
    for (const events of published.values()) for (const e of events) await publish(bus, e);
    const refused = (address: string) => smtp.replies.some((r) => r.to.includes(address) && r.code === 451);
    await waitFor(() => deployed.every((d) => refused(d.email_to!)), 20_000, 'every deployment’s first mail refused for now');
    assert.equal(smtp.received.length, 0, 'nothing accepted yet');
    // Whoever holds more deployments now dies without a goodbye, between retries.
    const now = await holders();
    const doomed = now.filter((h) => h === firstHost).length >= now.filter((h) => h === secondHost).length ? first : second;
    doomed.child.kill('SIGKILL');
    await doomed.exited;
    smtp.acceptAgain();

    await waitFor(() => smtp.received.length >= deployed.length * 2, 60_000, 'every signal mailed');
    await new Promise((r) => setTimeout(r, 1_000));
    for (const d of deployed) {
      const ids = published.get(d.deployment_id)!.map((e) => `<${e.id}@signalforge>`);
      assert.deepEqual(smtp.to(d.email_to!).map((m) => m.headers['message-id']), ids, `${d.email_to}: each once, in order`);
    }
    const survivor = doomed === first ? secondHost : firstHost;
    assert.ok((await holders()).every((h) => h === survivor), 'the survivor holds every deployment');
  });
});
