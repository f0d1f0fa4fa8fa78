/**
 * What software the one page load shows: the rules (rules.ts) on request URLs, the headers and
 * cookies of the page's own site, the served HTML and its meta generator (parse5), web analytics
 * (core/analytics.ts) and the scripts' libraries (RetireJS, then a banner for libraries it does
 * not know). Server-side software is read from the page's own site only: a third party's server
 * is not the site's to update. Libraries are read from every script the page ran, each through
 * the run's ScriptScanner (script-scanner.ts: a worker thread, a deadline per script, a budget).
 */
import { parse } from 'parse5';
import { analyticsOfPage } from '../../core/analytics.js';
import { hostOf, sameSite } from '../../core/gather/site.js';
import type { Artifacts } from '../../core/plugin-api.js';
import type { Vulnerability } from './retire-data.js';
import { vulnerabilityIds } from './retire-scan.js';
import type { ScriptScan } from './script-scanner.js';
import {
  BANNER,
  COOKIE_RULES,
  GENERATOR_RULES,
  HEADER_RULES,
  HTML_RULES,
  URL_RULES,
  displayName,
  normaliseKey,
  yieldsOf,
  type Rule,
  type SoftwareCategory,
} from './rules.js';

/** At most this many resources are kept per software and per issue (upstream shows 15). */
export const MAX_RESOURCES = 15;

/** One piece of software found, with where. */
export interface Detection {
  category: SoftwareCategory;
  key: string;
  /** The name shown in reports. */
  name: string;
  version: string | null;
  /** URLs that showed it (at most MAX_RESOURCES). */
  resources: string[];
  /** How it was found: url, header, html, generator, cookie, analytics, retire, banner. */
  foundBy: string[];
  /** RetireJS's advisories for this version (js only). */
  vulnerabilities: Vulnerability[];
}

class Found {
  private readonly map = new Map<string, Detection>();

  add(category: SoftwareCategory, key: string, version: string | null, resource: string, how: string, vulnerabilities: Vulnerability[] = [], name = displayName(key)): void {
    const id = `${category}|${key}|${version ?? ''}`;
    let d = this.map.get(id);
    if (!d) {
      d = { category, key, name, version, resources: [], foundBy: [], vulnerabilities: [] };
      this.map.set(id, d);
    }
    if (resource && !d.resources.includes(resource) && d.resources.length < MAX_RESOURCES) d.resources.push(resource);
    if (!d.foundBy.includes(how)) d.foundBy.push(how);
    // Each copy of a library brings its own advisory objects: one advisory is one, by its ids.
    const idsOf = (v: Vulnerability) => vulnerabilityIds(key, v).join(' ');
    for (const v of vulnerabilities) if (!d.vulnerabilities.some((u) => idsOf(u) === idsOf(v))) d.vulnerabilities.push(v);
  }

  apply(rule: Rule, text: string, resource: string, how: string): void {
    const m = rule.re.exec(text);
    if (!m) return;
    for (const y of yieldsOf(rule, m.groups ?? {})) this.add(y.category, y.key!, y.version ?? null, resource, how);
  }

  /** Every detection; one without a version is dropped when the same software was seen with one. */
  list(): Detection[] {
    const all = [...this.map.values()];
    return all.filter((d) => d.version !== null || !all.some((o) => o !== d && o.category === d.category && o.key === d.key && o.version !== null));
  }
}

/** The display name of a known key, else the name as the page wrote it. */
function displayNameOr(name: string): string {
  const key = normaliseKey(name);
  return displayName(key) === key ? name : displayName(key);
}

/** The contents of the page's `<meta name="generator">` elements. */
export function metaGenerators(html: string): string[] {
  const out: string[] = [];
  const walk = (node: any) => {
    if (node.tagName === 'meta') {
      const attrs = Object.fromEntries((node.attrs as { name: string; value: string }[]).map((a) => [a.name.toLowerCase(), a.value]));
      if ((attrs.name ?? '').trim().toLowerCase() === 'generator' && attrs.content?.trim()) out.push(attrs.content.trim());
    }
    for (const child of node.childNodes ?? []) walk(child);
    if (node.content) walk(node.content);
  };
  walk(parse(html));
  return out;
}

/** A version as a generator writes it, one word: 1.124.0, v5.9.6, (4.5.3), 1.1.1k. */
const VERSION_WORD = /^\(?v?(\d+(?:\.\d+)*[a-z]?)\)?[,;:]?$/i;

/**
 * The name and version in a generator no rule knows: its first part (up to " - ", ";", "," or
 * "|"), whose last number-shaped word is the version and whose words before it the name, "Powered
 * by" left out ("Powered by Slider Revolution 6.6.20 - responsive…" → Slider Revolution, 6.6.20).
 */
export function unknownGenerator(generator: string): { name: string; version: string | null } | null {
  const first = generator.slice(0, 200).split(/\s[-–|]\s|[;,|]/)[0];
  const words = first.trim().split(/\s+/);
  let version: string | null = null;
  let end = words.length;
  for (let i = words.length - 1; i > 0; i--) {
    const m = VERSION_WORD.exec(words[i]);
    if (m) {
      version = m[1];
      end = i;
      break;
    }
  }
  const name = words.slice(0, end).join(' ').replace(/^powered\s+by\s+/i, '').replace(/[\s!:]+$/, '').slice(0, 60).trim();
  return /[a-z]/i.test(name) ? { name, version } : null;
}

/** Every cookie name the page's own site set: the browser's jar and the Set-Cookie lines. */
function firstPartyCookieNames(artifacts: Artifacts, pageHost: string): string[] {
  const names = new Set<string>();
  for (const c of artifacts.cookies) if (c.firstParty) names.add(c.name);
  for (const r of artifacts.network) {
    const host = hostOf(r.url);
    if (!host || !sameSite(host, pageHost)) continue;
    for (const line of r.setCookies) {
      const name = line.split('=')[0]?.trim();
      if (name) names.add(name);
    }
  }
  return [...names];
}

/** What became of each script the page ran, in the libraries scan (url '' for an inline script). */
export interface ScriptScanned {
  url: string;
  status: ScriptScan['status'];
}

/**
 * Every piece of software the page load shows, and what became of each script in the libraries
 * scan. Scripts are scanned one by one through `scanner`, whose worker keeps the event loop free
 * and whose signal can stop it at any time.
 */
export async function detectSoftware(artifacts: Artifacts, scanner: { scan(script: { url: string; content: string | null }): Promise<ScriptScan> }): Promise<{ detections: Detection[]; scripts: ScriptScanned[] }> {
  const pageUrl = artifacts.finalUrl || artifacts.mainDocument.url;
  const pageHost = hostOf(pageUrl) ?? '';
  const found = new Found();

  // Request URLs (lower-cased); the main document's own URL included.
  const urls = [...new Set([artifacts.mainDocument.url, ...artifacts.network.map((r) => r.url), ...artifacts.scripts.map((s) => s.url)].filter(Boolean))];
  for (const url of urls) {
    const host = hostOf(url);
    if (!host) continue;
    const own = sameSite(host, pageHost);
    const lower = url.toLowerCase();
    for (const rule of URL_RULES) if (rule.anyHost || own) found.apply(rule, lower, url, 'url');
  }

  // Headers of the page's own site: the main document first, then every response.
  const responses = [{ url: artifacts.mainDocument.url, headers: artifacts.mainDocument.headers }, ...artifacts.network.map((r) => ({ url: r.url, headers: r.responseHeaders }))];
  for (const { url, headers } of responses) {
    const host = hostOf(url);
    if (!host || !sameSite(host, pageHost)) continue;
    for (const [name, value] of Object.entries(headers)) {
      const header = name.toLowerCase();
      for (const rule of HEADER_RULES) if (rule.header === header) found.apply(rule, String(value).toLowerCase(), url, 'header');
    }
  }

  // The served HTML and its meta generator.
  const html = artifacts.mainDocument.html;
  if (html) {
    for (const rule of HTML_RULES) found.apply(rule, html, pageUrl, 'html');
    for (const generator of metaGenerators(html)) {
      const rule = GENERATOR_RULES.find((r) => r.re.test(generator));
      if (rule) found.apply(rule, generator, pageUrl, 'generator');
      else {
        // A generator no rule knows is still software the page names.
        const unknown = unknownGenerator(generator);
        if (unknown) found.add('tech', normaliseKey(unknown.name), unknown.version, pageUrl, 'generator', [], unknown.name);
      }
    }
  }

  // Cookies of the page's own site.
  for (const name of firstPartyCookieNames(artifacts, pageHost)) {
    for (const rule of COOKIE_RULES) found.apply(rule, name, pageUrl, 'cookie');
  }

  // Web analytics, first or third party.
  const analytics = analyticsOfPage(artifacts);
  for (const a of analytics) found.add('analytics', normaliseKey(a.tool), null, '', 'analytics', [], a.tool);

  // Libraries in the scripts the page ran (and script requests whose text was not kept).
  const scripts = [
    ...artifacts.scripts.map((s) => ({ url: s.url, content: s.content })),
    ...artifacts.network.filter((r) => r.resourceType === 'Script' && !artifacts.scripts.some((s) => s.url === r.url)).map((r) => ({ url: r.url, content: null })),
  ];
  const scanned: ScriptScanned[] = [];
  for (const script of scripts) {
    const result = await scanner.scan(script);
    scanned.push({ url: script.url, status: result.status });
    // A script not scanned in time is not guessed at: its banner could name a library RetireJS knows the flaws of.
    if (result.status !== 'scanned') continue;
    for (const hit of result.hits) found.add('js', normaliseKey(hit.component), hit.version, script.url || pageUrl, 'retire', hit.vulnerabilities);
    if (result.hits.length === 0 && script.content) {
      const m = BANNER.exec(script.content.slice(0, 500));
      if (m?.groups?.name) found.add('js', normaliseKey(m.groups.name), m.groups.version ?? null, script.url || pageUrl, 'banner', [], displayNameOr(m.groups.name));
    }
  }
  return { detections: found.list(), scripts: scanned };
}
