/**
 * The premium portal in a real Chromium against the real service on loopback, as a customer uses
 * it: the operator's one-time link → set a password → create a key → use it on the API → order a
 * re-test (cost shown first) → a real runner with Chromium tests the fixture site, served as a real
 * one is (https://kommun.test/ on port 443 in the test world) → the result appears → set a webhook
 * to an https receiver (https://hooks.receiver.test/) and send a test event → revoke the key →
 * the API answers 401. Then: another account cannot reach the site, an agency downloads the
 * analytics CSV, a form without its CSRF token is refused, and failed sign-ins lock the account.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { AxePuppeteer } from '@axe-core/puppeteer';
import t from 'tap';
import { Webhook } from 'standardwebhooks';
import { analyticsCsvColumns } from '../../core/analytics-csv.js';
import type { Db } from '../../core/db/database.js';
import { AXE_RUN_OPTIONS, loadAxe } from '../../core/gather/axe.js';
import { LOCK_MINUTES, MAX_FAILED_SIGN_INS } from '../../core/store/users.js';
import { operatorCommand } from '../../runners/operator-cli.js';
import { checkLayout } from '../helpers/layout.js';
import { browserContext, portalUser, premiumSite, signIn, startPortal, submit, text } from '../helpers/portal.js';
import { runEnded, startTestRunner } from '../helpers/runner.js';
import { testWorld, type World } from '../helpers/world/index.js';

const RUN_WAIT_MS = 120_000;
/** A site title that must stay text everywhere. */
const HOSTILE_TITLE = 'Exempelby <script>alert(1)</script> & "co"';

const waitForRun = (db: Db, runId: number) => runEnded(db, runId, RUN_WAIT_MS);

/** The customer's webhook receiver, https://hooks.receiver.test/: answers 204 and keeps what it got. */
async function startReceiver(t: { teardown(fn: () => unknown): void }, world: World) {
  const got: { method: string; headers: IncomingHttpHeaders; body: string }[] = [];
  const site = await world.site('hooks.receiver.test', {
    handler: (req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        got.push({ method: req.method ?? '', headers: req.headers, body });
        res.writeHead(204).end();
      });
    },
  });
  t.teardown(() => site.close());
  return { origin: site.origin, url: `${site.origin}/hooks/webperf`, got };
}

t.test('the premium portal', async (t) => {
  const world = await testWorld();
  const receiver = await startReceiver(t, world);
  const fixture = await world.site('kommun.test', { root: 'good' });
  t.teardown(() => fixture.close());
  // The operator allowlists the receiver (on loopback here) by its origin, and points the service
  // at the world's DNS and CA (WEBPERF_DNS_SERVERS, WEBPERF_EXTRA_CA_CERTS).
  const api = await startPortal(t, { allowTargets: [receiver.origin], dnsServers: [world.dns.address], extraCaCerts: world.ca.certFile });
  const { db, base } = api;
  const siteId = await premiumSite(api, HOSTILE_TITLE, fixture.url, 100);
  const otherSite = await premiumSite(api, 'Annan kommun', 'https://annan.example/', 100);

  await startTestRunner(t, { db, connectionString: api.url, registry: api.registry, allowOrigins: [fixture.origin] });

  // The journey's browser lives across its two parts; the other checks run while the runner tests.
  const { page } = await browserContext(t);
  const dialogs: string[] = [];
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  let key = '';
  let orderId = 0;
  let runDone: Promise<{ status: string; error: string | null }> = Promise.reject(new Error('no order'));
  runDone.catch(() => {});

  await t.test('journey, part 1: one-time link → password → key → API → re-test ordered after its cost is shown', async (t) => {
    // The operator creates the account; the command prints the one-time link.
    const out: string[] = [];
    await operatorCommand(api.config, 'users', ['add', '--email', 'Anna@Example.org', '--site', String(siteId)], {
      out: (s) => void out.push(s),
      err: (s) => void out.push(s),
      exit: (code) => {
        throw new Error(`webperf users add exited ${code}: ${out.join('')}`);
      },
    });
    const link = /Set the password \(one-time link, valid \d+ h\): (\S+)/.exec(out.join(''))?.[1];
    t.ok(link?.startsWith('http://webperf.test/portal/set-password?token='), `the link: ${link}`);
    await page.goto(link!.replace('http://webperf.test', base));
    await page.type('#password', 'a long enough password');
    await page.type('#confirm', 'a long enough password');
    t.equal(await submit(page, 'form.portal-form'), 200, 'the password is set and the browser lands on My sites');
    t.equal(new URL(page.url()).pathname, '/portal/');
    t.equal(await text(page, '[data-flash]'), 'The password is saved and you are signed in.');
    t.equal(await text(page, `tr[data-site-id="${siteId}"] th a`), HOSTILE_TITLE, 'the hostile title is shown as text');
    t.equal(await page.$$eval('main script', (s) => s.length), 0, 'no script element came from the title');
    const link2 = await page.goto(link!.replace('http://webperf.test', base));
    t.equal(link2?.status(), 400, 'the link works once');

    // A key, shown once.
    await page.goto(`${base}/portal/keys`);
    await page.type('#label', 'CI server');
    t.equal(await submit(page, 'form[data-form="create-key"]'), 200);
    key = (await text(page, '[data-secret="api-key"]'))!;
    t.match(key, /^wpk[A-Za-z0-9]{55}$/, 'the key is shown, letters and digits only');
    const stored = await db.selectFrom('api_keys').select(['kind', 'label', 'user_id', 'hash']).where('prefix', '=', key.slice(0, 15)).executeTakeFirstOrThrow();
    t.strictSame({ kind: stored.kind, label: stored.label }, { kind: 'standard', label: 'CI server' });
    t.not(stored.hash.toString('utf8'), key, 'only a hash is stored');

    // The key works on the API and reaches exactly the user's site.
    const stats = await fetch(`${base}/stats/`, { headers: { 'api-key': key } });
    t.equal(stats.status, 200);
    t.strictSame(((await stats.json()) as { id?: number; site_id?: number }[]).map((s) => s.id ?? s.site_id), [siteId]);
    await page.goto(`${base}/portal/keys`);
    t.equal(await text(page, `tr[data-key-prefix="${key.slice(0, 15)}"] [data-field="last-used"]`), new Date().toISOString().slice(0, 10), 'last used is today');

    // Re-test of one test type: the cost and what remains are shown before ordering.
    await page.goto(`${base}/portal/sites/${siteId}`);
    t.equal(await text(page, '[data-quota] [data-field="available"]'), '100');
    await page.$$eval('form[data-order="retest"] input[name="testnums"]', (boxes) => {
      for (const b of boxes as HTMLInputElement[]) b.checked = b.value === '30';
    });
    t.equal(await submit(page, 'form[data-order="retest"]'), 200);
    t.strictSame(
      [await text(page, '[data-field="cost"]'), await text(page, '[data-field="available"]'), await text(page, '[data-field="after"]')],
      ['1', '100', '99'],
      'review: 1 credit, 100 available, 99 after',
    );
    t.equal(await db.selectFrom('orders').select('id').where('site_id', '=', siteId).executeTakeFirst(), undefined, 'nothing is ordered by the review');
    t.equal(await submit(page, 'form[data-place="retest"]'), 200);
    const order = await db.selectFrom('orders').select(['id', 'credits', 'user_id', 'kind']).where('site_id', '=', siteId).executeTakeFirstOrThrow();
    t.strictSame({ credits: order.credits, kind: order.kind }, { credits: 1, kind: 'retest' });
    t.equal(await text(page, '[data-flash]'), `Order ${order.id} is placed (1 credits).`);
    t.equal(await text(page, '[data-quota] [data-field="available"]'), '99');
    orderId = order.id;
    // The order is open: the page loads its live-status script and stays open until part 2.
    t.equal(await page.$eval(`tr[data-order-id="${orderId}"] [data-status]`, (e) => e.getAttribute('data-status')), 'queued');
    t.equal(await page.$$eval('script[src^="/static/order-status.js?v="]', (s) => s.length), 1, 'the live-status script is loaded');
    await page.evaluate(() => void ((window as unknown as { sameDocument: boolean }).sameDocument = true));
    const run = await db.selectFrom('test_runs').select('id').where('order_id', '=', order.id).executeTakeFirstOrThrow();
    runDone = waitForRun(db, Number(run.id));
    runDone.catch(() => {});
  });

  await t.test('another account cannot reach the site, and a form without its CSRF token is refused', async (t) => {
    await portalUser(api, 'bo@example.org', 'bo password 123', 'standard', [otherSite]);
    const { page } = await browserContext(t);
    t.equal(await signIn(page, base, 'bo@example.org', 'bo password 123'), 200);
    t.strictSame(await page.$$eval('tr[data-site-id]', (rows) => rows.map((r) => Number(r.getAttribute('data-site-id')))), [otherSite], 'only the own site is listed');
    for (const path of [`/portal/sites/${siteId}`, `/portal/sites/${siteId}/webhook`, `/portal/sites/${siteId}/audits/1/seo_summary.json`, '/portal/sites/999999']) {
      const res = await page.goto(`${base}${path}`);
      t.equal(res?.status(), 404, `${path}: 404`);
      t.notOk((await page.content()).includes('Exempelby'), `${path}: nothing of the site leaks`);
    }
    const token = await page.$eval('input[name="_csrf"]', (i) => (i as HTMLInputElement).value);
    const post = (path: string, body: string) =>
      page.evaluate(async (url, b) => {
        const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: b });
        return { status: r.status, body: await r.text() };
      }, `${base}${path}`, body);
    const order = await post(`/portal/sites/${siteId}/orders`, `_csrf=${encodeURIComponent(token)}&kind=retest&testnums=30`);
    t.equal(order.status, 404, 'an order for the other site: 404');
    t.equal(await db.selectFrom('orders').select('id').where('site_id', '=', siteId).where('user_id', 'is not', null).execute().then((r) => r.length), 1, 'still only the journey order');

    const missing = await post('/portal/keys', 'label=sneaky');
    t.equal(missing.status, 403);
    t.equal(JSON.parse(missing.body).error, 'CSRF_INVALID');
    const wrong = await post('/portal/keys', 'label=sneaky&_csrf=not-a-token');
    t.equal(wrong.status, 403);
    t.equal(await db.selectFrom('api_keys').select('id').where('label', '=', 'sneaky').executeTakeFirst(), undefined, 'no key was made');
    const withToken = await post('/portal/keys', `label=fine&_csrf=${encodeURIComponent(token)}`);
    t.equal(withToken.status, 200, 'the same form with its token works');

    const csv = await page.goto(`${base}/portal/webanalytics.csv`);
    t.equal(csv?.status(), 403, 'the analytics CSV is not for a standard account');
  });

  await t.test('an agency account sees the whole portfolio and downloads the analytics CSV', async (t) => {
    await portalUser(api, 'byra@example.org', 'agency password 1', 'agency', []);
    const { page } = await browserContext(t);
    t.equal(await signIn(page, base, 'byra@example.org', 'agency password 1'), 200);
    t.strictSame(
      await page.$$eval('tr[data-site-id]', (rows) => rows.map((r) => Number(r.getAttribute('data-site-id')))),
      (await db.selectFrom('sites').select('id').orderBy('id').execute()).map((s) => s.id),
      'every site of the service',
    );
    const csv = await page.evaluate(async (url) => {
      const r = await fetch(url);
      return { status: r.status, type: r.headers.get('content-type'), body: new TextDecoder('utf-8', { ignoreBOM: true }).decode(await r.arrayBuffer()) };
    }, `${base}/portal/webanalytics.csv`);
    t.equal(csv.status, 200);
    t.equal(csv.type, 'text/csv; charset=utf-8');
    const lines = csv.body.split(/\r?\n/).filter(Boolean);
    t.equal(lines[0], `\uFEFF${analyticsCsvColumns().join(';')}`, 'the header row of the agency CSV');
    const followed = await db.selectFrom('sites').select('id').where('followed', '=', true).execute();
    t.equal(lines.length - 1, followed.length, 'one row per followed site');
  });

  await t.test(`${MAX_FAILED_SIGN_INS} failed sign-ins lock the account, even against the right password`, async (t) => {
    await portalUser(api, 'cia@example.org', 'the right password', 'standard', [otherSite]);
    const { page } = await browserContext(t);
    const statuses: number[] = [];
    const codes: (string | null)[] = [];
    for (let i = 0; i < MAX_FAILED_SIGN_INS; i++) {
      statuses.push(await signIn(page, base, 'cia@example.org', `wrong ${i}`));
      codes.push(await page.$eval('[data-error]', (e) => e.getAttribute('data-error')).catch(() => null));
    }
    t.strictSame(statuses, [...Array(MAX_FAILED_SIGN_INS - 1).fill(401), 429]);
    t.strictSame(codes, [...Array(MAX_FAILED_SIGN_INS - 1).fill('SIGN_IN_FAILED'), 'ACCOUNT_LOCKED']);
    t.equal(await signIn(page, base, 'cia@example.org', 'the right password'), 429, 'the right password is refused while locked');
    t.equal(await text(page, '[data-error]'), `Too many failed sign-ins. The account is locked for ${LOCK_MINUTES} minutes.`);
    t.equal(new URL(page.url()).pathname, '/portal/sign-in', 'not signed in');
    const user = await db.selectFrom('users').select('locked_until').where('email', '=', 'cia@example.org').executeTakeFirstOrThrow();
    t.ok(user.locked_until && user.locked_until.getTime() > Date.now() + (LOCK_MINUTES - 1) * 60_000, 'locked for the lock period');
  });
  await t.test('journey, part 2: the result appears → webhook test event → revoke → 401', async (t) => {
    const run = await db.selectFrom('test_runs').select('id').where('order_id', '=', orderId).executeTakeFirstOrThrow();
    t.strictSame(await runDone, { status: 'done', error: null }, 'the real runner tested the fixture site');
    // Live order status: the page left open in part 1 shows the order done without a reload, and its status region says so.
    const status = `tr[data-order-id="${orderId}"] [data-status]`;
    await page.waitForFunction((sel) => document.querySelector(sel)?.getAttribute('data-status') === 'done', { timeout: 30_000 }, status);
    t.equal(await text(page, status), 'Done', 'the status changed in place');
    t.equal(await text(page, '[role="status"][data-live="orders"]'), `Order ${orderId} is done. Reload the page to see its results.`, 'announced politely');
    t.equal(await page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument), true, 'the same document: no reload');
    const axe = await new AxePuppeteer(page as any, await loadAxe()).options(AXE_RUN_OPTIONS as any).analyze();
    t.strictSame(axe.violations.map((v) => v.id), [], 'axe: no violation on the page with its live region filled');
    await page.goto(`${base}/portal/sites/${siteId}`);
    t.equal(await page.$('script[src^="/static/order-status.js"]'), null, 'no script once no order is open');
    t.equal(await text(page, `tr[data-order-id="${orderId}"] [data-status]`), 'Done', 'the order history shows it done');
    const rating = await page.$eval('section[data-type-of-test="30"] [data-rating]', (e) => Number(e.getAttribute('data-rating')));
    const result = await db.selectFrom('test_results').select('rating').where('run_id', '=', run.id).where('type_of_test', '=', 30).executeTakeFirstOrThrow();
    t.equal(rating, result.rating, 'the result appears on the site page with its stored rating');
    // Filled by a real run (an order done, a result with its report opened), the site page reads
    // well on a phone, a tablet and a desktop, in English and in Swedish.
    const openReports = () => page.$$eval('details', (ds) => ds.forEach((d) => ((d as HTMLDetailsElement).open = true)));
    await openReports();
    await checkLayout(t, page, 'en site page with a result');
    await page.goto(`${base}/lang/sv?next=${encodeURIComponent(`/portal/sites/${siteId}`)}`);
    t.equal(await page.$eval('html', (h) => h.lang), 'sv');
    await openReports();
    await checkLayout(t, page, 'sv site page with a result');
    await page.goto(`${base}/lang/en?next=${encodeURIComponent(`/portal/sites/${siteId}`)}`);
    t.equal(await page.$eval('html', (h) => h.lang), 'en');

    // An order that does not fit is refused before ordering, in the API's words.
    await page.type('#pages', '500');
    t.equal(await submit(page, 'form[data-order="audit"]'), 400);
    t.equal(await text(page, '[data-error="QUOTA_EXCEEDED"]'), 'The audit needs 500 credits; 99 remain in the current 30-day period.');
    t.equal(await page.$('form[data-place]'), null, 'no order button');

    // Webhook to the https receiver; the secret is shown once; a test event arrives signed.
    await page.goto(`${base}/portal/sites/${siteId}/webhook`);
    await page.type('#url', receiver.url);
    t.equal(await submit(page, 'form[data-form="webhook"]'), 200);
    const secret = (await text(page, '[data-secret="webhook"]'))!;
    t.match(secret, /^whsec_/);
    await page.goto(`${base}/portal/sites/${siteId}/webhook`);
    t.equal(await text(page, '[data-webhook] [data-field="url"]'), receiver.url);
    t.equal(await submit(page, 'form[action$="/webhook/test"]'), 200);
    t.equal(await text(page, '[data-flash]'), 'The test event was delivered (HTTP 204).');
    t.strictSame(receiver.got.map((r) => r.method), ['POST'], 'the receiver got one POST, over https');
    const [event] = receiver.got;
    t.doesNotThrow(() => new Webhook(secret).verify(event.body, event.headers as Record<string, string>), 'signed with the secret shown');
    const payload = JSON.parse(event.body) as { data: { type_of_test: number; rating: number }; tested_url: string };
    t.strictSame([payload.data.type_of_test, payload.data.rating, payload.tested_url], [30, result.rating, fixture.url], 'the payload is the latest result');
    t.equal(await text(page, `tr[data-event-id="${event.headers['webhook-id']}"] [data-status]`), 'Delivered', 'the delivery log lists it');

    // Revoke: the API answers 401 at once.
    await page.goto(`${base}/portal/keys`);
    t.equal(await submit(page, `tr[data-key-prefix="${key.slice(0, 15)}"] form`), 200);
    t.equal(await text(page, '[data-flash]'), 'The key is revoked. The API answers 401 to it.');
    const after = await fetch(`${base}/stats/`, { headers: { 'api-key': key } });
    t.equal(after.status, 401);
    t.equal(((await after.json()) as { error: string }).error, 'KEY_INVALID');
    t.strictSame(dialogs, [], 'no script ever ran from data');
  });

});
