/**
 * One process of WebSocket clients for the ws-stream bench: opens `count` connections to
 * GET /api/v1/predict (X-API-Key), subscribes each to one bars channel, and records when each
 * bar frame arrives (epoch ms, sub-millisecond, comparable across processes on one machine).
 * Driven over IPC: { start } → { ready }, { report } → { report }.
 */
import WebSocket from 'ws';

interface Start {
  type: 'start';
  url: string;
  key: string;
  count: number;
  symbol: string;
  timeframe: string;
}

const now = () => performance.timeOrigin + performance.now();
/** Bar open time → arrival times of its frame, one per socket. */
const arrivals = new Map<number, number[]>();
const sockets: WebSocket[] = [];

function open(start: Start): Promise<void> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(start.url, { headers: { 'x-api-key': start.key }, perMessageDeflate: false });
    sockets.push(ws);
    ws.on('error', reject);
    ws.on('close', (code) => reject(new Error(`closed ${code}`)));
    ws.on('message', (data) => {
      const text = data.toString();
      if (text.startsWith('{"type":"bar"')) {
        const at = now();
        const ts = Number(/"ts":(\d+)/.exec(text)?.[1]);
        let list = arrivals.get(ts);
        if (!list) arrivals.set(ts, (list = []));
        list.push(at);
        return;
      }
      const m = JSON.parse(text) as { type: string };
      if (m.type === 'welcome')
        ws.send(JSON.stringify({ type: 'subscribe', channel: { channel: 'bars', symbol: start.symbol, timeframe: start.timeframe } }));
      else if (m.type === 'subscribed') resolve();
      else if (m.type === 'error') reject(new Error(text));
    });
  });
}

process.on('message', async (msg: { type: string } & Partial<Start>) => {
  if (msg.type === 'start') {
    const start = msg as Start;
    // A few hundred handshakes at a time: the edge accepts them as fast as it can, no faster.
    const batch = 200;
    try {
      for (let i = 0; i < start.count; i += batch) {
        await Promise.all(Array.from({ length: Math.min(batch, start.count - i) }, () => open(start)));
      }
      process.send!({ type: 'ready', connected: sockets.length });
    } catch (err) {
      process.send!({ type: 'failed', error: String(err) });
    }
  } else if (msg.type === 'report') {
    process.send!({ type: 'report', arrivals: [...arrivals.entries()] });
  } else if (msg.type === 'stop') {
    for (const ws of sockets) ws.terminate();
    process.exit(0);
  }
});
