/**
 * The sitemap reader against the `sitemaps` fixture site: a sitemap index whose children are a
 * gzipped urlset (served as application/octet-stream), a plain urlset and a gzipped sitemap that
 * robots.txt lists as well, plus one missing child added per test where needed. The site is served
 * as a real one is, https://sitemaps.test/ on port 443 in the test world, and read through the
 * world's guard.
 */
import t from 'tap';
import { createProbes } from '../../core/net/probes.js';
import { readSitemaps } from '../../core/net/sitemap.js';
import type { ProbeResponse, Probes } from '../../core/plugin-api.js';
import { fixtureSite, LOOPBACK_GUARD } from '../helpers/fixture-artifacts.js';
import { testWorld } from '../helpers/world/index.js';

const site = await fixtureSite('sitemaps');
const origin = site.origin;

t.test('reads an index, follows it once per file, gunzips by magic bytes and de-duplicates pages', async (t) => {
  t.equal(origin, 'https://sitemaps.test');
  const { sitemaps, urls } = await readSitemaps(createProbes(LOOPBACK_GUARD), [`${origin}/sitemap_index.xml`, `${origin}/sitemap-news.xml.gz`]);
  t.same(sitemaps, [
    { url: `${origin}/sitemap_index.xml`, status: 200, gzipped: false, kind: 'sitemapindex', well_formed: true, entries: 3, error: null, problem: null },
    { url: `${origin}/sitemap-news.xml.gz`, status: 200, gzipped: true, kind: 'urlset', well_formed: true, entries: 2, error: null, problem: null },
    { url: `${origin}/sitemap-pages.xml.gz`, status: 200, gzipped: true, kind: 'urlset', well_formed: true, entries: 4, error: null, problem: null },
    { url: `${origin}/sitemap-plain.xml`, status: 200, gzipped: false, kind: 'urlset', well_formed: true, entries: 2, error: null, problem: null },
  ]);
  t.same(urls, [
    'https://kommun.example/nyheter',
    'https://kommun.example/om-kommunen',
    'https://kommun.example/',
    'https://kommun.example/bygga-bo',
    'https://kommun.example/uppleva-gora',
    `${origin}/`,
    `${origin}/kontakt?lang=sv&v=2`,
  ]);
});

t.test('limits: files in all, index depth, bytes per file and page URLs are reported, not dropped silently', async (t) => {
  const probes = createProbes(LOOPBACK_GUARD);
  const few = await readSitemaps(probes, [`${origin}/sitemap_index.xml`], { maxSitemaps: 2, maxUrls: 3 });
  t.same(few.sitemaps.map((s) => [s.url, s.entries, s.error]), [
    [`${origin}/sitemap_index.xml`, 3, null],
    [`${origin}/sitemap-pages.xml.gz`, 4, null],
    [`${origin}/sitemap-plain.xml`, null, 'More than 2 sitemaps; not read'],
    [`${origin}/sitemap-news.xml.gz`, null, 'More than 2 sitemaps; not read'],
  ]);
  t.same(few.urls, ['https://kommun.example/', 'https://kommun.example/om-kommunen', 'https://kommun.example/bygga-bo']);

  const shallow = await readSitemaps(probes, [`${origin}/sitemap_index.xml`], { maxDepth: 0 });
  t.same(shallow.sitemaps.map((s) => s.problem), [null, 'not-read', 'not-read', 'not-read']);
  t.same(shallow.sitemaps.map((s) => s.error), [null, ...Array(3).fill('Index nested deeper than 0 levels; not read')]);
  t.same(shallow.urls, []);

  const small = await readSitemaps(probes, [`${origin}/sitemap-plain.xml`, `${origin}/sitemap-pages.xml.gz`], { maxBytes: 200 });
  t.same(small.sitemaps.map((s) => [s.status, s.gzipped, s.well_formed, s.entries, s.error, s.problem]), [
    [200, false, null, null, 'Larger than 200 bytes', 'too-large'],
    // 178 bytes on the wire, 353 once inflated: the limit holds for both.
    [200, true, null, null, 'Larger than 200 bytes uncompressed', 'too-large'],
  ]);
});

t.test('missing, HTML, refused and malformed sitemaps each say why', async (t) => {
  // Only the site's origin is allowlisted; a name of the world that resolves to a private address is not.
  const world = await testWorld();
  world.record('kartor.intranet.test', { A: ['10.0.0.5'] });
  const guard = world.guard([origin]);
  const { sitemaps } = await readSitemaps(createProbes(guard), [`${origin}/sitemap-gone.xml`, `${origin}/`, `${origin}/robots.txt`, 'https://kartor.intranet.test/sitemap.xml']);
  t.same(sitemaps.map((s) => [s.url, s.status, s.kind, s.well_formed, s.entries, s.problem]), [
    [`${origin}/sitemap-gone.xml`, 404, null, null, null, 'unreachable'],
    [`${origin}/`, 200, null, null, null, 'not-sitemap'],
    [`${origin}/robots.txt`, 200, null, false, null, 'malformed'],
    ['https://kartor.intranet.test/sitemap.xml', 0, null, null, null, 'unreachable'],
  ]);
  t.equal(sitemaps[0].error, 'Answered 404, not 200');
  t.equal(sitemaps[1].error, 'Answered with an HTML page, not a sitemap');
  t.equal(sitemaps[2].error, 'Not well-formed XML');
  // The guard refuses the address before any connection is made.
  t.equal(sitemaps[3].error, 'The address kartor.intranet.test resolves to 10.0.0.5, which is not allowed as a test target');
});

t.test('probes that carry text only (no bytes beside the answer) are read from the text', async (t) => {
  const textOnly: Probes = {
    async fetch(url) {
      return { url, status: 200, headers: {}, body: '<urlset><url><loc>/relative</loc></url><url><priority>1</priority></url></urlset>', chain: [url] } satisfies ProbeResponse;
    },
    async tls() {
      throw new Error('unused');
    },
    async dns() {
      throw new Error('unused');
    },
    isAllowedAddress() {
      throw new Error('unused');
    },
  };
  const { sitemaps, urls } = await readSitemaps(textOnly, ['https://kommun.example/sitemap.xml']);
  // An entry without <loc> is no entry; a relative <loc> is resolved against the sitemap's URL.
  t.same(sitemaps, [{ url: 'https://kommun.example/sitemap.xml', status: 200, gzipped: false, kind: 'urlset', well_formed: true, entries: 1, error: null, problem: null }]);
  t.same(urls, ['https://kommun.example/relative']);
});
