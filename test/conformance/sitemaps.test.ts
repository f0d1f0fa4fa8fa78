/**
 * Conformance: plugin 9's sitemap numbers against the sitemap files counted by hand (read from
 * the fixture folder, gunzipped with node:zlib, <loc> elements counted with a regular expression),
 * on the `sitemaps` fixture (a sitemap index, two gzipped sitemaps served as
 * application/octet-stream, a plain one) and `standards-lax` (an index whose sitemaps are gone),
 * each served as a real site is (https://<name>.test/ on port 443 in the test world).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import t from 'tap';
import { createProbes } from '../../core/net/probes.js';
import { runPlugin } from '../../core/pipeline.js';
import type { Artifacts } from '../../core/plugin-api.js';
import standardFiles from '../../plugins/standard-files/index.js';
import { fixtureRoot, fixtureSite, LOOPBACK_GUARD } from '../helpers/fixture-artifacts.js';

/** What the reference reading gives for one served file: its <loc> values, origin filled in. */
async function byHand(site: string, file: string, origin: string): Promise<string[]> {
  const bytes = await readFile(path.join(fixtureRoot(site), file));
  const text = (file.endsWith('.gz') ? gunzipSync(bytes) : bytes).toString('utf8').replaceAll('{{origin}}', origin);
  return [...text.matchAll(/<loc>\s*([^<]*?)\s*<\/loc>/g)].map((m) => m[1].replaceAll('&amp;', '&'));
}

/** Plugin 9 on a served fixture; its only artifacts are the start page's URL and HTML. */
async function standardFilesOn(site: string) {
  const served = await fixtureSite(site);
  const probes = createProbes(LOOPBACK_GUARD);
  const page = await probes.fetch(served.url);
  const artifacts = {
    requestedUrl: served.url, finalUrl: served.url,
    mainDocument: { url: served.url, status: page.status, headers: page.headers, html: page.body },
    network: [], cookies: [], renderedText: '', mainText: '', htmlLang: 'sv', consoleErrors: [], axe: null, lighthouse: null, stylesheets: [], scripts: [], subresourceLinks: [], referrerMetas: [],
  } as Artifacts;
  let findings: { rule: string; count?: number }[] = [];
  const spy = { meta: standardFiles.meta, run: async (a: Artifacts, c: any) => { const r = await standardFiles.run(a, c); findings = r.findings; return r; } };
  const outcome = await runPlugin(spy as any, artifacts, { probes });
  return { origin: served.origin, outcome, data: outcome.data as any, findings };
}

t.test('sitemaps: every file, gzipped or not, and every address, as counted by hand', async (t) => {
  const { origin, outcome, data, findings } = await standardFilesOn('sitemaps');
  t.equal(origin, 'https://sitemaps.test');
  const files = ['sitemap_index.xml', 'sitemap-news.xml.gz', 'sitemap-pages.xml.gz', 'sitemap-plain.xml'];
  const hand = Object.fromEntries(await Promise.all(files.map(async (f) => [f, await byHand('sitemaps', f, origin)] as const)));
  t.same(data.sitemaps.map((s: any) => [s.url, s.gzipped, s.kind, s.entries]), [
    [`${origin}/sitemap_index.xml`, false, 'sitemapindex', hand['sitemap_index.xml'].length],
    [`${origin}/sitemap-news.xml.gz`, true, 'urlset', hand['sitemap-news.xml.gz'].length],
    [`${origin}/sitemap-pages.xml.gz`, true, 'urlset', hand['sitemap-pages.xml.gz'].length],
    [`${origin}/sitemap-plain.xml`, false, 'urlset', hand['sitemap-plain.xml'].length],
  ]);
  t.same(hand['sitemap_index.xml'].length, 3);
  // Pages: the three urlsets' addresses, each once (/om-kommunen is in two of them).
  const pages = new Set([...hand['sitemap-news.xml.gz'], ...hand['sitemap-pages.xml.gz'], ...hand['sitemap-plain.xml']]);
  t.equal(pages.size, 7);
  t.equal(data.sitemap_pages, pages.size);
  t.same(findings.filter((f) => f.rule.startsWith('sitemap')), [], 'nothing to report on the sitemaps');
  t.match(outcome.reports.sv.overall, /Adresser i webbplatskartor: 7\./);
  t.match(outcome.reports.en.overall, /Sitemap addresses: 7\./);
});

t.test('standards-lax: an index whose sitemaps are gone is a finding, not a pass', async (t) => {
  const { origin, outcome, data, findings } = await standardFilesOn('standards-lax');
  t.equal(origin, 'https://standards-lax.test');
  t.same(await byHand('standards-lax', 'sitemap_index.xml', origin), [`${origin}/sitemap-pages.xml`, `${origin}/sitemap-news.xml`]);
  t.same(data.sitemaps.map((s: any) => [s.url, s.status, s.kind, s.entries, s.problem]), [
    [`${origin}/sitemap.xml`, 404, null, null, 'unreachable'],
    [`${origin}/sitemap_index.xml`, 200, 'sitemapindex', 2, null],
    [`${origin}/sitemap-pages.xml`, 404, null, null, 'unreachable'],
    [`${origin}/sitemap-news.xml`, 404, null, null, 'unreachable'],
  ]);
  t.equal(data.sitemap_pages, null);
  // The missing fallback /sitemap.xml is no finding (nothing pointed to it); the index's two are.
  t.same(findings.filter((f) => f.rule.startsWith('sitemap')).map((f) => [f.rule, f.count]), [['sitemap-unreachable', 2]]);
  t.match(Object.values(outcome.reports.sv).join("\n"), new RegExp(`- En webbplatskarta som robots.txt eller ett kartindex anger går inte att hämta \\(adressen svarade 404 utan någon karta\\), t\\.ex\\. ${origin}/sitemap-pages\\.xml \\(2\\)`));
  t.match(Object.values(outcome.reports.en).join("\n"), /- A sitemap listed in robots.txt or a sitemap index cannot be fetched \(the address answered 404 without a sitemap\), e\.g\. .*\/sitemap-pages\.xml \(2\)/);
  t.match(outcome.reports.en.overall, /Sitemap addresses: no readable sitemap\./);
});
