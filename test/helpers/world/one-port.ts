/**
 * A UDP and a TCP server on one port number, as a DNS server on port 53: UDP takes a free port, TCP
 * the same; should another process hold that number for TCP (seen with four test files at once),
 * both are given back and another is tried.
 */
import type net from 'node:net';

interface UdpServer {
  bind(port: number, host: string, done: () => void): unknown;
  address(): { port: number };
  close(): unknown;
}

export async function onOnePort<U extends UdpServer, T extends net.Server>(makeUdp: () => U, makeTcp: () => T, attempts = 20): Promise<{ udp: U; tcp: T; port: number }> {
  for (let attempt = 1; attempt <= attempts; attempt++) {
    const udp = makeUdp();
    await new Promise<void>((resolve) => udp.bind(0, '127.0.0.1', () => resolve()));
    const port = udp.address().port;
    const tcp = makeTcp();
    const listening = await new Promise<boolean>((resolve) => {
      const failed = () => resolve(false);
      tcp.once('error', failed);
      tcp.listen(port, '127.0.0.1', () => {
        tcp.off('error', failed);
        resolve(true);
      });
    });
    if (listening) return { udp, tcp, port };
    udp.close();
  }
  throw new Error('no port was free for both UDP and TCP');
}
