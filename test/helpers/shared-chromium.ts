/**
 * One Chromium per share of the suite (test/run.ts), lent to the test files the share runs one
 * after the other: a file's testBrowserPool() connects to it (WEBPERF_TEST_CHROMIUM_WS) instead of
 * launching a Chromium of its own, which cost each file about a second of wall and CPU time (the
 * browser, its zygotes and its network service starting, and Debian's wrapper script). Each page
 * load still has a browser context and a guard proxy of its own (core/gather/guarded-context.ts);
 * before each file the share closes whatever contexts the file before left open, so no file sees
 * another's pages. A file that tests Chromium itself (its launch, a crash, another CA) launches its own with
 * `new BrowserPool(...)`, as before.
 */
import type { ChildProcess } from 'node:child_process';
import { findChromium } from '../../core/config.js';
import { CHROMIUM_ARGS, PROTOCOL_TIMEOUT_MS } from '../../runners/browser-pool.js';
import { suiteTrust } from './world/index.js';

/** A share's Chromium: launched on first use, launched again when it has died. */
export class ShareChromium {
  private running: Promise<{ endpoint: string; process: ChildProcess | null }> | null = null;
  /** The pid of the Chromium lent last (for tests). */
  pid: number | undefined;

  /**
   * The endpoint of a live Chromium for the next file, with the browser contexts the file before
   * left open closed (their pages with them). One connection tells both: a Chromium that does not
   * take it (gone, or closing) is launched anew.
   */
  async lend(): Promise<string> {
    const current = await this.running?.catch(() => null);
    if (current?.process && current.process.exitCode === null && current.process.signalCode === null) {
      const { default: puppeteer } = await import('puppeteer-core');
      const browser = await puppeteer.connect({ browserWSEndpoint: current.endpoint, protocolTimeout: PROTOCOL_TIMEOUT_MS }).catch(() => null);
      if (browser) {
        try {
          await Promise.all(browser.browserContexts().filter((c) => c !== browser.defaultBrowserContext()).map((c) => c.close().catch(() => {})));
        } finally {
          await browser.disconnect();
        }
        return current.endpoint;
      }
    }
    this.running = this.launch();
    return (await this.running).endpoint;
  }

  private async launch() {
    const { default: puppeteer } = await import('puppeteer-core');
    const browser = await puppeteer.launch({
      executablePath: findChromium(process.env.CHROMIUM_PATH)!,
      headless: true,
      args: [...CHROMIUM_ARGS, ...suiteTrust().chromiumArgs],
      protocolTimeout: PROTOCOL_TIMEOUT_MS,
    });
    const endpoint = browser.wsEndpoint();
    const child = browser.process();
    this.pid = child?.pid;
    // Chromium stays up for the share's next files; puppeteer still ends it when this process exits.
    await browser.disconnect();
    return { endpoint, process: child };
  }

  async close(): Promise<void> {
    const current = await this.running?.catch(() => null);
    this.running = null;
    const child = current?.process;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5_000).unref())]);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}

/**
 * The environment that makes a `webperf test`, `audit` or `runner` (spawned, or run in this
 * process) load its pages in the share's Chromium instead of launching one (about 1.3 CPU s a
 * launch): for a command whose test is not about its own Chromium. Empty without a share.
 */
export function lentChromiumEnv(): Record<string, string> {
  const lent = process.env.WEBPERF_TEST_CHROMIUM_WS;
  return lent ? { WEBPERF_CHROMIUM_WS: lent } : {};
}
