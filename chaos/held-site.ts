/**
 * A fixture site whose start page can be held back: while held, requests for `/` get no answer,
 * so a browser that loads it is surely mid-load when the test kills it or its runner. It is a
 * host of a test world (test/helpers/world): `https://<name>/` on port 443 under a name the
 * world's DNS server answers, HTTP/2 by ALPN, a certificate from the suite's CA.
 *
 * With `delayMs`, it is instead a slow origin: every load of `/` is answered after that fixed
 * delay (the time a slow or far-away server takes), and the site counts how many loads it was
 * answering at once, which shows whether several runners really load pages side by side.
 */
import type { ServerResponse } from 'node:http';
import type { World } from '../test/helpers/world/index.js';

const PAGE = '<!doctype html><html lang="en"><head><title>Held</title></head><body><main><h1>Held</h1><p>A page.</p></main></body></html>';

export interface HeldSiteOptions {
  /** Answer every load of `/` after this many milliseconds; the site starts released. */
  delayMs?: number;
  /** Its host name in the world (default `held.test`). */
  name?: string;
}

export interface HeldSite {
  /** `https://<name>/`. */
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
export async function startHeldSite(world: World, options: HeldSiteOptions = {}): Promise<HeldSite> {
  const delayMs = options.delayMs ?? 0;
  let holding = options.delayMs === undefined;
  let requests = 0;
  let atOnce = 0;
  let mostAtOnce = 0;
  const waiting: ServerResponse[] = [];
  // Answers over HTTP/2 (node:http2's compatibility API) and HTTP/1.1 alike; an answer whose
  // stream the browser has closed meanwhile is not written.
  const closed = new WeakSet<ServerResponse>();
  const answer = (res: ServerResponse) => {
    if (!closed.has(res)) res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE);
  };
  const site = await world.site(options.name ?? 'held.test', {
    handler: (req, res) => {
      if (req.url !== '/') return void res.writeHead(404).end();
      requests++;
      res.once('close', () => closed.add(res));
      if (holding) return void waiting.push(res);
      if (delayMs <= 0) return answer(res);
      mostAtOnce = Math.max(mostAtOnce, ++atOnce);
      const timer = setTimeout(() => answer(res), delayMs);
      // Counted until answered or dropped by the browser, whichever comes first.
      res.once('close', () => {
        clearTimeout(timer);
        atOnce--;
      });
    },
  });
  return {
    url: site.url,
    get requests() { return requests; },
    get mostAtOnce() { return mostAtOnce; },
    resetMostAtOnce() { mostAtOnce = atOnce; },
    hold() { holding = true; },
    release() {
      holding = false;
      for (const res of waiting.splice(0)) res.destroy();
    },
    close: () => site.close(),
  };
}
