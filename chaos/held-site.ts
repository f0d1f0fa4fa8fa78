/**
 * A loopback site whose start page can be held back: while held, requests for `/` get no answer,
 * so a browser that loads it is surely mid-load when the test kills it or its runner.
 *
 * With `delayMs`, it is instead a slow origin: every load of `/` is answered after that fixed
 * delay (the time a slow or far-away server takes), and the site counts how many loads it was
 * answering at once, which shows whether several runners really load pages side by side.
 */
import http from 'node:http';

const PAGE = '<!doctype html><html lang="en"><head><title>Held</title></head><body><main><h1>Held</h1><p>A page.</p></main></body></html>';

export interface HeldSiteOptions {
  /** Answer every load of `/` after this many milliseconds; the site starts released. */
  delayMs?: number;
}

export interface HeldSite {
  url: string;
  /** How many times `/` was requested. */
  readonly requests: number;
  /** The most loads of `/` that were waiting for their answer at one time (since the last reset). */
  readonly mostAtOnce: number;
  /** Starts counting `mostAtOnce` afresh (from the loads waiting now). */
  resetMostAtOnce(): void;
  /** Holds the next loads of `/` back. */
  hold(): void;
  /** Answers from now on, and drops the loads held so far (their browser is gone). */
  release(): void;
  close(): Promise<void>;
}

/** Held from the start, unless `delayMs` is given (then it answers every load after the delay). */
export async function startHeldSite(options: HeldSiteOptions = {}): Promise<HeldSite> {
  const delayMs = options.delayMs ?? 0;
  let holding = options.delayMs === undefined;
  let requests = 0;
  let atOnce = 0;
  let mostAtOnce = 0;
  const waiting: http.ServerResponse[] = [];
  const answer = (res: http.ServerResponse) => {
    if (!res.destroyed) res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE);
  };
  const server = http.createServer((req, res) => {
    if (req.url !== '/') return void res.writeHead(404).end();
    requests++;
    if (holding) return void waiting.push(res);
    if (delayMs <= 0) return answer(res);
    mostAtOnce = Math.max(mostAtOnce, ++atOnce);
    const timer = setTimeout(() => answer(res), delayMs);
    // Counted until answered or dropped by the browser, whichever comes first.
    res.once('close', () => {
      clearTimeout(timer);
      atOnce--;
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/`,
    get requests() { return requests; },
    get mostAtOnce() { return mostAtOnce; },
    resetMostAtOnce() { mostAtOnce = atOnce; },
    hold() { holding = true; },
    release() {
      holding = false;
      for (const res of waiting.splice(0)) res.destroy();
    },
    close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}
