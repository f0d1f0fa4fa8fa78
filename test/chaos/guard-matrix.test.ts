/**
 * The guard matrix outside Chromium (chaos/guard/matrix.ts): probes, the TLS probe, redirect hops,
 * the audit crawl's robots.txt, sitemaps and start page, sitemap index children, webhook delivery
 * and the webhook address set through the real API over PostgreSQL — each against every address
 * form, names through a test resolver. Every case is refused and nothing is connected.
 */
import t from 'tap';
import { createKey } from '../../core/store/keys.js';
import { FORMS, nodePaths, openArena, runNodeMatrix } from '../../chaos/guard/matrix.js';
import { buildTestApi } from '../helpers/api.js';
import { seedSite } from '../helpers/seed.js';

const arena = await openArena();
t.teardown(() => arena.close());
const { app, db } = await buildTestApi(t, { rateLimitPerMinute: 0 }, { guard: arena.guard() });
const site = await seedSite(db, { title: 'Exempelby kommun', url: 'https://www.exempel.se/' });
const { key } = await createKey(db, { kind: 'standard', siteIds: [site] });

const putWebhook = async (url: string) => {
  const res = await app.inject({ method: 'PUT', url: '/webhook/', headers: { 'api-key': key, 'site-id': String(site) }, payload: { url } });
  return { statusCode: res.statusCode, body: res.json() };
};

const results = await runNodeMatrix(arena, nodePaths(putWebhook));

t.test('every path refuses every address form before connecting', async (t) => {
  const paths = [...new Set(results.map((r) => r.path))];
  t.equal(paths.length, 8, 'eight paths');
  t.equal(results.length, paths.length * FORMS.length, 'every path met every form');
  for (const path of paths) {
    t.test(path, async (t) => {
      for (const r of results.filter((x) => x.path === path)) {
        t.same({ refused: r.refused, connections: r.connections }, { refused: r.expected, connections: 0 }, `${r.form}: ${r.detail}`);
      }
    });
  }
});

t.test('the control: with loopback allowlisted the same paths do connect, so the refusals above are the guard', async (t) => {
  arena.permissive = true;
  t.teardown(() => {
    arena.permissive = false;
  });
  const loopback = FORMS.filter((f) => f.id === 'v4 dotted 127.0.0.1' || f.id === 'name -> 127.0.0.1');
  const control = await runNodeMatrix(arena, nodePaths(), undefined, loopback);
  t.equal(control.length, 7 * 2);
  for (const r of control) {
    t.equal(r.refused, false, `${r.path} / ${r.form}: ${r.detail}`);
    t.ok(r.connections >= 1, `${r.path} / ${r.form}: connected ${r.connections}`);
  }
});

t.test('the webhook address is stored when public, so the refusals above are the guard', async (t) => {
  // A public address (never connected: PUT checks, it does not deliver) passes the same route.
  const guard = arena.guard();
  await t.resolves(guard.assertUrl('http://93.184.216.34/hook'));
  const res = await putWebhook('http://93.184.216.34/hook');
  t.equal(res.statusCode, 200, JSON.stringify(res.body));
  t.equal(res.body.url, 'http://93.184.216.34/hook');
});
