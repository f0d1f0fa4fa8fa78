/**
 * A webhook receiver on loopback that answers every delivery 204 and counts them: for tests and
 * benches that need deliveries to succeed and to know how many arrived.
 */
import http from 'node:http';

export interface WebhookReceiver {
  /** `http://127.0.0.1:<port>/hook`. */
  url: string;
  received(): number;
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  let received = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received++;
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`,
    received: () => received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
