/**
 * A second process that publishes ticks on NATS `ticks.<SYMBOL>` as fast as the server takes
 * them, as JSON arrays of `batch` ticks (the high-rate form of the wire format), round-robin
 * over the symbols, for `seconds`. Prints `{"published": n}` on stdout when done.
 * Usage: node --import tsx tick-publisher.ts <natsUrl> <seconds> <batch>
 */
import { connect } from '@nats-io/transport-node';
import { SYMBOLS } from '../../../schemas/common.ts';
import { INSTRUMENTS } from '../../../src/market/instruments.ts';
import { Subjects } from '../../../schemas/messages.ts';

const [url, secondsArg, batchArg] = process.argv.slice(2);
const seconds = Number(secondsArg);
const batch = Number(batchArg);
const nc = await connect({ servers: url! });
const state = SYMBOLS.map((symbol) => ({
  symbol,
  subject: Subjects.ticks(symbol),
  price: INSTRUMENTS[symbol].synthetic.price,
  step: INSTRUMENTS[symbol].pipSize / 10,
  digits: INSTRUMENTS[symbol].digits,
  ts: Date.now() - 60 * 86_400_000,
}));
const end = Date.now() + seconds * 1000;
let published = 0;
let i = 0;
while (Date.now() < end) {
  for (let k = 0; k < 200; k++) {
    const s = state[i++ % state.length]!;
    let text = '[';
    for (let j = 0; j < batch; j++) {
      s.ts += 1 + ((j * 7919) % 400);
      s.price += (((j * 104729 + s.ts) % 7) - 3) * s.step;
      const bid = s.price.toFixed(s.digits);
      const ask = (s.price + 2 * s.step).toFixed(s.digits);
      text += `${j ? ',' : ''}{"ts":${s.ts},"bid":${bid},"ask":${ask}}`;
    }
    nc.publish(s.subject, `${text}]`);
    published += batch;
  }
  // Let the connection drain: the server applies back-pressure through the socket.
  await nc.flush();
}
await nc.drain();
process.stdout.write(JSON.stringify({ published }));
