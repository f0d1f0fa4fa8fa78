/**
 * A loopback site whose start page can be held back: while held, requests for `/` get no answer,
 * so a browser that loads it is surely mid-load when the test kills it or its runner.
 */
import http from 'node:http';

const PAGE = '<!doctype html><html lang="en"><head><title>Held</title></head><body><main><h1>Held</h1><p>A page.</p></main></body></html>';

export interface HeldSite {
  url: string;
  /** How many times `/` was requested. */
  readonly requests: number;
  /** Holds the next loads of `/` back. */
  hold(): void;
  /** Answers from now on, and drops the loads held so far (their browser is gone). */
  release(): void;
  close(): Promise<void>;
}

export async function startHeldSite(): Promise<HeldSite> {
  let holding = true;
  let requests = 0;
  const waiting: http.ServerResponse[] = [];
  const server = http.createServer((req, res) => {
    if (req.url !== '/') return void res.writeHead(404).end();
    requests++;
    if (holding) return void waiting.push(res);
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/`,
    get requests() { return requests; },
    hold() { holding = true; },
    release() {
      holding = false;
      for (const res of waiting.splice(0)) res.destroy();
    },
    close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}
