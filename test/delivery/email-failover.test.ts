/**
 * E-mail delivery across a delivery process killed (SIGKILL) while its relay refuses with 451
 * (try again later): two `signalforge delivery` processes on one real nats-server share the
 * deployments by lease; the holder dies between retries; the survivor takes every deployment over
 * once the leases expire and mails each signal exactly once, in order, when the relay accepts again.
 * (A process killed after the relay accepted a message but before it stored that may have it
 * mailed twice, with the same Message-ID — see the delivery README.)
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { EmailAddresses } from '../../src/accounts/index.ts';
import type { DeploymentRecord, SignalEvent } from '../../schemas/live.ts';
import { startSmtpStandIn, type SmtpStandIn } from '../helpers/smtp-stand-in.ts';
import { deploy, publish, signal, waitFor } from './harness.ts';
import { processCluster, twoProcesses } from './process-cluster.ts';

describe('email delivery across a killed delivery process', () => {
  const cluster = processCluster('email-failover');
  let smtp: SmtpStandIn;
  before(async () => {
    smtp = await startSmtpStandIn();
  });
  after(async () => {
    await smtp?.stop();
  });

  it(
    'killed while its relay says try again later: every signal is mailed once, in order, by the survivor',
    { timeout: 120_000 },
    async () => {
      const addresses = await EmailAddresses.open(cluster.bus);
      const deployed: DeploymentRecord[] = [];
      for (let i = 0; i < 3; i++) {
        const address = `trader${i}@example.com`;
        const { token } = await addresses.register(7100 + i, address, 'http://127.0.0.1:1');
        await addresses.confirm(token);
        deployed.push(await deploy(cluster, { userId: 7100 + i, channels: ['email'], extra: { email_to: address } }));
      }
      // The relay refuses everything until told otherwise: the holder keeps retrying.
      smtp.refuseNext(451, 100_000);
      const env = { SMTP_URL: smtp.url, WEBHOOK_RETRY_BASE_MS: '200', WEBHOOK_RETRY_MAX_MS: '400', PUBLIC_URL: 'https://signals.example' };
      const processes = await twoProcesses(cluster, deployed, env, true);

      const published = new Map<string, SignalEvent[]>(deployed.map((d) => [d.deployment_id, [signal(d, 0), signal(d, 1)]]));
      for (const events of published.values()) for (const e of events) await publish(cluster.bus, e);
      const refused = (address: string) => smtp.replies.some((r) => r.to.includes(address) && r.code === 451);
      await waitFor(() => deployed.every((d) => refused(d.email_to!)), 20_000, 'every deployment’s first mail refused for now');
      assert.equal(smtp.received.length, 0, 'nothing accepted yet');
      // Whoever holds more deployments now dies without a goodbye, between retries.
      const survivor = await processes.killBusier();
      smtp.acceptAgain();

      await waitFor(() => smtp.received.length >= deployed.length * 2, 60_000, 'every signal mailed');
      await new Promise((r) => setTimeout(r, 1_000));
      for (const d of deployed) {
        const ids = published.get(d.deployment_id)!.map((e) => `<${e.id}@signalforge>`);
        assert.deepEqual(
          smtp.to(d.email_to!).map((m) => m.headers['message-id']),
          ids,
          `${d.email_to}: each once, in order`,
        );
      }
      assert.ok(
        (await processes.holders()).every((h) => h === survivor),
        'the survivor holds every deployment',
      );
    },
  );
});
