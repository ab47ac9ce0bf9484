import { createServer, connect, type AddressInfo, type Socket } from 'node:net';

/** A TCP relay to nats-server whose traffic the test can hold: a connection that stalls without breaking. */
export async function pausableProxy(natsUrl: string) {
  const target = new URL(natsUrl.replace(/^nats:/, 'http:'));
  const sockets: Socket[] = [];
  const server = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname);
    sockets.push(client, upstream);
    client.pipe(upstream);
    upstream.pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `nats://127.0.0.1:${(server.address() as AddressInfo).port}`,
    pause: () => sockets.forEach((s) => s.pause()),
    resume: () => sockets.forEach((s) => s.resume()),
    close: () => {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
}
