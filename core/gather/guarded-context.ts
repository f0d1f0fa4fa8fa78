/**
 * A browser context for one guarded page load: Chromium's every connection goes through a guard
 * proxy of its own (core/net/guard-proxy.ts), loopback included (`<-loopback>` removes Chromium's
 * implicit loopback bypass), so no request of the page reaches an address the guard refuses.
 */
import type { Browser, BrowserContext } from 'puppeteer-core';
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
