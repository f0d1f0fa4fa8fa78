/**
 * A browser context for one guarded page load: Chromium's every connection goes through a guard
 * proxy of its own (core/net/guard-proxy.ts), loopback included (`<-loopback>` removes Chromium's
 * implicit loopback bypass), so no request of the page reaches an address the guard refuses.
 */
import type { Browser, BrowserContext, Page } from 'puppeteer-core';
import type { NetworkRecord } from '../plugin-api.js';
import { startGuardProxy, type GuardProxy } from '../net/guard-proxy.js';
import type { TargetGuard } from '../net/target-guard.js';

export interface GuardedContext {
  context: BrowserContext;
  proxy: GuardProxy;
  /** Closes the context, then the proxy; never throws. */
  close(): Promise<void>;
}

export async function openGuardedContext(browser: Browser, guard: TargetGuard): Promise<GuardedContext> {
  const proxy = await startGuardProxy(guard);
  let context: BrowserContext;
  try {
    context = await browser.createBrowserContext({ proxyServer: proxy.url, proxyBypassList: ['<-loopback>'] });
  } catch (err) {
    await proxy.close();
    throw err;
  }
  return {
    context,
    proxy,
    close: async () => {
      await context.close().catch(() => {});
      await proxy.close();
    },
  };
}

/** A guarded context with the page a load will use, open in it. */
export interface GuardedPage extends GuardedContext {
  page: Page;
}

export async function openGuardedPage(browser: Browser, guard: TargetGuard): Promise<GuardedPage> {
  const guarded = await openGuardedContext(browser, guard);
  try {
    return { ...guarded, page: await guarded.context.newPage() };
  } catch (err) {
    await guarded.close();
    throw err;
  }
}

/**
 * One guarded context with its page, opened ahead of the next page load: a runner opens it as a
 * load ends, while the plugins rate and the results are stored, and the next load takes it.
 * Opening a context and its page is a quarter of a second of Chromium's work before every load
 * (measured on this 2-core machine: 0.25–0.35 s), which a bare Lighthouse run pays too but a
 * runner testing page after page need not wait for. A spare is for one browser and one guard: one
 * made for another, or whose browser went away, is closed and a new context opened instead. At
 * most one is kept; with several loads at once, the others open their own.
 */
export class SparePage {
  private next: { browser: Browser; guard: TargetGuard; opening: Promise<GuardedPage | null>; gone: () => void } | null = null;
  private closed = false;

  /** The spare, when it was made for this browser and guard and is still open; else a new one. */
  async take(browser: Browser, guard: TargetGuard): Promise<GuardedPage> {
    const next = this.release();
    if (next) {
      const ready = await next.opening;
      if (ready && next.browser === browser && next.guard === guard && browser.connected && !ready.page.isClosed()) return ready;
      await ready?.close();
    }
    return openGuardedPage(browser, guard);
  }

  /** Opens the spare for the next load, unless one is kept already; never throws. */
  prepare(browser: Browser, guard: TargetGuard): void {
    if (this.closed || this.next || !browser.connected) return;
    const opening = openGuardedPage(browser, guard).catch(() => null);
    // Its browser went away (a crash, the pool closing it): the proxy is closed with the context.
    const gone = () => {
      if (this.next?.opening === opening) this.release();
      void opening.then((g) => g?.close());
    };
    browser.once('disconnected', gone);
    this.next = { browser, guard, opening, gone };
  }

  /** Closes the spare kept, if any; none is opened after this. */
  async close(): Promise<void> {
    this.closed = true;
    await (await this.release()?.opening)?.close();
  }

  private release() {
    const next = this.next;
    this.next = null;
    next?.browser.off('disconnected', next.gone);
    return next;
  }
}

/**
 * Chromium reports the proxy as every request's remote address; the address the proxy connected
 * to for that host is the one the records (and the plugins reading them) mean.
 */
export function remoteAddressesFromProxy(network: NetworkRecord[], proxy: GuardProxy): void {
  const proxyHost = new URL(proxy.url).hostname;
  for (const rec of network) {
    if (rec.remoteAddress !== proxyHost) continue;
    let url: URL;
    try {
      url = new URL(rec.url);
    } catch {
      continue;
    }
    const port = url.port ? Number(url.port) : url.protocol === 'https:' || url.protocol === 'wss:' ? 443 : 80;
    rec.remoteAddress = proxy.connectedAddress(url.hostname, port) ?? '';
  }
}
