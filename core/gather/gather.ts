/**
 * The gather step: one page load in Chromium with Lighthouse (performance, accessibility,
 * best practices, SEO), then axe-core's WCAG 2.2 A/AA rules and text extraction in the same
 * loaded page. Every request Chromium makes passes the target guard twice: refused early by request
 * interception, and connected only through the guard proxy (guarded-context.ts), whose recorded
 * addresses are checked again afterwards. A page that fails to load is said why in plain words
 * where the site's answer tells (load-failure.ts: a bot check, an error status, TLS, the certificate).
 */
import type { Browser, CDPSession, Page } from 'puppeteer-core';
import { WebperfError } from '../errors.js';
import type { Artifacts, CookieRecord, LighthouseArtifact, Probes, TextResource } from '../plugin-api.js';
import type { TargetGuard } from '../net/target-guard.js';
import { networkFromDevtoolsLog } from './network.js';
import { withGuardedLighthouseFetches } from './lighthouse-fetch.js';
import { lighthouseModules, rememberBenchmarkIndex, type LighthouseModules } from './lighthouse-modules.js';
import { createProbes } from '../net/probes.js';
import { untilAborted } from '../abort.js';
import { runAxe } from './axe.js';
import { EXTRACT_PAGE, type extractInline, type extractLinks, type extractTexts } from './page-extract.js';
import { cookieHost, sameSite } from './site.js';
import type { Laps, PhaseTimes } from '../phase-times.js';
import { openGuardedPage, remoteAddressesFromProxy, type GuardedPage, type SparePage } from './guarded-context.js';
import { inTurn, lighthouseTurns } from './lighthouse-turns.js';
import { explainLoadFailure } from './load-failure.js';

export interface GatherOptions {
  browser: Browser;
  guard: TargetGuard;
  /** The run's probes: Lighthouse's own fetches go through them (a new set when omitted). */
  probes?: Probes;
  /** Whole gather time limit. */
  timeoutMs?: number;
  /** Stops the gather (the job's time limit, a runner shutting down): the browser context closes. */
  signal?: AbortSignal;
  /** Called with a short phase name (progress display). */
  onPhase?: (phase: string) => void;
  /** Reads more from the loaded page before its context closes (the audit's crawler takes its links). */
  afterLoad?: (page: Page) => Promise<void>;
  /** Adds the wall time of each step to these (the audit benchmark's profile). */
  times?: PhaseTimes;
  /** A runner's spare: the load takes its context and page, and opens the next one as it ends. */
  spare?: SparePage;
  /**
   * What the load must read beyond what every test type uses (default: both). Without
   * `lighthouse`, Lighthouse loads the page with LIGHT_AUDITS alone (no trace, no categories, no
   * back-forward-cache test) and the artifact is null; without `axe`, axe does not run.
   */
  needs?: { lighthouse?: boolean; axe?: boolean };
}

export const LIGHTHOUSE_CATEGORIES = ['performance', 'accessibility', 'best-practices', 'seo'];
/**
 * The Lighthouse flags the gather step uses; the benchmark runs bare Lighthouse with the same.
 * No full-page screenshot: it serves only Lighthouse's HTML report (element thumbnails), which
 * nothing here shows, and it cost 1.2 s of every page load (resizing the page and waiting for it
 * to paint; measured on the good fixture, 7.6 s → 6.4 s). The storage reset stays, though every
 * load has a fresh context: without it (0.1-0.3 s less) a loaded CI run saw Lighthouse's
 * NO_NAVSTART twice, never seen before; not investigated further.
 */
export const LIGHTHOUSE_FLAGS = {
  output: 'json' as const,
  logLevel: 'error' as const,
  onlyCategories: LIGHTHOUSE_CATEGORIES,
  throttlingMethod: 'simulate' as const,
  maxWaitForLoad: 30_000,
  disableFullPageScreenshot: true,
};

/**
 * Lighthouse's audits whose gatherers read what the test types other than Lighthouse's own (30)
 * use: the network log (network-requests), the served HTML (charset), the scripts with their text
 * (errors-in-console) and the stylesheets (font-display). A load for those types alone runs these
 * four: the same page load and waits, without the trace, the categories' gatherers and audits and
 * the back-forward-cache test (on the good fixture 4.5 s and 3.5 CPU s instead of 6.5 s and 6.0).
 */
export const LIGHT_AUDITS = ['network-requests', 'charset', 'errors-in-console', 'font-display'];
const LIGHT_LIGHTHOUSE_FLAGS = { ...LIGHTHOUSE_FLAGS, onlyCategories: undefined, onlyAudits: LIGHT_AUDITS };

/** What a load for `plugins` must read: Lighthouse's categories and axe only when a plugin needs them. */
export function gatherNeeds(plugins: readonly { meta: { requiredArtifacts: readonly string[] } }[]): { lighthouse: boolean; axe: boolean } {
  const needs = (artifact: string) => plugins.some((p) => p.meta.requiredArtifacts.includes(artifact));
  return { lighthouse: needs('lighthouse'), axe: needs('axe') };
}

export { AXE_TAGS } from './axe.js';

/** Refuses, inside Chromium, every request whose host the guard does not allow. */
export async function guardRequests(page: Page, guard: TargetGuard, blocked: string[], onPageRefused?: (url: string) => void): Promise<void> {
  const verdicts = new Map<string, Promise<boolean>>();
  await page.setRequestInterception(true);
  page.on('request', (request) => {
    if (request.isInterceptResolutionHandled()) return;
    const url = request.url();
    if (!/^https?:/.test(url)) {
      void request.continue();
      return;
    }
    const origin = new URL(url).origin;
    let verdict = verdicts.get(origin);
    if (!verdict) {
      verdict = guard.assertUrl(url).then(() => true, () => false);
      verdicts.set(origin, verdict);
    }
    void verdict.then((ok) => {
      if (ok) return request.continue();
      blocked.push(url);
      if (request.isNavigationRequest() && request.frame() === page.mainFrame()) onPageRefused?.(url);
      return request.abort('blockedbyclient');
    }).catch(() => {});
  });
}

// An audit's title or display value as Lighthouse's i18n paths name them: `audits.label.title`,
// `audits[first-contentful-paint].displayValue`.
const KEPT_STRING = /^audits(?:\.([a-z]+)|\[([^\]]+)\])\.(title|displayValue)$/i;

/** Swedish messages without values (the audit titles): the same on every page, formatted once. */
const constantSv = new Map<string, string>();

/**
 * Lighthouse's own Swedish strings for what the artifact keeps: audit titles and display values.
 * Lighthouse's swapLocale deep-copies the whole result (screenshots included) and formats every
 * string in it, a few hundred milliseconds a page; this formats only those two, with the same
 * message ids, values and formatter.
 */
function swedishAudits(lhr: any, getFormatted: LighthouseModules['getFormatted']): Record<string, { title?: string; displayValue?: string }> {
  const out: Record<string, { title?: string; displayValue?: string }> = {};
  for (const [i18nId, instances] of Object.entries<any[]>(lhr.i18n?.icuMessagePaths ?? {})) {
    for (const instance of instances) {
      const path: string = typeof instance === 'string' ? instance : instance?.path ?? '';
      const m = KEPT_STRING.exec(path);
      if (!m) continue;
      const id = m[1] ?? m[2];
      const field = m[3] as 'title' | 'displayValue';
      const original = lhr.audits?.[id]?.[field];
      if (typeof original !== 'string') continue;
      const values = typeof instance === 'string' ? undefined : instance.values;
      let sv = values ? undefined : constantSv.get(i18nId);
      if (sv === undefined) {
        try {
          sv = getFormatted({ i18nId, values, formattedDefault: original } as any, 'sv');
        } catch {
          sv = original;
        }
        if (!values) constantSv.set(i18nId, sv);
      }
      (out[id] ??= {})[field] = sv;
    }
  }
  return out;
}

/** The part of Lighthouse's result the plugins read, in both report languages. */
export function trimLighthouse(lhr: any, getFormatted: LighthouseModules['getFormatted']): LighthouseArtifact {
  // One run, both report languages: Lighthouse's own Swedish strings.
  const sv = { audits: swedishAudits(lhr, getFormatted) };
  const categories: LighthouseArtifact['categories'] = {};
  const auditRefs: LighthouseArtifact['auditRefs'] = {};
  for (const [id, c] of Object.entries<any>(lhr.categories ?? {})) {
    categories[id] = { id, title: c.title, score: c.score };
    auditRefs[id] = (c.auditRefs ?? []).map((r: any) => ({ id: r.id, weight: r.weight }));
  }
  const audits: LighthouseArtifact['audits'] = {};
  for (const [id, a] of Object.entries<any>(lhr.audits ?? {})) {
    audits[id] = {
      id,
      title: { en: a.title, sv: sv?.audits?.[id]?.title ?? a.title },
      score: a.score,
      scoreDisplayMode: a.scoreDisplayMode,
      ...(a.numericValue !== undefined ? { numericValue: a.numericValue } : {}),
      ...(a.numericUnit ? { numericUnit: a.numericUnit } : {}),
      ...(a.displayValue !== undefined ? { displayValue: { en: a.displayValue, sv: sv?.audits?.[id]?.displayValue ?? a.displayValue } } : {}),
    };
  }
  return { version: lhr.lighthouseVersion, categories, audits, auditRefs };
}

async function cookiesOf(page: Page, pageHost: string): Promise<CookieRecord[]> {
  const session = await page.createCDPSession();
  try {
    const { cookies } = (await session.send('Network.getAllCookies')) as { cookies: any[] };
    return cookies.map((c) => ({
      name: c.name,
      value: c.value,
      domain: c.domain,
      path: c.path,
      expires: c.session ? -1 : c.expires,
      secure: c.secure,
      httpOnly: c.httpOnly,
      sameSite: c.sameSite ?? '',
      firstParty: sameSite(cookieHost(c.domain), pageHost),
    }));
  } finally {
    await session.detach().catch(() => {});
  }
}

/** A page script that navigates late can destroy the context mid-evaluate: wait and try once more. */
async function retryOnContextLoss<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (!(err instanceof Error) || !/context was destroyed|detached/i.test(err.message)) throw err;
    await new Promise((r) => setTimeout(r, 500));
    return fn();
  }
}

/** Loads `url` once and returns the shared artifacts. */
export async function gather(url: string, options: GatherOptions): Promise<Artifacts> {
  const { browser, guard } = options;
  const timeoutMs = options.timeoutMs ?? 120_000;
  const limit = AbortSignal.timeout(timeoutMs);
  const refused = new AbortController();
  const signal = AbortSignal.any([refused.signal, limit, ...(options.signal ? [options.signal] : [])]);
  signal.throwIfAborted();
  const lap = options.times?.laps('gather:open');
  await guard.assertUrl(url);
  const guarded = options.spare ? await options.spare.take(browser, guard) : await openGuardedPage(browser, guard);
  // Closing the context is what really stops Lighthouse, axe and the page's own work.
  const stop = () => void guarded.close();
  signal.addEventListener('abort', stop, { once: true });
  try {
    const onPageRefused = (to: string) => refused.abort(new WebperfError('TARGET_BLOCKED', `The page ${to} is not allowed as a test target`));
    return await untilAborted(gatherIn(guarded, url, options, signal, onPageRefused, lap), signal);
  } catch (err) {
    if (limit.aborted) throw new WebperfError('TIMEOUT', `Loading the page took longer than ${timeoutMs} ms`);
    throw signal.aborted ? signal.reason : err;
  } finally {
    signal.removeEventListener('abort', stop);
    lap?.next('gather:close');
    await guarded.close();
    lap?.end();
    // Not for a runner that is stopping (its signal aborted), nor after a browser that went away.
    if (!options.signal?.aborted) options.spare?.prepare(browser, guard);
  }
}

/** What the gather step reads from the page Lighthouse loaded, in that same load. */
async function readLoadedPage(page: Page, loadedUrl: string, options: GatherOptions) {
  const times = options.times;
  const step = async <T>(phase: string, fn: () => Promise<T>): Promise<T> => {
    const lap = times?.laps(phase);
    try {
      return await fn();
    } finally {
      lap?.end();
    }
  };
  options.onPhase?.('axe');
  const axe = options.needs?.axe === false ? null : await step('  in page: axe', () => retryOnContextLoss(() => runAxe(page)).catch(() => null));
  options.onPhase?.('extract');
  const { texts, inline, links } = await step('  in page: text', () => retryOnContextLoss(
    () => page.evaluate(EXTRACT_PAGE) as Promise<{ texts: ReturnType<typeof extractTexts>; inline: ReturnType<typeof extractInline>; links: ReturnType<typeof extractLinks> }>,
  ));
  const cookies = await step('  in page: cookies', () => cookiesOf(page, new URL(loadedUrl).hostname));
  if (options.afterLoad) await step('  in page: links', () => retryOnContextLoss(() => options.afterLoad!(page)));
  return { axe, texts, inline, links, cookies };
}

/** The HTML the browser shows after a failed load: '' for its own error page, or when it cannot be read. */
async function shownHtml(page: Page): Promise<string> {
  if (!/^https?:/.test(page.url())) return '';
  const read = page.evaluate('document.documentElement ? document.documentElement.outerHTML.slice(0, 200000) : ""') as Promise<string>;
  const timeout = new Promise<string>((resolve) => setTimeout(() => resolve(''), 2_000).unref());
  return Promise.race([read.catch(() => ''), timeout]);
}

/**
 * Stops Lighthouse hearing its page once the gather is aborted. Lighthouse handles some page
 * events in async handlers that send a command and rethrow its failure (TargetManager, on a frame
 * navigation: 'Target.setAutoAttach'); an event that arrives while the aborted gather's context
 * closes then ends in an unhandled rejection ("Target closed"), which ends a process that runs
 * gathers in-process (a runner tolerates it, tolerated-rejections.ts; a test file does not). So
 * the CDP sessions Lighthouse opens on the page are noted, and on abort lose their listeners
 * before the context closes: Lighthouse's run, abandoned by then, hears nothing more.
 */
function deafenLighthouseOnAbort(page: Page, signal: AbortSignal): () => void {
  const sessions: CDPSession[] = [];
  const target = page.target();
  const create = target.createCDPSession.bind(target);
  target.createCDPSession = async () => {
    const session = await create();
    sessions.push(session);
    return session;
  };
  const deafen = () => {
    for (const session of sessions) session.removeAllListeners();
  };
  signal.addEventListener('abort', deafen, { once: true });
  return () => signal.removeEventListener('abort', deafen);
}

async function gatherIn({ page, proxy }: GuardedPage, url: string, options: GatherOptions, signal: AbortSignal, onPageRefused: (url: string) => void, lap?: Laps): Promise<Artifacts> {
  const { guard } = options;
  const { navigationGather, Runner, getFormatted } = await lighthouseModules();
  const blocked: string[] = [];
  const consoleErrors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') consoleErrors.push(m.text());
  });
  page.on('pageerror', (e) => consoleErrors.push(e instanceof Error ? e.message : String(e)));
  lap?.next('gather:intercept');
  await guardRequests(page, guard, blocked, onPageRefused);

  options.onPhase?.('lighthouse');
  const hearing = deafenLighthouseOnAbort(page, signal);
  // Lighthouse's own steps take this process's turn (lighthouse-turns.ts): from the page load to
  // the audits' end, given back when they have settled, also after this gather was abandoned.
  const { lh, network, disallowed, inPage, result, loadError } = await inTurn(lighthouseTurns, signal, async () => {
    lap?.next('lighthouse');
    // Lighthouse's two steps, as lighthouse() runs them: the page load and measurement, then the
    // audits, which read only the gathered artifacts (Node CPU, no page, no browser). The page is
    // read (axe, text, cookies, links) between the two: the lab figures come from the trace already
    // taken, so they are the same as from lighthouse() itself. Not beside the audits: they hold
    // this process's event loop for their whole run, and axe, driven over the DevTools protocol
    // from here, would wait on every answer (measured on the demo page: axe 0.1 s before the
    // audits, 1.1 s beside them, the audits 0.9 s either way).
    const gathered = await withGuardedLighthouseFetches(options.probes ?? createProbes(guard), () => navigationGather(page as any, url, { flags: { ...(options.needs?.lighthouse === false ? LIGHT_LIGHTHOUSE_FLAGS : LIGHTHOUSE_FLAGS) } }));
    const lh: any = gathered.artifacts;
    rememberBenchmarkIndex(lh.BenchmarkIndex);
    lap?.next('gather:network');
    // A failed load keeps its requests too, as DevtoolsLogError.
    const devtoolsLog = lh.DevtoolsLog ?? lh.DevtoolsLogError ?? lh.devtoolsLogs?.defaultPass ?? [];
    const network = networkFromDevtoolsLog(devtoolsLog);
    remoteAddressesFromProxy(network, proxy);
    const disallowed = network.find((rec) => rec.remoteAddress && /^https?:/.test(rec.url) && !guard.isAllowedConnection(rec.url, rec.remoteAddress));
    // The error Lighthouse's result would carry as runtimeError (its lhr.runtimeError is this). A
    // page that failed to load, or that reached an address it must not, is neither audited
    // (nothing would be read from the audits) nor read any further.
    const runtimeError = Runner.getArtifactRuntimeError(lh);
    if (runtimeError || disallowed) {
      const loadError = runtimeError ? { code: String(runtimeError.code), message: getFormatted(runtimeError.message as any, 'en-US') } : null;
      return { lh, network, disallowed, inPage: null, result: null, loadError };
    }
    const loadedUrl: string = lh.URL?.finalDisplayedUrl ?? url;
    lap?.next('lighthouse:page');
    const inPage = await readLoadedPage(page, loadedUrl, options);
    lap?.next('lighthouse:audits');
    const result = await Runner.audit(lh, gathered.runnerOptions);
    return { lh, network, disallowed, inPage, result, loadError: null };
  }).finally(hearing);
  if (disallowed) {
    throw new WebperfError('TARGET_BLOCKED', `The page loaded ${disallowed.url} from ${disallowed.remoteAddress}, which is not allowed`);
  }
  if (loadError) {
    // Said plainly where the site's answer tells why (a bot check, an error status, TLS, the certificate).
    const failure = await explainLoadFailure({ url, runtimeError: loadError, network, readHtml: () => shownHtml(page), guard });
    throw failure ?? new WebperfError('TARGET_UNREACHABLE', `The page could not be loaded: ${loadError.message}`);
  }
  if (!result || !inPage) {
    throw new WebperfError('TARGET_UNREACHABLE', `Lighthouse returned no result for ${url}`);
  }
  const { lhr } = result as any;
  const { axe, texts, inline, links, cookies } = inPage;
  const finalUrl: string = lhr.finalDisplayedUrl ?? lhr.finalUrl ?? url;
  const mainRecord = network.find((r) => r.resourceType === 'Document' && r.url === (lh.URL?.mainDocumentUrl ?? finalUrl))
    ?? network.find((r) => r.resourceType === 'Document');
  lap?.next('gather:resources');

  const stylesheets: TextResource[] = [];
  const seenSheets = new Set<string>();
  for (const s of lh.Stylesheets ?? []) {
    const sheetUrl: string = s.header?.sourceURL || '';
    const key = sheetUrl && !s.header?.isInline ? sheetUrl : `inline:${s.content}`;
    if (seenSheets.has(key)) continue;
    seenSheets.add(key);
    stylesheets.push({ url: s.header?.isInline ? '' : sheetUrl, content: s.content ?? '' });
  }
  if (stylesheets.length === 0) for (const content of inline.styles) stylesheets.push({ url: '', content });

  const scripts: TextResource[] = [];
  for (const s of lh.Scripts ?? []) {
    if (typeof s.content === 'string') scripts.push({ url: s.url === finalUrl ? '' : s.url, content: s.content });
  }
  if (scripts.length === 0) for (const content of inline.scripts) scripts.push({ url: '', content });

  lap?.next('gather:lighthouse-trim');
  const lighthouseArtifact = options.needs?.lighthouse === false ? null : trimLighthouse(lhr, getFormatted);
  return {
    requestedUrl: url,
    finalUrl,
    mainDocument: {
      url: mainRecord?.url ?? finalUrl,
      status: mainRecord?.status ?? 0,
      headers: mainRecord?.responseHeaders ?? {},
      html: typeof lh.MainDocumentContent === 'string' ? lh.MainDocumentContent : '',
    },
    network,
    cookies,
    renderedText: texts.renderedText,
    mainText: texts.mainText,
    htmlLang: texts.htmlLang,
    consoleErrors,
    axe,
    lighthouse: lighthouseArtifact,
    stylesheets,
    scripts,
    subresourceLinks: links.subresourceLinks,
    referrerMetas: links.referrerMetas,
  };
}
