/**
 * One Chromium per runner process, launched on first use and relaunched when it crashes or
 * disconnects. Pages are isolated per test in their own browser contexts (gather.ts).
 */
import puppeteer, { type Browser } from 'puppeteer-core';
import { WebperfError } from '../core/errors.js';

/** Flags for a headless Chromium on a server with no outside network but the sites tested. */
export const CHROMIUM_ARGS = [
  '--headless=new',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-default-apps',
  '--disable-extensions',
  '--mute-audio',
];

export const CHROMIUM_INSTALL_HINT = 'Chromium was not found: install it with `apt-get install chromium` (or set CHROMIUM_PATH).';

export class BrowserPool {
  private browser: Promise<Browser> | null = null;
  private closed = false;
  /** How many times Chromium was (re)launched; for logs and tests. */
  launches = 0;

  constructor(private readonly executablePath: string | null) {}

  async acquire(): Promise<Browser> {
    if (this.closed) throw new Error('The browser pool is closed');
    if (!this.executablePath) throw new WebperfError('CHROMIUM_MISSING', CHROMIUM_INSTALL_HINT);
    if (this.browser) {
      const current = await this.browser.catch(() => null);
      if (current && current.connected) return current;
      this.browser = null;
    }
    this.browser = this.launch();
    return this.browser;
  }

  private async launch(): Promise<Browser> {
    this.launches++;
    const browser = await puppeteer.launch({
      executablePath: this.executablePath!,
      headless: true,
      args: CHROMIUM_ARGS,
      protocolTimeout: 120_000,
    });
    browser.on('disconnected', () => {
      // A crash: the next acquire() launches a new one.
      this.browser = null;
    });
    return browser;
  }

  async close(): Promise<void> {
    this.closed = true;
    const current = await this.browser?.catch(() => null);
    this.browser = null;
    await current?.close().catch(() => {});
  }
}
