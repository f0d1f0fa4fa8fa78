/**
 * Web-analytics detection from the signatures in data/analytics-rules.json (29 tools; derived
 * from webperf_core, see data/README.md, and kept unchanged) amended by our additions in
 * data/analytics-rules.local.json (Google Analytics 4; the Google tag is no Tag Manager container).
 * Serves plugin type 101, the tracking plugin's cookie labels and the agency CSV's columns.
 *
 * - Local entries name a shipped tool (their `matches` and `cookies` are added to it, `withdraw`
 *   removes match strings of it) or a new tool (appended); each says `why`.
 * - A tool is present when one of its `matches` occurs as a substring of a request URL (url
 *   evidence) or of a response body (body evidence), or when a cookie's name starts with one of
 *   its `cookies` prefixes (cookie evidence). Matching is case-sensitive, exactly as the rules are
 *   written ("window.GoogleAnalyticsObject", "_hjSession").
 * - Entries of `cookies` starting with "source:" are comments, and so is any entry holding
 *   whitespace (a cookie name never does: Mixpanel's "they may use cookies, but unclear...").
 * - Shared prefixes: some cookies belong to several tools (_ga, _gid, __utma... to both Google
 *   Analytics and Google Tag Manager; _pk_id, _pk_ses, _pk_cvar to both Piwik PRO and Matomo).
 *   Such a cookie is attributed to those of its tools that have other evidence (url, body, or a
 *   cookie only they set, such as _pk_ref for Matomo or ppms_privacy_ for Piwik PRO); when none
 *   has, to the tool that introduced the cookie (COOKIE_ORIGINATORS: Google Analytics for _ga and
 *   __utm*, Matomo, formerly Piwik, for _pk_*), else to the first owner in the rules file's order.
 *   So a lone _ga names Google Analytics and a lone _pk_id Matomo, never both tools.
 * - Evidence lists each rule string once per kind, url and body evidence in rules order, then
 *   cookies by name; `match` is the rule's substring for url and body evidence and the cookie's
 *   name for cookie evidence.
 * - Tools are sorted by name in code-unit order (the names are ASCII).
 * - Cost: each signature is a substring search over every body (73 signatures: about 1 s per
 *   20 MB of script, linear, no regular expression), so a page load is searched once
 *   (analyticsOfPage), whichever test types ask.
 */
import rulesFile from './data/analytics-rules.json' with { type: 'json' };
import localRulesFile from './data/analytics-rules.local.json' with { type: 'json' };

/** One tool's signatures, comments removed. */
/** The test type whose results are the analytics detections (the analytics plugin's id). */
export const ANALYTICS_TYPE_OF_TEST = 101;

export interface AnalyticsRule {
  name: string;
  /** Substrings of request URLs or response bodies. */
  matches: string[];
  /** Cookie-name prefixes. */
  cookies: string[];
}

export type AnalyticsEvidenceKind = 'url' | 'body' | 'cookie';

/** Why a tool was detected. */
export interface AnalyticsEvidence {
  kind: AnalyticsEvidenceKind;
  /** The rule's substring (url, body) or the cookie's name (cookie). */
  match: string;
}

/** One detected tool. */
export interface AnalyticsDetection {
  tool: string;
  evidence: AnalyticsEvidence[];
}

/** What detection looks at: the page load's request URLs, response bodies and cookie names. */
export interface AnalyticsInput {
  urls: readonly string[];
  bodies: readonly string[];
  cookies: readonly { name: string }[];
}

function isCookiePrefix(entry: string): boolean {
  return entry.length > 0 && !entry.startsWith('source:') && !/\s/.test(entry);
}

/** Checks the data file's shape once at load: a malformed rules file must fail loudly. */
function loadRules(raw: unknown): AnalyticsRule[] {
  if (!Array.isArray(raw)) throw new Error('analytics-rules.json: expected an array of tools');
  const strings = (value: unknown, where: string): string[] => {
    if (value === undefined) return [];
    if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) {
      throw new Error(`analytics-rules.json: ${where} must be a list of strings`);
    }
    return value;
  };
  return raw.map((tool: any, i) => {
    if (!tool || typeof tool.name !== 'string' || !tool.name) throw new Error(`analytics-rules.json: tool ${i} has no name`);
    return {
      name: tool.name,
      matches: strings(tool.matches, `${tool.name}.matches`).filter((m) => m.length > 0),
      cookies: strings(tool.cookies, `${tool.name}.cookies`).filter(isCookiePrefix),
    };
  });
}

/** Applies our amendments (analytics-rules.local.json) to the shipped rules; a malformed entry fails loudly. */
function amendRules(shipped: AnalyticsRule[], raw: unknown): AnalyticsRule[] {
  if (!Array.isArray(raw)) throw new Error('analytics-rules.local.json: expected an array of tools');
  const rules = shipped.map((r) => ({ ...r, matches: [...r.matches], cookies: [...r.cookies] }));
  for (const [i, entry] of raw.entries()) {
    if (!entry || typeof entry.name !== 'string' || typeof entry.why !== 'string' || !entry.why.trim()) {
      throw new Error(`analytics-rules.local.json: entry ${i} needs a name and a why`);
    }
    const [added] = loadRules([{ name: entry.name, matches: entry.matches, cookies: entry.cookies }]);
    const [withdrawn] = loadRules([{ name: entry.name, matches: entry.withdraw }]);
    let rule = rules.find((r) => r.name === entry.name);
    if (!rule) {
      rule = { name: entry.name, matches: [], cookies: [] };
      rules.push(rule);
    }
    for (const m of withdrawn.matches) {
      if (!rule.matches.includes(m)) throw new Error(`analytics-rules.local.json: ${entry.name} has no match string ${m} to withdraw`);
    }
    rule.matches = [...rule.matches.filter((m) => !withdrawn.matches.includes(m)), ...added.matches.filter((m) => !rule.matches.includes(m))];
    rule.cookies = [...rule.cookies, ...added.cookies.filter((c) => !rule.cookies.includes(c))];
  }
  return rules;
}

/** The rules, in the data file's order (that order breaks ties between shared cookie prefixes). */
export const ANALYTICS_RULES: readonly AnalyticsRule[] = Object.freeze(amendRules(loadRules(rulesFile), localRulesFile));

/** Every tool name, in the rules file's order: the agency CSV's tool columns. */
export const ANALYTICS_TOOLS: string[] = Object.freeze(ANALYTICS_RULES.map((r) => r.name)) as string[];

/**
 * Tools that introduced cookies other tools also list (Piwik PRO kept Piwik's _pk_ cookies when it
 * forked; Google Tag Manager sets Google Analytics' cookies): they take a shared cookie that no
 * other evidence attributes.
 */
export const COOKIE_ORIGINATORS: readonly string[] = ['Google Analytics', 'Matomo'];

/** Tools (in rules order) that list a prefix of this cookie name. */
function cookieOwners(name: string): AnalyticsRule[] {
  return ANALYTICS_RULES.filter((r) => r.cookies.some((prefix) => name.startsWith(prefix)));
}

/** The owner a shared cookie goes to when nothing else on the page tells its owners apart. */
function defaultOwner(owners: readonly AnalyticsRule[]): AnalyticsRule {
  return owners.find((r) => COOKIE_ORIGINATORS.includes(r.name)) ?? owners[0];
}

/**
 * The analytics tools a cookie belongs to (rules order), empty when none. A cookie several tools
 * set belongs to every one of them found in `present` (tools otherwise detected on the page), as
 * in detectAnalytics, else to the tool that introduced it: analyticsCookieTools('_ga') is
 * ['Google Analytics'], with both Google tools present it is both.
 */
export function analyticsCookieTools(name: string, present: readonly string[] = []): string[] {
  const owners = cookieOwners(name);
  if (owners.length === 0) return [];
  const found = owners.filter((r) => present.includes(r.name));
  return (found.length > 0 ? found : [defaultOwner(owners)]).map((r) => r.name);
}

/**
 * analyticsCookieTools as one label, or null: a shared cookie on a page with several of its tools
 * names them all ('Google Analytics, Google Tag Manager'), never silently the first.
 */
export function analyticsCookieTool(name: string, present: readonly string[] = []): string | null {
  const tools = analyticsCookieTools(name, present);
  return tools.length > 0 ? tools.join(', ') : null;
}

/** The analytics tools the page load shows, sorted by tool name. */
export function detectAnalytics(input: AnalyticsInput): AnalyticsDetection[] {
  const evidence = new Map<string, AnalyticsEvidence[]>();
  const add = (tool: string, e: AnalyticsEvidence) => {
    const list = evidence.get(tool) ?? [];
    if (!list.some((x) => x.kind === e.kind && x.match === e.match)) list.push(e);
    evidence.set(tool, list);
  };

  for (const rule of ANALYTICS_RULES) {
    for (const m of rule.matches) {
      if (input.urls.some((u) => u.includes(m))) add(rule.name, { kind: 'url', match: m });
    }
    for (const m of rule.matches) {
      if (input.bodies.some((b) => b.includes(m))) add(rule.name, { kind: 'body', match: m });
    }
  }

  // Cookies one tool alone sets come first: they count as other evidence for shared ones.
  const names = [...new Set(input.cookies.map((c) => c.name))].sort();
  const shared: [string, AnalyticsRule[]][] = [];
  for (const name of names) {
    const owners = cookieOwners(name);
    if (owners.length === 1) add(owners[0].name, { kind: 'cookie', match: name });
    else if (owners.length > 1) shared.push([name, owners]);
  }
  const evidenced = new Set(evidence.keys());
  for (const [name, owners] of shared) {
    const withOther = owners.filter((r) => evidenced.has(r.name));
    for (const r of withOther.length > 0 ? withOther : [defaultOwner(owners)]) add(r.name, { kind: 'cookie', match: name });
  }

  return [...evidence.entries()]
    .map(([tool, ev]) => ({ tool, evidence: ev }))
    .sort((a, b) => (a.tool < b.tool ? -1 : a.tool > b.tool ? 1 : 0));
}

/** What a page load holds that detection reads (the plugins' Artifacts). */
export interface AnalyticsPage {
  network: readonly { url: string }[];
  mainDocument: { html: string };
  scripts: readonly { content: string }[];
  cookies: readonly { name: string }[];
}

const OF_PAGE = new WeakMap<AnalyticsPage, AnalyticsDetection[]>();

/**
 * The analytics tools a page load shows: its request URLs, its HTML and scripts, its cookies.
 * Searched once per page load (the result is kept with the artifacts object); do not change it.
 */
export function analyticsOfPage(page: AnalyticsPage): readonly AnalyticsDetection[] {
  let found = OF_PAGE.get(page);
  if (!found) {
    found = detectAnalytics({ urls: page.network.map((r) => r.url), bodies: [page.mainDocument.html, ...page.scripts.map((s) => s.content)], cookies: page.cookies });
    OF_PAGE.set(page, found);
  }
  return found;
}
