/**
 * One Chromium per runner process, launched on first use and relaunched when it crashes or
 * disconnects. Pages are isolated per test in their own browser contexts (gather.ts).
 *
 * Chromium ends with the runner that launched it: puppeteer talks to it over a pipe, and Chromium
 * quits when the pipe closes, which the kernel does when the runner dies, even by SIGKILL. Should
 * one survive anyway, each runner notes its Chromium's pid in the data folder, and the next start
 * of the same installation ends the Chromium of every runner that is no longer alive.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser } from 'puppeteer-core';
import type { Config } from '../core/config.js';
import { WebperfError } from '../core/errors.js';
import { recordChromiumCrash, recordChromiumLaunch } from '../core/metrics.js';
import { processAlive } from '../core/process-alive.js';

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
  // Chromium's own calls home (autofill, optimization hints) would go out through the page's proxy.
  // WebUIOmniboxPopup and WebUIOmniboxAimPopup: Chromium 156 opens the address bar's drop-down as
  // two WebUI pages (chrome://omnibox-popup.top-chrome/) in a renderer of their own for every
  // browser context, headless too, where there is no address bar; every page load has a context
  // of its own, and that renderer cost 0.16-0.19 CPU s of each (10 contexts with a page: 4.4 CPU s,
  // 2.4-2.8 without). The pages themselves load the same.
  '--disable-features=AutofillServerCommunication,OptimizationHints,MediaRouter,Translate,WebUIOmniboxPopup,WebUIOmniboxAimPopup',
  '--disable-default-apps',
  '--disable-extensions',
  '--mute-audio',
  // WebRTC's UDP would bypass the guard proxy every page load goes through (core/gather/guarded-context.ts).
  '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
];

/** How long a DevTools call may take before puppeteer gives up on it (a loaded machine's Lighthouse runs need minutes). */
export const PROTOCOL_TIMEOUT_MS = 120_000;

type ChromiumConfig = Pick<Config, 'chromiumPath' | 'chromiumEndpoint'>;

export const CHROMIUM_INSTALL_HINT = 'Chromium was not found: install it with `apt-get install chromium` (or set CHROMIUM_PATH).';

export class BrowserPool {
  private browser: Promise<Browser> | null = null;
  private closed = false;
  /** How many times Chromium was (re)launched; for logs and tests. */
  launches = 0;

  /**
   * `pidDir`: where this runner notes its Chromium's pid (see cleanupOrphanedChromium).
   * `extraArgs`: launch flags beyond CHROMIUM_ARGS (the extra trusted CAs, TargetGuard.trust).
   * `ownSignals`: the process handles SIGINT, SIGTERM and SIGHUP itself and closes the pool as it
   * stops (the service, runners/cli.ts); else puppeteer's own handlers end Chromium and the
   * process on Ctrl-C (webperf test, webperf audit). Puppeteer adds its handlers at each launch,
   * later than the service's start, and they would exit with 130 before the service has stopped.
   */
  constructor(
    private readonly executablePath: string | null,
    private readonly pidDir: string | null = null,
    private readonly extraArgs: readonly string[] = [],
    private readonly ownSignals = false,
  ) {}

  private get pidFile(): string | null {
    return this.pidDir && path.join(this.pidDir, `${process.pid}.json`);
  }

  async acquire(): Promise<Browser> {
    if (this.closed) throw new Error('The browser pool is closed');
    if (this.browser) {
      const current = await this.browser.catch(() => null);
      if (current && current.connected) return current;
      this.browser = null;
    }
    this.browser = this.open();
    return this.browser;
  }

  /** The browser acquire() hands out: a Chromium launched here (a subclass may connect to one instead). */
  protected async open(): Promise<Browser> {
    if (!this.executablePath) throw new WebperfError('CHROMIUM_MISSING', CHROMIUM_INSTALL_HINT);
    this.launches++;
    recordChromiumLaunch();
    // Loaded at the first launch: a process that never starts Chromium does without its 130 modules.
    const { default: puppeteer } = await import('puppeteer-core');
    const browser = await puppeteer.launch({
      executablePath: this.executablePath!,
      headless: true,
      args: [...CHROMIUM_ARGS, ...this.extraArgs],
      protocolTimeout: PROTOCOL_TIMEOUT_MS,
      pipe: true,
      ...(this.ownSignals ? { handleSIGINT: false, handleSIGTERM: false, handleSIGHUP: false } : {}),
    });
    const pid = browser.process()?.pid;
    if (this.pidFile && pid) {
      mkdirSync(this.pidDir!, { recursive: true });
      writeFileSync(this.pidFile, JSON.stringify({ runner: process.pid, chromium: pid }) + '\n');
    }
    browser.on('disconnected', () => {
      // A crash (close() marks the pool closed before it closes the browser): the next acquire() launches a new one.
      if (!this.closed) recordChromiumCrash();
      this.browser = null;
    });
    return browser;
  }

  async close(): Promise<void> {
    this.closed = true;
    const current = await this.browser?.catch(() => null);
    this.browser = null;
    if (current) await this.release(current).catch(() => {});
    if (this.pidFile) rmSync(this.pidFile, { force: true });
  }

  /** Ends the browser open() gave (Chromium with it). */
  protected async release(browser: Browser): Promise<void> {
    await browser.close();
  }
}

/**
 * A pool over a Chromium that runs already (WEBPERF_CHROMIUM_WS): acquire() connects to it (again
 * after the connection dropped), close() disconnects and leaves it running. Nothing is launched,
 * so nothing is counted as a launch and no pid is noted: the Chromium is not this process's.
 */
export class ConnectedBrowserPool extends BrowserPool {
  constructor(private readonly endpoint: string) {
    super(null);
  }

  protected override async open(): Promise<Browser> {
    const { default: puppeteer } = await import('puppeteer-core');
    return puppeteer.connect({ browserWSEndpoint: this.endpoint, protocolTimeout: PROTOCOL_TIMEOUT_MS });
  }

  protected override async release(browser: Browser): Promise<void> {
    await browser.disconnect();
  }
}

/**
 * The pool a command or runner loads its pages with: the running Chromium the configuration names
 * (WEBPERF_CHROMIUM_WS), else one launched here (see BrowserPool's constructor for the rest).
 */
export function browserPoolFor(config: ChromiumConfig, pidDir: string | null, extraArgs: readonly string[], ownSignals = false): BrowserPool {
  return config.chromiumEndpoint ? new ConnectedBrowserPool(config.chromiumEndpoint) : new BrowserPool(config.chromiumPath, pidDir, extraArgs, ownSignals);
}

/** Whether the configuration names a Chromium to load pages in: one to launch, or one running. */
export function hasChromium(config: ChromiumConfig): boolean {
  return config.chromiumPath !== null || config.chromiumEndpoint !== null;
}

function isChromium(pid: number): boolean {
  try {
    return /chrom/i.test(readFileSync(`/proc/${pid}/cmdline`, 'utf8'));
  } catch {
    return false;
  }
}

/**
 * Ends the Chromium left behind by runners of this installation that died (pid files in `pidDir`
 * whose runner is gone). Puppeteer starts Chromium in a process group of its own: the whole group
 * goes. Returns the pids ended.
 */
export function cleanupOrphanedChromium(pidDir: string): number[] {
  let files: string[];
  try {
    files = readdirSync(pidDir).filter((f) => f.endsWith('.json'));
  } catch {
    return [];
  }
  const ended: number[] = [];
  for (const file of files) {
    const full = path.join(pidDir, file);
    let note: { runner?: unknown; chromium?: unknown };
    try {
      note = JSON.parse(readFileSync(full, 'utf8'));
    } catch {
      rmSync(full, { force: true });
      continue;
    }
    if (!Number.isInteger(note.runner) || !Number.isInteger(note.chromium)) {
      rmSync(full, { force: true });
      continue;
    }
    const runner = note.runner as number;
    const chromium = note.chromium as number;
    if (runner !== process.pid && processAlive(runner)) continue;
    // A pid may have been reused: only a Chromium is ended.
    if (processAlive(chromium) && isChromium(chromium)) {
      try {
        process.kill(-chromium, 'SIGKILL');
      } catch {
        // Not a group leader after all: the process alone.
        try {
          process.kill(chromium, 'SIGKILL');
        } catch {
          /* it ended meanwhile */
        }
      }
      ended.push(chromium);
    }
    rmSync(full, { force: true });
  }
  return ended;
}

/** A rejection that only says the browser (or its page) went away mid-command. */
export function isClosedBrowserError(reason: unknown): boolean {
  const message = reason instanceof Error ? reason.message : String(reason);
  return /Target closed|Session closed|Connection closed|Protocol error .*(closed|detached)/i.test(message);
}

