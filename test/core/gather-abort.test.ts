/**
 * The gather step stops when its signal aborts (a job's time limit, a runner shutting down): it
 * rejects with the signal's reason at once, and its browser context, with the page and whatever
 * Lighthouse was doing in it, is closed. Its own time limit gives a coded TIMEOUT error.
 */
import type http from 'node:http';
import t from 'tap';
import { gather } from '../../core/gather/gather.js';
import { testBrowserPool } from '../helpers/fixture-artifacts.js';
import { testWorld } from '../helpers/world/index.js';

t.test('an aborted gather rejects with the reason and closes its browser context', async (t) => {
  let arrived!: () => void;
  const requested = new Promise<void>((r) => (arrived = r));
  const held: http.ServerResponse[] = [];
  // A page that never answers: the gather is surely still loading when it is stopped.
  const world = await testWorld();
  const site = await world.site('haller-inne.test', {
    handler: (req, res) => {
      if (req.url === '/') {
        held.push(res);
        arrived();
        return;
      }
      res.writeHead(404).end();
    },
  });
  t.teardown(() => site.close());
  const url = site.url;
  t.equal(url, 'https://haller-inne.test/');
  const guard = world.guard([site.origin]);
  const browser = await testBrowserPool().acquire();
  const contextsBefore = browser.browserContexts().length;

  const controller = new AbortController();
  const loading = gather(url, { browser, guard, signal: controller.signal });
  await requested;
  t.equal(browser.browserContexts().length, contextsBefore + 1, 'the gather has its own context');
  const reason = new Error('the runner stops');
  controller.abort(reason);
  await t.rejects(loading, reason);
  t.equal(browser.browserContexts().length, contextsBefore, 'its context is closed');
  t.equal(held.length, 1, 'the page was requested once');

  await t.rejects(gather(url, { browser, guard, timeoutMs: 1_000 }), {
    code: 'TIMEOUT',
    message: 'Loading the page took longer than 1000 ms',
  });
  t.equal(browser.browserContexts().length, contextsBefore, 'a timed-out gather closes its context too');
});
