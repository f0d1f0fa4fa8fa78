/**
 * Conformance: plugin 101 against the analytics rules applied by hand (a plain substring and
 * prefix search written here, from the two rules files) to what the page load shows: request
 * URLs, the served HTML and scripts, and the cookies. Fixtures: a GA4 site (the Google tag with a
 * G- id, _ga and _ga_<id> cookies, a /g/collect hit), a Tag Manager container (gtm.js?id=GTM-),
 * and both together. The tags come from Google's real names, www.googletagmanager.com and
 * www.google-analytics.com, served in this process's world over https on port 443
 * (test/helpers/third-parties.ts). Each page is loaded once in Chromium through the gather step.
 *
 * A difference on purpose: the shipped upstream rules alone call the GA4 site "Google Tag
 * Manager" (their googletagmanager.com/gtag matches the Google tag); our amendments
 * (core/data/analytics-rules.local.json) withdraw that string and add GA4's signatures, because
 * the Google tag is not a Tag Manager container and the agency CSV must say "Google Analytics".
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import t from 'tap';
import { PROJECT_ROOT } from '../../core/config.js';
import { runPlugin } from '../../core/pipeline.js';
import type { Artifacts } from '../../core/plugin-api.js';
import analytics from '../../plugins/analytics/index.js';
import { LIGHT_LOAD, loadFixture } from '../helpers/fixture-artifacts.js';
import { thirdParties } from '../helpers/third-parties.js';
import { testWorld } from '../helpers/world/index.js';

const parties = await thirdParties(await testWorld());
/** Where the page's requests to other hosts went: URL, status, and whether the vendor's own host answered. */
const elsewhere = (a: Artifacts, page: string) =>
  a.network
    .filter((r) => new URL(r.url).hostname !== page)
    .map((r) => `${r.method} ${r.url} ${r.status} ${r.remoteAddress === parties.sites[new URL(r.url).hostname as keyof typeof parties.sites]?.address ? 'vendor' : r.remoteAddress}`);

interface Rule { name: string; matches: string[]; cookies: string[] }
const readJson = async (file: string) => JSON.parse(await readFile(path.join(PROJECT_ROOT, 'core', 'data', file), 'utf8'));
const shipped: Rule[] = (await readJson('analytics-rules.json')).map((r: any) => ({
  name: r.name,
  matches: r.matches ?? [],
  cookies: (r.cookies ?? []).filter((c: string) => !c.startsWith('source:') && !/\s/.test(c)),
}));
const localRules: any[] = await readJson('analytics-rules.local.json');
/** The shipped rules with our amendments applied: withdrawn strings out, added ones at the end. */
const amended = (): Rule[] =>
  shipped.map((r) => {
    const local = localRules.find((l) => l.name === r.name);
    if (!local) return r;
    return { ...r, matches: [...r.matches.filter((m) => !(local.withdraw ?? []).includes(m)), ...(local.matches ?? [])], cookies: [...r.cookies, ...(local.cookies ?? [])] };
  });

/** Tool → evidence strings, by hand: url and body substrings, then the cookies whose prefix the tool lists. */
function byHand(rules: Rule[], a: Artifacts): Record<string, string[]> {
  const urls = a.network.map((r) => r.url);
  const bodies = [a.mainDocument.html, ...a.scripts.map((s) => s.content)];
  const out: Record<string, string[]> = {};
  for (const rule of rules) {
    const code = [
      ...rule.matches.filter((m) => urls.some((u) => u.includes(m))).map((m) => `url ${m}`),
      ...rule.matches.filter((m) => bodies.some((b) => b.includes(m))).map((m) => `body ${m}`),
    ];
    // Every tool here has code evidence; a cookie a tool lists is evidence for it, shared or not.
    if (code.length === 0) continue;
    const cookies = [...new Set(a.cookies.map((c) => c.name))].sort().filter((n) => rule.cookies.some((p) => n.startsWith(p)));
    out[rule.name] = [...code, ...cookies.map((n) => `cookie ${n}`)];
  }
  return out;
}

async function ours(a: Artifacts) {
  const outcome = await runPlugin(analytics, a, { probes: undefined as any });
  const data = outcome.data as { tools: string[]; detections: { tool: string; evidence: { kind: string; match: string }[] }[] };
  const evidence = Object.fromEntries(data.detections.map((d) => [d.tool, d.evidence.map((e) => `${e.kind} ${e.match}`)]));
  return { outcome, tools: data.tools, evidence };
}

t.test('GA4 through the Google tag: Google Analytics, and only that', async (t) => {
  const { artifacts } = await loadFixture(t, 'analytics-ga4', '', LIGHT_LOAD);
  const hit = elsewhere(artifacts, 'analytics-ga4.test').find((r) => r.startsWith('POST https://www.google-analytics.com/g/collect?'));
  t.same(elsewhere(artifacts, 'analytics-ga4.test').map((r) => r.replace(/\?v=2&.*(?= \d{3} )/, '?v=2&…')), [
    'GET https://www.googletagmanager.com/gtag/js?id=G-TEST123 200 vendor',
    'POST https://www.google-analytics.com/g/collect?v=2&… 204 vendor',
  ], 'the Google tag from Google\'s host, and its hit to Google Analytics');
  t.match(hit, /\?v=2&tid=G-TEST123&cid=1185306725\.\d+&en=page_view&dl=https%3A%2F%2Fanalytics-ga4\.test%2F&dt=/);
  const { outcome, tools, evidence } = await ours(artifacts);
  t.same(evidence, byHand(amended(), artifacts), 'our detections = the amended rules by hand');
  t.same(tools, ['Google Analytics']);
  t.same(evidence['Google Analytics'], [
    'url googletagmanager.com/gtag/js?id=G-',
    'url google-analytics.com/g/collect',
    // The HTML names the tag's address and the tag's own code its hit address.
    'body googletagmanager.com/gtag/js?id=G-',
    'body google-analytics.com/g/collect',
    "body gtag('config', 'G-",
    'cookie _ga',
    'cookie _ga_TEST123',
  ]);
  // The difference on purpose (see the top of this file).
  t.same(Object.keys(byHand(shipped, artifacts)), ['Google Tag Manager'], 'the shipped rules alone say Tag Manager');
  t.equal(outcome.reports.sv.overall.split('\n')[0], 'Webbanalys som används: Google Analytics. Detta är en kartläggning, inget betyg.');
});

t.test('a Tag Manager container: Google Tag Manager, and only that', async (t) => {
  const { artifacts } = await loadFixture(t, 'analytics-gtm', '', LIGHT_LOAD);
  t.same(elsewhere(artifacts, 'analytics-gtm.test'), ['GET https://www.googletagmanager.com/gtm.js?id=GTM-TEST9 200 vendor'], 'the container, and nothing it sends');
  t.same(artifacts.cookies, [], 'a container sets no cookie of its own');
  const { tools, evidence } = await ours(artifacts);
  t.same(evidence, byHand(amended(), artifacts));
  t.same(evidence, byHand(shipped, artifacts), 'here the shipped rules agree');
  t.same(tools, ['Google Tag Manager']);
  t.same(evidence['Google Tag Manager'], ['url googletagmanager.com/gtm.js', 'body googletagmanager.com/gtm.js']);
});

t.test('both: both tools, each with its evidence, the shared cookies for both', async (t) => {
  const { artifacts } = await loadFixture(t, 'analytics-ga4-gtm', '', LIGHT_LOAD);
  t.same(elsewhere(artifacts, 'analytics-ga4-gtm.test').map((r) => r.replace(/\?v=2&.*(?= \d{3} )/, '?v=2&…')).sort(), [
    'GET https://www.googletagmanager.com/gtag/js?id=G-TEST123 200 vendor',
    'GET https://www.googletagmanager.com/gtm.js?id=GTM-TEST9 200 vendor',
    'POST https://www.google-analytics.com/g/collect?v=2&… 204 vendor',
  ]);
  t.same(artifacts.cookies.map((c) => `${c.name} ${c.domain}`).sort(), ['_ga .analytics-ga4-gtm.test', '_ga_TEST123 .analytics-ga4-gtm.test'], 'first-party cookies, set by the Google tag');
  const { outcome, tools, evidence } = await ours(artifacts);
  t.same(evidence, byHand(amended(), artifacts));
  t.same(tools, ['Google Analytics', 'Google Tag Manager']);
  t.same(evidence['Google Tag Manager'], ['url googletagmanager.com/gtm.js', 'body googletagmanager.com/gtm.js', 'cookie _ga', 'cookie _ga_TEST123']);
  t.same(evidence['Google Analytics'].filter((e) => e.startsWith('cookie')), ['cookie _ga', 'cookie _ga_TEST123']);
  t.equal(outcome.reports.en.overall.split('\n')[0], 'Web analytics in use: Google Analytics, Google Tag Manager. This is a detection, not a judgement: not rated.');
});
