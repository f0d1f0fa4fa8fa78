/**
 * Portal sessions over app.inject() (no browser needed): the cookie's attributes, sessions kept
 * server-side under a hash of their id, sign-out and a password change ending them, and the
 * one-time password link. The browser journeys are in portal-journey.test.ts.
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import t from 'tap';
import { finishAudit, placeAudit } from '../../core/store/audits.js';
import { issuePasswordToken } from '../../core/store/users.js';
import { placeOrder } from '../../core/store/orders.js';
import { markRun } from '../../core/store/runs.js';
import { SIGN_IN_PER_MINUTE } from '../../api/web/portal/common.js';
import { buildApp } from '../../api/app.js';
import { parseTrustProxy } from '../../core/config.js';
import { buildTestApi } from '../helpers/api.js';
import { portalClient as client, portalSignIn as signIn, portalUser, premiumSite } from '../helpers/portal.js';

t.test('portal sessions', async (t) => {
  const api = await buildTestApi(t);
  const { app, db } = api;
  const siteId = await premiumSite(api, 'Sessionsby', 'https://sessionsby.example/', 10);
  const userId = await portalUser(api, 'sam@example.org', 'first password', 'standard', [siteId]);

  await t.test('the session cookie: HttpOnly, SameSite=Lax, path /, not Secure over plain http; only a hash is stored', async (t) => {
    const c = client(app);
    const res = await signIn(c, 'SAM@example.org', 'first password');
    t.equal(res.statusCode, 303);
    t.equal(res.headers.location, '/portal/');
    const set = res.cookies.find((k) => k.name === 'webperf_session')!;
    t.strictSame({ httpOnly: set.httpOnly, sameSite: set.sameSite, path: set.path, secure: set.secure ?? false }, { httpOnly: true, sameSite: 'Lax', path: '/', secure: false });
    const sessionId = decodeURIComponent(set.value).split('.')[0];
    const rows = await db.selectFrom('sessions').select(['id_hash', 'user_id']).where('user_id', '=', userId).execute();
    t.equal(rows.length, 1);
    t.strictSame(rows[0].id_hash, createHash('sha256').update(sessionId).digest(), 'the row is keyed by the SHA-256 of the id');
    const home = await c.get('/portal/');
    t.equal(home.statusCode, 200);
    t.match(home.body, 'Signed in as sam@example.org');
    t.equal(home.headers['cache-control'], 'private, no-store');
  });

  await t.test('behind an https proxy (WEBPERF_TRUST_PROXY) the cookie is Secure; without trust a forged header changes nothing', async (t) => {
    t.strictSame(
      ['', 'false', 'true', '2', '127.0.0.1, 10.0.0.0/8,::1'].map(parseTrustProxy),
      [false, false, true, 2, ['127.0.0.1', '10.0.0.0/8', '::1']],
    );
    t.throws(() => parseTrustProxy('proxy.example'), /WEBPERF_TRUST_PROXY/);
    t.throws(() => parseTrustProxy('10.0.0.0/33'), /WEBPERF_TRUST_PROXY/);
    // The same service over the same database, trusting the proxy on loopback.
    const proxied = await buildApp({ db, config: { ...api.config, trustProxy: parseTrustProxy('127.0.0.1') }, registry: api.registry, version: '1.0.0', databaseUrl: api.url });
    t.teardown(() => proxied.close());
    // The form's session cookie (the CSRF secret) and, with `signIn`, the signed-in session's.
    const cookiesVia = async (app: FastifyInstance, remoteAddress: string, forwarded: Record<string, string>, signIn = false) => {
      const headers = { accept: 'text/html', 'accept-language': 'en', ...forwarded };
      const form = await app.inject({ method: 'GET', url: '/portal/sign-in', remoteAddress, headers });
      const cookie = form.cookies.find((k) => k.name === 'webperf_session')!;
      if (!signIn) return [cookie.secure ?? false];
      const res = await app.inject({
        method: 'POST',
        url: '/portal/sign-in',
        remoteAddress,
        headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded', cookie: `webperf_session=${cookie.value}` },
        payload: new URLSearchParams({ _csrf: /name="_csrf" value="([^"]+)"/.exec(form.body)![1], email: 'sam@example.org', password: 'first password' }).toString(),
      });
      t.equal(res.statusCode, 303, `signed in from ${remoteAddress}`);
      return [form, res].map((r) => r.cookies.find((k) => k.name === 'webperf_session')?.secure ?? false);
    };
    const https = { 'x-forwarded-proto': 'https' };
    t.strictSame(await cookiesVia(proxied, '127.0.0.1', https, true), [true, true], 'from the trusted proxy saying https: Secure, also once signed in');
    t.strictSame(await cookiesVia(proxied, '127.0.0.1', {}), [false], 'from the proxy over plain http: not Secure');
    t.strictSame(await cookiesVia(proxied, '192.0.2.9', https), [false], 'a forged header from an untrusted address: not Secure');
    t.strictSame(await cookiesVia(app, '127.0.0.1', https), [false], 'without WEBPERF_TRUST_PROXY a forged header changes nothing');
    const lang = await proxied.inject({ method: 'GET', url: '/lang/en?next=/', headers: https });
    t.equal(lang.cookies.find((k) => k.name === 'lang')?.secure, true, 'the language cookie follows the same rule');
  });

  await t.test('signing out ends the session on the server', async (t) => {
    const c = client(app);
    await signIn(c, 'sam@example.org', 'first password');
    const old = c.cookie;
    const home = await c.get('/portal/');
    const out = await c.post('/portal/sign-out', { _csrf: c.token(home.body) });
    t.equal(out.statusCode, 303);
    t.equal(out.headers.location, '/portal/sign-in');
    const replay = await app.inject({ method: 'GET', url: '/portal/', headers: { cookie: old, accept: 'text/html' } });
    t.equal(replay.statusCode, 303, 'the old cookie no longer signs in');
    t.equal(replay.headers.location, '/portal/sign-in');
  });

  await t.test('changing the password ends every other session; the current one stays', async (t) => {
    const a = client(app);
    const b = client(app);
    await signIn(a, 'sam@example.org', 'first password');
    await signIn(b, 'sam@example.org', 'first password');
    const account = await a.get('/portal/account');
    const wrong = await a.post('/portal/account/password', { _csrf: a.token(account.body), current: 'not it at all', password: 'second password', confirm: 'second password' });
    t.equal(wrong.statusCode, 400);
    t.match(wrong.body, 'data-error="PASSWORD_WRONG"');
    const short = await a.post('/portal/account/password', { _csrf: a.token(account.body), current: 'first password', password: 'short', confirm: 'short' });
    t.equal(short.statusCode, 400);
    t.match(short.body, 'data-error="PASSWORD_INVALID"');
    const ok = await a.post('/portal/account/password', { _csrf: a.token(account.body), current: 'first password', password: 'second password', confirm: 'second password' });
    t.equal(ok.statusCode, 303);
    t.equal((await a.get('/portal/')).statusCode, 200, 'the session that changed it stays signed in');
    const other = await b.get('/portal/');
    t.equal(other.statusCode, 303, 'the other session is signed out');
    t.equal((await signIn(client(app), 'sam@example.org', 'first password')).statusCode, 401, 'the old password no longer works');
    t.equal((await signIn(client(app), 'sam@example.org', 'second password')).statusCode, 303);
  });

  await t.test('the one-time link: set once, signs in, ends older sessions; an unknown token is 400', async (t) => {
    const old = client(app);
    await signIn(old, 'sam@example.org', 'second password');
    const token = await issuePasswordToken(db, userId);
    const c = client(app);
    const form = await c.get(`/portal/set-password?token=${token}`);
    t.equal(form.statusCode, 200);
    const mismatch = await c.post('/portal/set-password', { _csrf: c.token(form.body), token, password: 'third password', confirm: 'third passwort' });
    t.equal(mismatch.statusCode, 400);
    const set = await c.post('/portal/set-password', { _csrf: c.token(form.body), token, password: 'third password', confirm: 'third password' });
    t.equal(set.statusCode, 303);
    t.equal((await c.get('/portal/')).statusCode, 200, 'signed in by setting the password');
    t.equal((await old.get('/portal/')).statusCode, 303, 'an older session ended');
    // The used link shows no form; the page's token (the session changed on signing in) comes from the header's sign-out form.
    const used = await c.get(`/portal/set-password?token=${token}`);
    t.equal(used.statusCode, 400);
    const again = await c.post('/portal/set-password', { _csrf: c.token(used.body), token, password: 'fourth password', confirm: 'fourth password' });
    t.equal(again.statusCode, 400);
    t.match(again.body, 'data-error="PASSWORD_TOKEN_INVALID"');
    t.equal((await client(app).get('/portal/set-password?token=nope')).statusCode, 400);
  });

  await t.test('audits with their files: the owner downloads them; another account gets 404', async (t) => {
    const placed = await placeAudit(db, { siteId, keyId: null, pages: 2, format: 'audit_v2', baseUrl: 'https://sessionsby.example/', title: 'Audit of Sessionsby' });
    const summary = Buffer.from('{"pages":2}');
    await finishAudit(db, placed.auditId, [{ name: 'seo_summary.json', contentType: 'application/json', content: summary }]);
    const owner = client(app);
    await signIn(owner, 'sam@example.org', 'third password');
    const site = await owner.get(`/portal/sites/${siteId}`);
    t.match(site.body, `href="/portal/sites/${siteId}/audits/${placed.auditId}/seo_summary.json"`, 'the site page links the file');
    const file = await owner.get(`/portal/sites/${siteId}/audits/${placed.auditId}/seo_summary.json`);
    t.equal(file.statusCode, 200);
    t.equal(file.headers['content-type'], 'application/json; charset=utf-8');
    t.equal(file.headers['content-disposition'], 'attachment; filename="seo_summary.json"');
    t.equal(file.body, summary.toString());
    t.equal((await owner.get(`/portal/sites/${siteId}/audits/${placed.auditId}/..%2F..%2Fetc%2Fpasswd`)).statusCode, 404, 'a name not in the format\'s list');
    t.equal((await owner.get(`/portal/sites/${siteId}/audits/${placed.auditId}/crux_summary.json`)).statusCode, 404, 'a listed name the audit does not hold');

    const otherSite = await premiumSite(api, 'Grannby', 'https://grannby.example/', 10);
    await portalUser(api, 'gro@example.org', 'gro password 1', 'standard', [otherSite]);
    const other = client(app);
    await signIn(other, 'gro@example.org', 'gro password 1');
    const denied = await other.get(`/portal/sites/${siteId}/audits/${placed.auditId}/seo_summary.json`);
    t.equal(denied.statusCode, 404);
    t.notMatch(denied.body, 'pages', 'nothing of the file leaks');
    t.equal((await other.get(`/portal/sites/${otherSite}/audits/${placed.auditId}/seo_summary.json`)).statusCode, 404, 'nor through the own site');
  });

  await t.test('the order history\'s live status (orders/status.json): the owner\'s orders; 401 signed out, 404 for another account', async (t) => {
    const owner = client(app);
    await signIn(owner, 'sam@example.org', 'third password');
    const placed = await placeOrder(db, { siteId, keyId: null, kind: 'retest', credits: 1, payload: { test_types: [30] }, runs: [{ siteId, url: 'https://sessionsby.example/', private: false, testTypes: [30] }] });
    const url = `/portal/sites/${siteId}/orders/status.json`;
    const expected = async () => (await db.selectFrom('orders').select(['id', 'status']).where('site_id', '=', siteId).orderBy('created_at', 'desc').orderBy('id', 'desc').execute()).map((o) => ({
      id: o.id,
      status: o.status,
      open: o.status === 'queued',
      label: { queued: 'Queued', done: 'Done', failed: 'Failed' }[o.status],
      message: o.status === 'done' ? `Order ${o.id} is done. Reload the page to see its results.` : `Order ${o.id}: ${{ queued: 'Queued', failed: 'Failed' }[o.status]}.`,
    }));
    const open = await owner.get(url);
    t.equal(open.statusCode, 200);
    t.equal(open.headers['content-type'], 'application/json; charset=utf-8');
    t.equal(open.headers['cache-control'], 'private, no-store');
    const before = await expected();
    t.strictSame(before.map((o) => o.status), ['queued', 'done'], 'this re-test (queued) and the earlier audit (done)');
    t.strictSame(JSON.parse(open.body), { orders: before });
    const page = await owner.get(`/portal/sites/${siteId}`);
    t.match(page.body, `data-status-url="${url}"`, 'the page names its status JSON while an order is open');
    t.match(page.body, /<script src="\/static\/order-status\.js\?v=[0-9a-f]{10}" defer><\/script>/);
    t.match(page.body, '<p class="visually-hidden" role="status" data-live="orders"></p>');
    const script = await app.inject({ method: 'GET', url: '/static/order-status.js' });
    t.equal(script.statusCode, 200);
    t.match(script.headers['content-type'], /^(text|application)\/javascript/);

    // Its only run fails for good: the order fails with it.
    await markRun(db, placed.runIds[0], 'failed', 'the page did not load');
    const done = await owner.get(url);
    t.strictSame(JSON.parse(done.body), { orders: await expected() });
    t.equal((JSON.parse(done.body) as { orders: { open: boolean }[] }).orders.some((o) => o.open), false, 'every order closed');
    t.notMatch((await owner.get(`/portal/sites/${siteId}`)).body, 'order-status.js', 'no script once every order is closed');

    const signedOut = await app.inject({ method: 'GET', url, headers: { accept: 'application/json' } });
    t.equal(signedOut.statusCode, 401, 'signed out: 401, not a redirect to a page');
    t.strictSame(JSON.parse(signedOut.body), { statusCode: 401, error: 'SIGN_IN_REQUIRED', message: 'Sign in to see this page' });
    const other = client(app);
    await signIn(other, 'gro@example.org', 'gro password 1');
    const denied = await other.get(url);
    t.equal(denied.statusCode, 404, 'another account: 404');
    t.notMatch(denied.body, 'Failed');
  });

  await t.test(`sign-in is limited to ${SIGN_IN_PER_MINUTE} attempts a minute per client address`, async (t) => {
    // The limit counts before the form is checked, so these cost no password hashing.
    const statuses: number[] = [];
    for (let i = 0; i <= SIGN_IN_PER_MINUTE; i++) {
      const res = await app.inject({ method: 'POST', url: '/portal/sign-in', remoteAddress: '192.0.2.7', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'email=a%40b.example&password=x' });
      statuses.push(res.statusCode);
      if (i === SIGN_IN_PER_MINUTE) t.equal(JSON.parse(res.body).error, 'RATE_LIMITED');
    }
    t.strictSame(statuses, [...Array(SIGN_IN_PER_MINUTE).fill(403), 429]);
    const elsewhere = await app.inject({ method: 'POST', url: '/portal/sign-in', remoteAddress: '192.0.2.8', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'email=a%40b.example&password=x' });
    t.equal(elsewhere.statusCode, 403, 'another address is not limited');
  });

  await t.test('signed-out requests: a page redirects to the sign-in form; a POST without a session is refused', async (t) => {
    const c = client(app);
    const page = await c.get(`/portal/sites/${siteId}`);
    t.equal(page.statusCode, 303);
    t.equal(page.headers.location, '/portal/sign-in');
    const post = await c.post('/portal/keys', { label: 'x' });
    t.equal(post.statusCode, 403, 'no session, no CSRF secret');
    t.match(post.body, 'CSRF_INVALID');
  });
});
