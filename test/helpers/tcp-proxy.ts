/**
 * A TCP proxy on loopback in front of a server (PostgreSQL), which a test can make unreachable in
 * the two ways a database goes away: `refuse` (connections reset at once, as a stopped server's
 * port answers) and `hold` (connections accepted and never answered, as a hung server or a network
 * that drops packets), and bring back with `pass`. Switching ends every connection open through it.
 */
import net from 'node:net';

export type ProxyMode = 'pass' | 'refuse' | 'hold';

export interface TcpProxy {
  port: number;
  /** `url` with its host and port replaced by the proxy's. */
  urlThrough(url: string): string;
  set(mode: ProxyMode): void;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }, t: { teardown(fn: () => unknown): void }): Promise<TcpProxy> {
  let mode: ProxyMode = 'pass';
  const open = new Set<net.Socket>();
  const server = net.createServer((client) => {
    open.add(client);
    client.on('close', () => open.delete(client));
    client.on('error', () => {});
    if (mode === 'refuse') return void client.resetAndDestroy();
    // Held: read and dropped, never answered.
    if (mode === 'hold') return void client.resume();
    const upstream = net.connect(target.port, target.host);
    open.add(upstream);
    upstream.on('close', () => open.delete(upstream));
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  const close = async () => {
    for (const s of open) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  t.teardown(close);
  return {
    port,
    urlThrough(url: string) {
      const u = new URL(url);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.href;
    },
    set(next: ProxyMode) {
      mode = next;
      for (const s of open) s.destroy();
    },
    close,
  };
}
