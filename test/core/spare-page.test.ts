/**
 * A runner's spare browser context and page (SparePage, core/gather/guarded-context.ts): opened as
 * a page load ends, taken by the next load; never used for another browser or guard, closed with
 * its browser, and gone when the runner stops.
 */
import { readFileSync } from 'node:fs';
import net from 'node:net';
import type { Browser, BrowserContext, Page } from 'puppeteer-core';
import t from 'tap';
import { findChromium } from '../../core/config.js';
import { gather } from '../../core/gather/gather.js';
import { SparePage, openGuardedContext } from '../../core/gather/guarded-context.js';
import { discoverPlugins, PluginRegistry } from '../../core/registry.js';
import { queueRun } from '../../core/store/runs.js';
import { BrowserPool, ConnectedBrowserPool } from '../../runners/browser-pool.js';
import { startWorker } from '../../runners/worker.js';
import { buildTestApi } from '../helpers/api.js';
import { LIGHT_LOAD, testBrowserPool } from '../helpers/fixture-artifacts.js';
import { ShareChromium } from '../helpers/shared-chromium.js';
import { suiteTrust, testWorld } from '../helpers/world/index.js';

const world = await testWorld();
const site = await world.site('reserv.test', { handler: (_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><html lang="sv"><title>Reserv</title><h1>Reserv</h1></html>') });
t.teardown(() => site.close());
const guard = world.guard([site.origin]);

/** The browser's contexts other than its default one. */
function ownContexts(browser: Browser): BrowserContext[] {
  return browser.browserContexts().filter((c) => c !== browser.defaultBrowserContext());
}

/** The one context other than `except` once it has its page open (the spare opens in the background). */
async function openedSpare(browser: Browser, except: readonly BrowserContext[] = []): Promise<{ context: BrowserContext; page: Page }> {
  const until = Date.now() + 15_000;
  for (;;) {
    const contexts = ownContexts(browser).filter((c) => !except.includes(c));
    if (contexts.length === 1) {
      const pages = await contexts[0].pages();
      if (pages.length === 1) return { context: contexts[0], page: pages[0] };
    }
    if (Date.now() > until) throw new Error(`no spare opened: ${contexts.length} contexts`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function refusesConnections(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), hostname);
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

t.test('a load ends by opening the spare, and the next load takes it', async (t) => {
  const browser = await testBrowserPool().acquire();
  const before = ownContexts(browser);
  const spare = new SparePage();
  t.teardown(() => spare.close());

  const first = await gather(site.url, { browser, guard, spare, needs: LIGHT_LOAD });
  t.equal(first.mainDocument.status, 200);
  const opened = await openedSpare(browser, before);
  t.equal(opened.page.url(), 'about:blank', 'the spare page waits on about:blank');

  const navigated: string[] = [];
  opened.page.on('framenavigated', (frame) => {
    if (frame === opened.page.mainFrame()) navigated.push(frame.url());
  });
  const second = await gather(site.url, { browser, guard, spare, needs: LIGHT_LOAD });
  t.equal(second.mainDocument.status, 200);
  t.ok(navigated.includes(site.url), `the second load was made in the spare page (it went to ${navigated.join(', ')})`);
  t.equal(opened.page.isClosed(), true, 'and closed with its context when the load ended');
  const next = await openedSpare(browser, before);
  t.not(next.context, opened.context, 'a new spare is opened for the load after');

  await spare.close();
  t.same(ownContexts(browser), before, 'closing the spare closes its context');
  // What a load does as it ends: a closed spare opens nothing.
  spare.prepare(browser, guard);
  await new Promise((r) => setTimeout(r, 500));
  t.same(ownContexts(browser), before, 'a closed spare opens nothing more');
});

t.test('a spare made for another guard or browser is closed, not used', async (t) => {
  const browser = await testBrowserPool().acquire();
  const before = ownContexts(browser);
  const spare = new SparePage();
  t.teardown(() => spare.close());
  spare.prepare(browser, guard);
  const opened = await openedSpare(browser, before);

  const other = world.guard([site.origin]);
  const taken = await spare.take(browser, other);
  t.teardown(() => taken.close());
  t.equal(opened.page.isClosed(), true, 'the spare of the first guard is closed');
  t.not(taken.page, opened.page, 'the load gets a page of its own');
  t.equal(taken.page.url(), 'about:blank');

  // Another browser: the pool launched a new one.
  spare.prepare(browser, guard);
  const again = await openedSpare(browser, [...before, taken.context]);
  const pool = new BrowserPool(findChromium(process.env.CHROMIUM_PATH), null, suiteTrust().chromiumArgs);
  t.teardown(() => pool.close());
  const otherBrowser = await pool.acquire();
  const elsewhere = await spare.take(otherBrowser, guard);
  t.teardown(() => elsewhere.close());
  t.equal(again.page.isClosed(), true, 'the spare in the first browser is closed');
  t.equal(elsewhere.page.browser(), otherBrowser, 'the page is opened in the browser asked for');
});

t.test('a spare whose browser went away is closed, its guard proxy with it', async (t) => {
  const pool = new BrowserPool(findChromium(process.env.CHROMIUM_PATH), null, suiteTrust().chromiumArgs);
  t.teardown(() => pool.close());
  const browser = await pool.acquire();
  const spare = new SparePage();
  t.teardown(() => spare.close());
  const servers = () => process.getActiveResourcesInfo().filter((r) => r === 'TCPServerWrap').length;
  spare.prepare(browser, guard);
  await openedSpare(browser);
  // The proxy the spare's context goes through: the one listening port Chromium was given.
  const taken = await spare.take(browser, guard);
  t.equal(taken.page.url(), 'about:blank');
  const proxyUrl = taken.proxy.url;
  t.equal(await refusesConnections(proxyUrl), false, 'the proxy of a taken spare listens');
  await taken.close();

  await new Promise((r) => setTimeout(r, 200));
  const listening = servers();
  spare.prepare(browser, guard);
  await openedSpare(browser);
  t.equal(servers(), listening + 1, 'the spare\'s guard proxy listens');
  const gone = new Promise((r) => browser.once('disconnected', r));
  browser.process()!.kill('SIGKILL');
  await gone;
  await new Promise((r) => setTimeout(r, 200));
  t.equal(servers(), listening, 'and is closed when its browser goes away');
  const relaunched = await pool.acquire();
  t.not(relaunched, browser, 'the pool launched a new Chromium');
  const fresh = await spare.take(relaunched, guard);
  t.teardown(() => fresh.close());
  t.equal(fresh.page.browser(), relaunched, 'the next load gets a page in the new browser');
  t.equal(fresh.page.url(), 'about:blank');
});

t.test('a runner opens the spare after its job, and closes it when it stops', async (t) => {
  const { db, url } = await buildTestApi(t);
  const browser = await testBrowserPool().acquire();
  const before = ownContexts(browser);
  const registry = new PluginRegistry((await discoverPlugins()).filter((p) => p.meta.id === 18));
  const worker = await startWorker({ db, connectionString: url, pool: testBrowserPool(), guard, registry, concurrency: 1, jobTimeoutMs: 120_000, schedule: false });
  let stopped = false;
  t.teardown(() => (stopped ? undefined : worker.stop()));
  const siteId = (await db.insertInto('sites').values({ title: 'Reserv', url: site.url }).returning('id').executeTakeFirstOrThrow()).id;
  const runId = await queueRun(db, { siteId, url: site.url, testTypes: [18] });
  const until = Date.now() + 120_000;
  for (;;) {
    const run = await db.selectFrom('test_runs').select(['status', 'error']).where('id', '=', runId).executeTakeFirstOrThrow();
    if (run.status === 'done' || run.status === 'failed') {
      t.equal(run.status, 'done', run.error ?? '');
      break;
    }
    if (Date.now() > until) throw new Error(`run ${runId} still ${run.status}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const { page } = await openedSpare(browser, before);
  t.equal(page.url(), 'about:blank', 'the next job\'s page is open');
  await worker.stop();
  stopped = true;
  t.same(ownContexts(browser), before, 'and closed when the runner stops');
});

t.test("a share's Chromium (test/run.ts): lent to a file's pool, swept of what a file left open, launched again after it died", async (t) => {
  const share = new ShareChromium();
  t.teardown(() => share.close());
  const endpoint = await share.lend();
  t.match(endpoint, /^ws:\/\/127\.0\.0\.1:\d+\/devtools\/browser\//);
  t.equal(await share.lend(), endpoint, 'the same Chromium for the next file while it lives');

  // A file's pool connects to it (no launch of its own) and lets it run on when the file ends.
  const lent = new ConnectedBrowserPool(endpoint);
  const browser = await lent.acquire();
  t.equal(lent.launches, 0, 'nothing launched in the file');
  const left = await browser.createBrowserContext();
  await left.newPage();
  await lent.close();
  t.equal(browser.connected, false, 'the file let go of it');
  // A page load on a browser let go of: refused, and the guard proxy it had started is closed.
  const listening = process.getActiveResourcesInfo().filter((r) => r === 'TCPServerWrap').length;
  await t.rejects(openGuardedContext(browser, guard), /Connection closed/);
  await new Promise((r) => setImmediate(r)); // a closed server's handle goes in the loop's next turn
  t.equal(process.getActiveResourcesInfo().filter((r) => r === 'TCPServerWrap').length, listening, 'no guard proxy left listening');

  const { default: puppeteer } = await import('puppeteer-core');
  const look = async () => {
    const b = await puppeteer.connect({ browserWSEndpoint: endpoint });
    const own = ownContexts(b).length;
    await b.disconnect();
    return own;
  };
  t.equal(await look(), 1, 'the context the file left open is still there');
  await share.lend(); // the next file's turn
  t.equal(await look(), 0, 'the share closed it before the next file');

  // Gone (a file closed or crashed it): the next file gets a new one.
  const pid = share.pid!;
  const b = await puppeteer.connect({ browserWSEndpoint: endpoint });
  await b.close();
  const running = () => { try { return !readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z'); } catch { return false; } };
  while (running()) await new Promise((r) => setTimeout(r, 50));
  const next = await share.lend();
  t.not(next, endpoint, 'a new Chromium, at a new address');
  const again = new ConnectedBrowserPool(next);
  t.teardown(() => again.close());
  t.equal((await again.acquire()).connected, true, 'and a file connects to it');
});

t.test("a browser context opens no renderer of Chromium's own UI (CHROMIUM_ARGS)", async (t) => {
  // Chromium 156 would open its address bar's drop-down (chrome://omnibox-popup.top-chrome/) in a
  // renderer for each context, headless too: a process per page load that shows nothing.
  const browser = await testBrowserPool().acquire();
  const context = await browser.createBrowserContext();
  t.teardown(() => context.close());
  const page = await context.newPage();
  await page.goto('data:text/html,<h1>Sida</h1>');
  // Targets appear as Chromium reports them: the page's own is there, so would the popup's be.
  t.equal(await page.$eval('h1', (h) => h.textContent), 'Sida');
  const own = browser.targets().filter((target) => target.url().startsWith('chrome://')).map((target) => target.url());
  t.strictSame(own, [], 'no chrome:// page beside the tested ones');
});
