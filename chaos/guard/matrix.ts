/**
 * The guard matrix: every path by which the service fetches something for a caller, times every
 * address form an attacker might hand it. Shared by the tests (test/chaos/guard-*.test.ts) and the
 * chaos scenario (chaos/scenarios/guard-matrix.ts), so both run the same cases.
 *
 * The forms' names resolve through a test resolver of the matrix's own (the hostile answers: a
 * name to loopback, to a private or metadata address, rebinding); literal loopback forms point at
 * counting listeners on 127.0.0.1 and ::1 (plain http on a high port: they stand for internal
 * services that must never be reached), which must accept no connection; every other address is
 * kept off the wire by the loopback fence (fence.ts), which records the attempt. A case holds
 * when the path refuses it and nothing was connected: the guard refused before any connection
 * opened.
 *
 * The allowlisted site whose pages are loaded (the start of redirects, robots.txt, sitemaps, the
 * page that points at every form) is served as a real one is: https://site.matrix.test/ on port
 * 443, a host of a test world (test/helpers/world), its name answered by the world's DNS server
 * (the test resolver passes every name that is not a form's to it), its certificate from the
 * suite's CA, which the guards and the browser trust.
 */
import http from 'node:http';
import type net from 'node:net';
import type { Browser } from 'puppeteer-core';
import { crawl } from '../../core/audit/crawl.js';
import { crawlOnlyVisitor } from '../../core/audit/visit.js';
import { gather, guardRequests } from '../../core/gather/gather.js';
import { openGuardedContext } from '../../core/gather/guarded-context.js';
import { createProbes } from '../../core/net/probes.js';
import { readSitemaps } from '../../core/net/sitemap.js';
import { TargetGuard, type ResolvedAddress, type Resolver } from '../../core/net/target-guard.js';
import type { ProbeResponse, Probes } from '../../core/plugin-api.js';
import { sendWebhook } from '../../core/webhooks/send.js';
import { startWorld } from '../../test/helpers/world/index.js';
import { installLoopbackFence, type Fence } from './fence.js';

/** One way of writing an address that must be refused. */
export interface AddressForm {
  id: string;
  /** The host as written in the URL. */
  host: string;
  /** Which counting listener the address would reach. */
  listener: 'v4' | 'v6';
  /** A name's answers from the test resolver; 'rebind' answers public first, then loopback. */
  answers?: string[] | 'rebind';
  /** Usable in Chromium paths: loopback literals and names (Chromium maps every name to 127.0.0.1). */
  browser: boolean;
}

const PUBLIC = '93.184.216.34';

export const FORMS: AddressForm[] = [
  { id: 'v4 dotted 127.0.0.1', host: '127.0.0.1', listener: 'v4', browser: true },
  { id: 'v4 decimal 2130706433', host: '2130706433', listener: 'v4', browser: true },
  { id: 'v4 hex 0x7f000001', host: '0x7f000001', listener: 'v4', browser: true },
  { id: 'v4 octal 0177.0.0.1', host: '0177.0.0.1', listener: 'v4', browser: true },
  { id: 'v4 short 127.1', host: '127.1', listener: 'v4', browser: true },
  { id: 'v4 unspecified 0', host: '0', listener: 'v4', browser: true },
  { id: 'v6 loopback ::1', host: '[::1]', listener: 'v6', browser: true },
  { id: 'v6 mapped ::ffff:127.0.0.1', host: '[::ffff:127.0.0.1]', listener: 'v4', browser: true },
  { id: 'v6 unspecified ::', host: '[::]', listener: 'v6', browser: true },
  { id: 'private 10.0.0.1', host: '10.0.0.1', listener: 'v4', browser: false },
  { id: 'private 172.16.0.1', host: '172.16.0.1', listener: 'v4', browser: false },
  { id: 'private 192.168.0.1', host: '192.168.0.1', listener: 'v4', browser: false },
  { id: 'link-local 169.254.1.1', host: '169.254.1.1', listener: 'v4', browser: false },
  { id: 'CGNAT 100.64.0.1', host: '100.64.0.1', listener: 'v4', browser: false },
  { id: 'metadata 169.254.169.254', host: '169.254.169.254', listener: 'v4', browser: false },
  { id: 'metadata fd00:ec2::254', host: '[fd00:ec2::254]', listener: 'v6', browser: false },
  { id: 'ULA fc00::1', host: '[fc00::1]', listener: 'v6', browser: false },
  { id: 'link-local fe80::1', host: '[fe80::1]', listener: 'v6', browser: false },
  { id: 'NAT64 of 169.254.169.254', host: '[64:ff9b::a9fe:a9fe]', listener: 'v6', browser: false },
  { id: '6to4 of 10.0.0.1', host: '[2002:a00:1::1]', listener: 'v6', browser: false },
  { id: 'v4-compatible ::10.0.0.1', host: '[::a00:1]', listener: 'v6', browser: false },
  { id: 'name -> 127.0.0.1', host: 'loopback.guard.test', answers: ['127.0.0.1'], listener: 'v4', browser: true },
  { id: 'name -> ::1', host: 'v6.guard.test', answers: ['::1'], listener: 'v6', browser: true },
  { id: 'name -> ::ffff:127.0.0.1', host: 'mapped.guard.test', answers: ['::ffff:127.0.0.1'], listener: 'v4', browser: true },
  { id: 'name -> 10.1.2.3', host: 'private.guard.test', answers: ['10.1.2.3'], listener: 'v4', browser: true },
  { id: 'name -> 169.254.169.254', host: 'metadata.guard.test', answers: ['169.254.169.254'], listener: 'v4', browser: true },
  { id: 'name -> fd00:ec2::254', host: 'metadata6.guard.test', answers: ['fd00:ec2::254'], listener: 'v6', browser: true },
  { id: 'name -> 100.64.0.1', host: 'cgnat.guard.test', answers: ['100.64.0.1'], listener: 'v4', browser: true },
  { id: 'name -> fe80::1', host: 'linklocal6.guard.test', answers: ['fe80::1'], listener: 'v6', browser: true },
  { id: 'name -> 64:ff9b::a00:1', host: 'nat64.guard.test', answers: ['64:ff9b::a00:1'], listener: 'v6', browser: true },
  { id: 'name -> 2002:c0a8:101::1', host: '6to4.guard.test', answers: ['2002:c0a8:101::1'], listener: 'v6', browser: true },
  { id: 'name -> 0.0.0.0', host: 'zero.guard.test', answers: ['0.0.0.0'], listener: 'v4', browser: true },
  { id: 'name -> public + 127.0.0.1', host: 'mixed.guard.test', answers: [PUBLIC, '127.0.0.1'], listener: 'v4', browser: true },
  { id: 'DNS rebinding (public, then 127.0.0.1)', host: 'rebind.guard.test', answers: 'rebind', listener: 'v4', browser: true },
  { id: 'metadata.google.internal', host: 'metadata.google.internal', answers: ['127.0.0.1'], listener: 'v4', browser: true },
  { id: 'localhost', host: 'localhost', answers: ['127.0.0.1'], listener: 'v4', browser: true },
  { id: 'single label "intranet"', host: 'intranet', answers: ['127.0.0.1'], listener: 'v4', browser: true },
];

/** The outcome of one path × form case. */
export interface CaseResult {
  path: string;
  form: string;
  /** Whether this path must refuse this form (all but a rebinding name at set time, which the delivery refuses). */
  expected: boolean;
  refused: boolean;
  /** Connections and requests that reached a counting listener, and attempts the fence stopped. */
  connections: number;
  detail: string;
}

/**
 * The test resolver: each form's name maps to its answers; rebinding answers public once. Every
 * other name is asked of `others` (the arena's world), or not found.
 */
export function testResolver(others?: Resolver): Resolver {
  const asked = new Map<string, number>();
  return async (hostname) => {
    const name = hostname.toLowerCase().replace(/\.$/, '');
    const form = FORMS.find((f) => f.answers && f.host === name);
    if (!form && others) return others(hostname);
    if (!form) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    const n = (asked.get(name) ?? 0) + 1;
    asked.set(name, n);
    const answers = form.answers === 'rebind' ? [n === 1 ? PUBLIC : '127.0.0.1'] : form.answers!;
    return answers.map((address): ResolvedAddress => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
}

interface Counter {
  server: http.Server;
  port: number;
  connections: number;
  paths: string[];
}

async function counting(host: string): Promise<Counter> {
  const c: Counter = { server: http.createServer(), port: 0, connections: 0, paths: [] };
  c.server.on('connection', () => c.connections++);
  c.server.on('request', (req, res) => {
    c.paths.push(req.url ?? '');
    res.end('internal');
  });
  await new Promise<void>((r) => c.server.listen(0, host, () => r()));
  c.port = (c.server.address() as net.AddressInfo).port;
  return c;
}

/** The loopback world the cases run in: counting listeners, an allowlisted site, the fence. */
export interface Arena {
  /** The allowlisted site's origin (https://site.matrix.test, port 443). */
  site: string;
  /** Chromium's flags for the matrix: MATRIX_BROWSER_ARGS, and trust in the suite's CA (as the guard's). */
  browserArgs: readonly string[];
  /**
   * A case's target address: the form's host, a counting listener's port, a path naming the case.
   * `https` for the addresses the https page names itself: Chromium blocks an https page's http
   * subresources and frames as mixed content before the guard would see them (a listener counts
   * the TCP connection whatever the scheme).
   */
  target(form: AddressForm, path: string, scheme?: 'http' | 'https'): string;
  /** Connections and requests so far (both listeners) and attempts the fence stopped. */
  connections(): number;
  /** What the site's robots.txt lists as its sitemap (set per case). */
  robotsSitemap: string;
  /** A fresh guard that allowlists only the site, with a fresh test resolver and the world's trust. */
  guard(): TargetGuard;
  /** The control: guards also allowlist loopback, so the same paths do connect. */
  permissive: boolean;
  /** What the site serves at /page. */
  setPage(html: () => string): void;
  close(): Promise<void>;
}

const slug = (s: string) => s.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');

export async function openArena(): Promise<Arena> {
  const fence: Fence = installLoopbackFence();
  const v4 = await counting('127.0.0.1');
  const v6 = await counting('::1');
  const world = await startWorld();
  const arena: Partial<Arena> & { robotsSitemap: string; permissive: boolean } = { robotsSitemap: '', permissive: false };
  const handler = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const url = new URL(req.url ?? '/', 'https://site');
    const to = url.searchParams.get('to') ?? '';
    if (url.pathname === '/go') return void res.writeHead(302, { location: to }).end();
    if (url.pathname === '/index.xml') {
      res.writeHead(200, { 'content-type': 'application/xml' });
      return void res.end(`<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>${to.replace(/&/g, '&amp;')}</loc></sitemap></sitemapindex>`);
    }
    if (url.pathname === '/robots.txt') return void res.end(`User-agent: *\nAllow: /\nSitemap: ${arena.robotsSitemap}\n`);
    if (url.pathname.startsWith('/app-')) {
      res.writeHead(200, { 'content-type': 'text/javascript' });
      return void res.end(`document.title += '';\n//# sourceMappingURL=${to}\n`);
    }
    if (url.pathname === '/page') {
      res.writeHead(200, { 'content-type': 'text/html' });
      return void res.end(pageHtml?.() ?? '');
    }
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<!doctype html><html lang="en"><title>Site</title><p>Site</p></html>');
  };
  let pageHtml: (() => string) | null = null;
  const site = await world.site('site.matrix.test', { handler });
  const origin = site.origin;
  return Object.assign(arena, {
    site: origin,
    browserArgs: [...MATRIX_BROWSER_ARGS, ...world.trust.chromiumArgs],
    target: (form: AddressForm, path: string, scheme = 'http') => `${scheme}://${form.host}:${form.listener === 'v4' ? v4.port : v6.port}/${slug(path)}/${slug(form.id)}`,
    // New sockets and requests both count: a kept-alive socket carries a request without a new connection.
    connections: () => v4.connections + v6.connections + v4.paths.length + v6.paths.length + fence.attempts.length,
    guard: () => new TargetGuard(arena.permissive ? [origin, '127.0.0.0/8', '::1/128'] : [origin], { resolver: testResolver(world.resolver), trust: world.trust }),
    close: async () => {
      fence.remove();
      for (const s of [v4.server, v6.server]) {
        s.closeAllConnections();
        await new Promise<void>((r) => s.close(() => r()));
      }
      await world.close();
    },
    setPage: (fn: () => string) => {
      pageHtml = fn;
    },
  }) as Arena;
}

const REFUSAL = /not allowed as a test target/;

/** Probes that remember every answer they gave, to read what a path was told. */
function recording(probes: Probes): Probes & { answers: Map<string, ProbeResponse> } {
  const answers = new Map<string, ProbeResponse>();
  return {
    answers,
    fetch: async (url, options) => {
      const res = await probes.fetch(url, options);
      answers.set(url, res);
      return res;
    },
    tls: (host, port) => probes.tls(host, port),
    dns: (name, type) => probes.dns(name, type),
    isAllowedAddress: (address) => probes.isAllowedAddress(address),
  };
}

const SET_TIME_PATH = 'webhook address (set time, PUT /webhook/)';

type NodePath = (arena: Arena, target: string, form: AddressForm) => Promise<{ refused: boolean; detail: string }>;

/** Every path outside Chromium, each taking a target address and saying whether it was refused. */
export function nodePaths(putWebhook?: (url: string) => Promise<{ statusCode: number; body: any }>): Record<string, NodePath> {
  const paths: Record<string, NodePath> = {
    'probe fetch (plugins, Lighthouse fetches)': async (arena, target) => {
      const res = await createProbes(arena.guard(), { timeoutMs: 3000 }).fetch(target);
      return { refused: res.status === 0 && REFUSAL.test(res.error ?? ''), detail: res.error ?? `HTTP ${res.status}` };
    },
    'TLS probe': async (arena, target) => {
      const url = new URL(target);
      const res = await createProbes(arena.guard(), { timeoutMs: 3000 }).tls(url.hostname.replace(/^\[|\]$/g, ''), Number(url.port));
      return { refused: res.versions.length === 0 && REFUSAL.test(res.error ?? ''), detail: res.error ?? res.versions.join(',') };
    },
    'redirect hop': async (arena, target) => {
      const res = await createProbes(arena.guard(), { timeoutMs: 3000 }).fetch(`${arena.site}/go?to=${encodeURIComponent(target)}`);
      return { refused: res.status === 0 && res.chain.length === 2 && REFUSAL.test(res.error ?? ''), detail: res.error ?? `HTTP ${res.status}` };
    },
    'audit start page (crawl: robots.txt, sitemaps, page)': async (arena, target) => {
      const probes = recording(createProbes(arena.guard(), { timeoutMs: 3000 }));
      let visits = 0;
      const result = await crawl({ start: target, pages: 1, probes, visit: async () => { visits++; return { links: [], result: {} }; } })
        .catch((err: Error) => ({ pages: [{ status: 'not crawled', error: err.message }], sitemaps: [] }));
      const page = result.pages[0];
      const asked = [...probes.answers.values()];
      // robots.txt is asked first; a crawler that could not fetch it asks nothing more of the
      // origin (RFC 9309 2.3.1.4), one that goes on asks the sitemaps and the page: all refused.
      const refused = visits === 0 && page?.status === 'failed' && REFUSAL.test(page.error ?? '') && asked.length >= 1 && asked.every((r) => r.status === 0 && REFUSAL.test(r.error ?? ''));
      return { refused, detail: `${asked.length} fetches refused; page ${page?.status}: ${page?.error}` };
    },
    'robots.txt Sitemap: line': async (arena, target) => {
      arena.robotsSitemap = target;
      const probes = recording(createProbes(arena.guard(), { timeoutMs: 3000 }));
      await crawl({ start: `${arena.site}/`, pages: 1, probes, visit: async () => ({ links: [], result: {} }) });
      const res = [...probes.answers.entries()].find(([u]) => new URL(u).pathname === new URL(target).pathname)?.[1];
      return { refused: res !== undefined && res.status === 0 && REFUSAL.test(res.error ?? ''), detail: res?.error ?? 'not asked' };
    },
    'sitemap index child': async (arena, target) => {
      const { sitemaps } = await readSitemaps(createProbes(arena.guard(), { timeoutMs: 3000 }), [`${arena.site}/index.xml?to=${encodeURIComponent(target)}`]);
      const child = sitemaps[1];
      return { refused: sitemaps.length === 2 && child.status === 0 && REFUSAL.test(child.error ?? ''), detail: child?.error ?? 'not read' };
    },
    'webhook delivery (connect time)': async (arena, target) => {
      const out = await sendWebhook(arena.guard(), target, { eventId: 'msg_guard', payload: '{}', secrets: ['whsec_' + Buffer.alloc(32, 1).toString('base64')] }, 3000);
      return { refused: out.status === null && REFUSAL.test(out.error ?? ''), detail: out.error ?? `HTTP ${out.status}` };
    },
  };
  if (putWebhook) {
    paths[SET_TIME_PATH] = async (_arena, target) => {
      const res = await putWebhook(target);
      const ok = res.statusCode === 400 && res.body?.statusCode === 400 && res.body?.error === 'TARGET_BLOCKED' && REFUSAL.test(res.body?.message ?? '');
      return { refused: ok, detail: `${res.statusCode} ${res.body?.error}: ${res.body?.message}` };
    };
  }
  return paths;
}

/** A case held: refused when it must be, and nothing connected. */
export const held = (r: CaseResult) => r.refused === r.expected && r.connections === 0;

/** Runs every Node path against every form, one case at a time (connections counted per case). */
export async function runNodeMatrix(arena: Arena, paths: Record<string, NodePath>, signal?: AbortSignal, forms = FORMS): Promise<CaseResult[]> {
  const out: CaseResult[] = [];
  for (const [path, run] of Object.entries(paths)) {
    for (const form of forms) {
      signal?.throwIfAborted();
      const before = arena.connections();
      const { refused, detail } = await run(arena, arena.target(form, path), form);
      // A name that rebinds later looks public when the address is set; delivery refuses it.
      const expected = !(path === SET_TIME_PATH && form.answers === 'rebind');
      out.push({ path, form: form.id, expected, refused, connections: arena.connections() - before, detail });
    }
  }
  return out;
}

/** Chromium's flags for the matrix: every name maps to 127.0.0.1, so a name Chromium resolved itself would reach a counting listener. */
export const MATRIX_BROWSER_ARGS = ['--host-resolver-rules=MAP * 127.0.0.1'];

/** Each top-level redirect is a navigation of its own: CI takes one form of each kind, the full run all. */
const TOP_LEVEL_IN_CI = ['v4 decimal 2130706433', 'v6 mapped ::ffff:127.0.0.1', 'name -> 10.1.2.3', 'name -> public + 127.0.0.1', 'DNS rebinding (public, then 127.0.0.1)', 'localhost'];

const IN_PAGE = ['subresource img', 'iframe', 'fetch() from the page', 'redirect inside the browser (iframe)', 'top-level redirect'] as const;

function pageFor(arena: Arena, forms: AddressForm[], withSourceMaps: boolean): string {
  const parts = forms.map((f) => {
    const [img, iframe, fetchUrl, redirected] = IN_PAGE.map((k) => arena.target(f, k, 'https'));
    const map = arena.target(f, 'Lighthouse source-map fetch', 'https');
    return `<img src="${img}" alt=""><iframe src="${iframe}" title="a"></iframe>
      <iframe src="${arena.site}/go?to=${encodeURIComponent(redirected)}" title="b"></iframe>
      <script>fetch(${JSON.stringify(fetchUrl)}).catch(() => {})</script>
      ${withSourceMaps ? `<script src="${arena.site}/app-${slug(f.id)}.js?to=${encodeURIComponent(map)}"></script>` : ''}`;
  });
  return `<!doctype html><html lang="en"><title>Guard matrix</title><main><h1>Guard matrix</h1>${parts.join('\n')}</main></html>`;
}

const pathnameOf = (url: string) => {
  try {
    return new URL(url).pathname;
  } catch {
    return '';
  }
};

/**
 * The Chromium paths, in one browser. Always: start pages and one-off addresses (the gather's
 * check), and one guarded page load (the gather's and the crawl's two layers: request interception
 * and the guard proxy) of a page that points an image, an iframe, a fetch() and a redirected
 * iframe at every form, then top-level redirects in the same guarded page. With `full` (the chaos
 * run; too slow for CI) every form also meets the start page's Lighthouse load (a rebinding name),
 * a top-level redirect, the audit crawl's visitor and a whole Lighthouse gather of the page, whose
 * scripts' source maps Lighthouse fetches itself.
 */
export async function runBrowserMatrix(arena: Arena, browser: Browser, options: { full?: boolean; signal?: AbortSignal } = {}): Promise<CaseResult[]> {
  const { signal } = options;
  const forms = FORMS.filter((f) => f.browser);
  const out: CaseResult[] = [];
  const push = (path: string, form: AddressForm, refused: boolean, connections: number, detail: string) =>
    out.push({ path, form: form.id, expected: true, refused, connections, detail });

  // Only a rebinding name passes the gather's first check and costs a Lighthouse start; CI takes
  // the rebinding through the page load's redirects below, the full run through both.
  for (const form of options.full ? forms : forms.filter((f) => f.answers !== 'rebind')) {
    signal?.throwIfAborted();
    const path = 'start page (re-test order, one-off address)';
    const before = arena.connections();
    const err = await gather(arena.target(form, path), { browser, guard: arena.guard(), timeoutMs: 60_000, signal }).then(() => null, (e: Error) => e);
    push(path, form, err !== null && REFUSAL.test(err.message), arena.connections() - before, err?.message ?? 'loaded');
  }

  // One guarded page, as gather() and the crawl's visitor open it, watched from outside.
  arena.setPage(() => pageFor(arena, forms, false));
  const guard = arena.guard();
  const guarded = await openGuardedContext(browser, guard);
  try {
    const page = await guarded.context.newPage();
    const outcome = new Map<string, string[]>();
    const note = (url: string, what: string) => outcome.set(pathnameOf(url), [...(outcome.get(pathnameOf(url)) ?? []), what]);
    page.on('requestfailed', (r) => note(r.url(), `failed ${r.failure()?.errorText ?? ''}`));
    page.on('response', (r) => note(r.url(), `HTTP ${r.status()}`));
    await guardRequests(page, guard, []);
    const before = arena.connections();
    await page.goto(`${arena.site}/page`, { waitUntil: 'load', timeout: 60_000 });
    // fetch() and iframes settle after load; the page's own promise says when.
    await page.waitForNetworkIdle({ idleTime: 300, timeout: 30_000 }).catch(() => {});
    const topForms = options.full ? forms : forms.filter((f) => TOP_LEVEL_IN_CI.includes(f.id));
    for (const form of topForms) {
      signal?.throwIfAborted();
      const top = arena.target(form, 'top-level redirect');
      await page.goto(`${arena.site}/go?to=${encodeURIComponent(top)}`, { timeout: 15_000 }).catch(() => null);
    }
    const connections = arena.connections() - before;
    for (const form of forms) {
      for (const kind of IN_PAGE) {
        if (kind === 'top-level redirect' && !topForms.includes(form)) continue;
        const seen = outcome.get(pathnameOf(arena.target(form, kind))) ?? [];
        const refused = seen.length > 0 && seen.every((x) => x.startsWith('failed'));
        push(kind, form, refused, connections, seen.join('; ') || 'not requested');
      }
    }
  } finally {
    await guarded.close();
  }
  if (!options.full) return out;

  for (const form of forms) {
    signal?.throwIfAborted();
    const path = 'redirect of a page load (audit crawl visitor)';
    const before = arena.connections();
    const visit = crawlOnlyVisitor(browser, arena.guard(), 15_000);
    const err = await visit(`${arena.site}/go?to=${encodeURIComponent(arena.target(form, path))}`).then(() => null, (e: Error) => e);
    push(path, form, err !== null, arena.connections() - before, err?.message.split('\n')[0] ?? 'loaded');
  }

  arena.setPage(() => pageFor(arena, forms, true));
  const lhGuard = arena.guard();
  const probes = recording(createProbes(lhGuard, { timeoutMs: 3000 }));
  const before = arena.connections();
  const artifacts = await gather(`${arena.site}/page`, { browser, guard: lhGuard, probes, timeoutMs: 240_000, signal });
  const connections = arena.connections() - before;
  for (const form of forms) {
    for (const kind of [...IN_PAGE.slice(0, 4), 'Lighthouse source-map fetch']) {
      const pathname = pathnameOf(arena.target(form, kind));
      const path = `Lighthouse gather: ${kind}`;
      if (kind === 'Lighthouse source-map fetch') {
        const res = [...probes.answers.entries()].find(([u]) => pathnameOf(u) === pathname)?.[1];
        push(path, form, res !== undefined && res.status === 0 && REFUSAL.test(res.error ?? ''), connections, res?.error ?? 'not fetched by Lighthouse');
      } else {
        const records = artifacts.network.filter((r) => pathnameOf(r.url) === pathname);
        const refused = records.length > 0 && records.every((r) => r.failed || r.status === 0);
        push(path, form, refused, connections, records.map((r) => (r.failed ? 'failed' : `HTTP ${r.status}`)).join(', ') || 'not requested');
      }
    }
  }
  return out;
}
