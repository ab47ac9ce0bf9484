/**
 * A second process that publishes ticks on NATS `ticks.<SYMBOL>` at a steady `rate` (ticks/s;
 * 0 = as fast as the server takes them), as JSON arrays of `batch` ticks (the high-rate form of
 * the wire format), round-robin over the symbols, for `seconds`. Prints `{"published": n}`.
 * Usage: node --import tsx tick-publisher.ts <natsUrl> <seconds> <batch> <rate>
 */
import { connect } from '@nats-io/transport-node';
import { SYMBOLS } from '../../../schemas/common.ts';
import { INSTRUMENTS } from '../../../src/lib/instruments.ts';
import { Subjects } from '../../../schemas/messages.ts';

const [url, secondsArg, batchArg, rateArg] = process.argv.slice(2);
const seconds = Number(secondsArg);
const batch = Number(batchArg);
const rate = Number(rateArg ?? 0);
const nc = await connect({ servers: url! });
// Prices are kept as integer quote points and printed with integer arithmetic only: the
// publisher shares the machine with the service, so it must cost as little CPU as it can.
const state = SYMBOLS.map((symbol) => {
  const digits = INSTRUMENTS[symbol].digits;
  return {
    subject: Subjects.ticks(symbol),
    scale: 10 ** digits,
    digits,
    points: Math.round(INSTRUMENTS[symbol].synthetic.price * 10 ** digits),
    ts: Date.now() - 60 * 86_400_000,
  };
});
const price = (points: number, scale: number, digits: number) =>
  `${Math.floor(points / scale)}.${String(points % scale).padStart(digits, '0')}`;
const start = Date.now();
const end = start + seconds * 1000;
let published = 0;
let i = 0;
while (Date.now() < end) {
  // Paced: never ahead of rate × elapsed time (checked every 10 messages).
  if (rate > 0 && published >= (rate * (Date.now() - start)) / 1000) {
    await new Promise((r) => setTimeout(r, 2));
    continue;
  }
  for (let k = 0; k < 10; k++) {
    const s = state[i++ % state.length]!;
    let text = '[';
    for (let j = 0; j < batch; j++) {
      s.ts += 1 + ((j * 7919) % 400);
      s.points += ((j * 104729 + s.ts) % 7) - 3;
      text += `${j ? ',' : ''}{"ts":${s.ts},"bid":${price(s.points, s.scale, s.digits)},"ask":${price(s.points + 20, s.scale, s.digits)}}`;
    }
    nc.publish(s.subject, `${text}]`);
    published += batch;
  }
  // Let the connection drain: the server applies back-pressure through the socket.
  await nc.flush();
}
await nc.drain();
process.stdout.write(JSON.stringify({ published }));
