/**
 * The access matrix of the premium API, through the real API over a fresh real PostgreSQL:
 * every premium route, without and with the /0.1 version segment, × every kind of caller
 * (no key, an unknown key, a revoked key, another site's key, the site's standard key, an agency
 * key whose portfolio holds the site, an admin key). The rule under test, on every premium route:
 * 401 for a missing or invalid key, 403 for a key without access to the named site, the success
 * status for a key with access; errors are { statusCode, error, message } exactly; no response
 * ever carries a key. Orders are queued only (no runner runs here) against a large quota.
 */
import t, { type Test } from 'tap';
import { randomBytes } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { lix } from '../../core/lix.js';
import { createKey, revokeKey } from '../../core/store/keys.js';
import { queueRun } from '../../core/store/runs.js';
import { createSite } from '../../core/store/sites.js';
import { buildTestApi } from '../helpers/api.js';

const BASE = 'http://webperf.test';
const QUOTA = 1_000_000;
const PREFIXES = ['', '/0.1'] as const;

// The rate limit (its own tests in orders.test.ts) is off: the matrix calls every route many
// times with the same few keys.
const api = await buildTestApi(t, { rateLimitPerMinute: 0 });
const { app, db, registry } = api;

interface Site {
  id: number;
  title: string;
  /** Start page. */
  url: string;
  /** A queued private test of the site (queueRun, private: true). */
  privateTestId: number;
  /** The address that private test tests. */
  privateUrl: string;
}

async function arrangeSite(title: string, url: string): Promise<Site> {
  const id = await createSite(db, { title, url, monthlyQuota: QUOTA });
  const privateUrl = `${url}privat`;
  const privateTestId = Number(await queueRun(db, { siteId: id, url: privateUrl, private: true }));
  return { id, title, url, privateTestId, privateUrl };
}

// SITE: the site every matrix cell names. PORTFOLIO: the agency's second site. OUTSIDE: a site
// no key of the matrix reaches except its own standard key (the "another site's key").
const SITE = await arrangeSite('Exempelby kommun', 'https://www.exempel.se/');
const PORTFOLIO = await arrangeSite('Byråkund AB', 'https://www.byrakund.se/');
const OUTSIDE = await arrangeSite('Annan kommun', 'https://www.annan.se/');
const ALL_SITES = [SITE, PORTFOLIO, OUTSIDE];

const standardKey = (await createKey(db, { kind: 'standard', siteIds: [SITE.id], label: 'standard' })).key;
const agencyKey = (await createKey(db, { kind: 'agency', siteIds: [SITE.id, PORTFOLIO.id], label: 'agency' })).key;
const adminKey = (await createKey(db, { kind: 'admin', siteIds: [], label: 'admin' })).key;
const otherKey = (await createKey(db, { kind: 'standard', siteIds: [OUTSIDE.id], label: 'other' })).key;
const revoked = await createKey(db, { kind: 'standard', siteIds: [SITE.id], label: 'revoked' });
t.ok(await revokeKey(db, revoked.prefix), 'the revoked key is revoked');
// Well-formed (wpk and 55 letters and digits) but never issued.
const badKey = `wpk${randomBytes(64).toString('base64').replace(/[^A-Za-z0-9]/g, '').slice(0, 55)}`;
t.match(badKey, /^wpk[A-Za-z0-9]{55}$/, 'the bad key is well-formed');

/** Every key of this file: none may ever appear in a response. */
const ALL_KEYS = [standardKey, agencyKey, adminKey, otherKey, revoked.key, badKey];

type Kind = 'none' | 'bad' | 'revoked' | 'other' | 'standard' | 'agency' | 'admin';
const KINDS: Kind[] = ['none', 'bad', 'revoked', 'other', 'standard', 'agency', 'admin'];
const KEY_OF: Record<Kind, string | null> = {
  none: null,
  bad: badKey,
  revoked: revoked.key,
  other: otherKey,
  standard: standardKey,
  agency: agencyKey,
  admin: adminKey,
};
/** Site ids each kind reaches (null: every site). */
const REACH: Record<Exclude<Kind, 'none' | 'bad' | 'revoked'>, number[] | null> = {
  other: [OUTSIDE.id],
  standard: [SITE.id],
  agency: [SITE.id, PORTFOLIO.id],
  admin: null,
};

/** A multipart/form-data body of text fields. */
function form(fields: Record<string, string>) {
  const boundary = '----webperf-access-matrix';
  const parts = Object.entries(fields).map(([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`);
  return { payload: Buffer.from(parts.join('') + `--${boundary}--\r\n`), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

const LIX_TEXT = 'Det här är en kort text. Den har två meningar och några ganska långa ordformer.';
const LIX_EXPECTED = lix(LIX_TEXT, 'sv');
const TESTNUM = registry.ids()[0];

interface SuccessContext {
  site: Site;
  prefix: string;
  /** Sites the caller's key reaches (null: every site). */
  reach: number[] | null;
}

interface Route {
  method: 'GET' | 'POST';
  /** The route as documented, for test names. */
  name: string;
  path: (site: Site) => string;
  /** The route names a site (path or site-id header): a key without access gets 403. */
  namesSite: boolean;
  /** Whether the success body carries api_version. */
  versioned: boolean;
  headers?: (site: Site) => Record<string, string>;
  body?: (site: Site) => { payload: Buffer; headers: Record<string, string> };
  /** Route-specific checks of a 200 body. */
  success: (t: Test, body: any, ctx: SuccessContext) => void;
}

const siteIdHeader = (s: Site) => ({ 'site-id': String(s.id) });

const ROUTES: Route[] = [
  {
    method: 'GET',
    name: '/stats/',
    path: () => '/stats/',
    namesSite: false,
    versioned: false,
    success: (t, body, { reach }) => {
      t.ok(Array.isArray(body), 'an array');
      const expected = reach ?? ALL_SITES.map((s) => s.id).sort((a, b) => a - b);
      t.strictSame(body.map((s: any) => s.site_id), expected, 'exactly the sites the key reaches');
      for (const s of body) {
        const site = ALL_SITES.find((x) => x.id === s.site_id)!;
        t.strictSame(s, { site_id: site.id, title: site.title, url: site.url, uri: `${BASE}/item/${site.id}`, latest_test_date: null }, `site ${site.id}`);
      }
    },
  },
  {
    method: 'GET',
    name: '/stats/{siteId}',
    path: (s) => `/stats/${s.id}`,
    namesSite: true,
    versioned: true,
    success: (t, body, { site }) => {
      t.equal(body.uri, `${BASE}/item/${site.id}`);
      t.strictSame(body.data, [], 'no public result yet (the private test never shows here)');
      t.equal(body.result_count, 0);
    },
  },
  {
    method: 'GET',
    name: '/stats_per_month/{siteId}',
    path: (s) => `/stats_per_month/${s.id}`,
    namesSite: true,
    versioned: true,
    success: (t, body, { site }) => {
      t.equal(body.uri, `${BASE}/item/${site.id}`);
      t.strictSame(body.data, []);
      t.equal(body.result_count, 0);
    },
  },
  {
    method: 'GET',
    name: '/private_stats/{siteId}',
    path: (s) => `/private_stats/${s.id}`,
    namesSite: true,
    versioned: true,
    headers: siteIdHeader,
    success: (t, body, { site }) => {
      t.equal(body.uri, `${BASE}/item/${site.id}`);
      t.ok(Array.isArray(body.data) && body.data.length >= 1, 'lists the private tests');
      t.ok(
        body.data.some((e: any) => e.uri === `${BASE}/private_stats/${site.id}/${site.privateTestId}` && e.url === site.privateUrl),
        'holds the site\'s private test',
      );
      const host = new URL(site.url).host;
      for (const e of body.data) {
        t.equal(new URL(e.url).host, host, `only the site's own addresses (${e.url})`);
        t.match(e.uri, new RegExp(`^${BASE}/private_stats/${site.id}/[0-9]+$`), 'only the site\'s own test ids');
      }
    },
  },
  {
    method: 'GET',
    name: '/private_stats/{siteId}/{testId}',
    path: (s) => `/private_stats/${s.id}/${s.privateTestId}`,
    namesSite: true,
    versioned: true,
    headers: siteIdHeader,
    success: (t, body, { site }) => {
      t.equal(body.uri, `${BASE}/item/${site.id}`);
      t.equal(body.status, 'queued', 'no runner runs here: still queued');
      t.equal(body.tested_url, site.privateUrl);
      t.strictSame(body.data, []);
      t.equal(body.result_count, 0);
    },
  },
  {
    method: 'GET',
    name: '/categories/',
    path: () => '/categories/',
    namesSite: false,
    versioned: true,
    success: (t, body) => {
      t.ok(Array.isArray(body.categories), 'a categories list');
    },
  },
  {
    method: 'GET',
    name: '/quota/',
    path: () => '/quota/',
    namesSite: true,
    versioned: true,
    headers: siteIdHeader,
    success: (t, body, { site }) => {
      t.equal(body.site_id, site.id);
      t.equal(body.monthly_quota, QUOTA);
      t.equal(body.effective_limit, QUOTA);
      t.equal(body.period_days, 30);
      t.equal(body.available, QUOTA - body.used);
    },
  },
  {
    method: 'POST',
    name: '/retest/',
    path: () => '/retest/',
    namesSite: true,
    versioned: true,
    headers: (s) => ({ ...siteIdHeader(s), testnums: `[${TESTNUM}]` }),
    success: (t, body, { site }) => {
      t.equal(body.site_id, site.id);
      t.equal(body.url, site.url, 'the site\'s own start page');
      t.strictSame(body.test_types, [TESTNUM]);
      t.equal(body.credits, 1);
    },
  },
  {
    method: 'POST',
    name: '/test_once/',
    path: () => '/test_once/',
    namesSite: true,
    versioned: true,
    headers: siteIdHeader,
    body: (s) => form({ urls: `${s.url}matris` }),
    success: (t, body, { site, prefix }) => {
      t.equal(body.site_id, site.id);
      t.equal(body.url_count, 1);
      t.equal(body.credits, 15);
      const ids = Object.keys(body.results);
      t.equal(ids.length, 1, 'one private test');
      t.equal(body.results[ids[0]], `${BASE}${prefix}/private_stats/${site.id}/${ids[0]}`);
      t.strictSame(body.urls, { [ids[0]]: `${site.url}matris` });
    },
  },
  {
    method: 'POST',
    name: '/tools/lix/',
    path: () => '/tools/lix/',
    namesSite: true,
    versioned: true,
    headers: siteIdHeader,
    body: () => form({ content: LIX_TEXT }),
    success: (t, body) => {
      t.equal(body.lix, LIX_EXPECTED.lix, 'the text\'s LIX');
      t.equal(body.words, LIX_EXPECTED.words);
    },
  },
  {
    method: 'GET',
    name: '/tools/lix/',
    path: () => `/tools/lix/?content=${encodeURIComponent(LIX_TEXT)}`,
    namesSite: true,
    versioned: true,
    headers: siteIdHeader,
    success: (t, body) => {
      t.equal(body.lix, LIX_EXPECTED.lix, 'the text\'s LIX');
      t.equal(body.words, LIX_EXPECTED.words);
    },
  },
];

async function call(route: Route, prefix: string, site: Site, key: string | null): Promise<LightMyRequestResponse> {
  const body = route.body?.(site);
  const headers: Record<string, string> = {
    ...(route.headers?.(site) ?? {}),
    ...(body?.headers ?? {}),
    ...(key === null ? {} : { 'api-key': key }),
  };
  return app.inject({ method: route.method, url: `${prefix}${route.path(site)}`, headers, ...(body ? { payload: body.payload } : {}) });
}

/** No key of this file anywhere in the answer (body or headers). */
function noKeyLeak(t: Test, res: LightMyRequestResponse) {
  const headers = JSON.stringify(res.headers);
  for (const key of ALL_KEYS) {
    // Every key ends in its 43-character secret.
    const secret = key.slice(-43);
    t.equal(secret.length, 43);
    t.notOk(res.body.includes(key) || res.body.includes(secret), 'no key in the body');
    t.notOk(headers.includes(key) || headers.includes(secret), 'no key in the headers');
  }
}

function parse(res: LightMyRequestResponse): any {
  try {
    return res.json();
  } catch {
    return res.body;
  }
}

/** The error body, exactly { statusCode, error, message }. */
function isError(t: Test, res: LightMyRequestResponse, status: number, code: string) {
  const body = parse(res);
  t.strictSame(
    { status: res.statusCode, body: { ...body, message: '' } },
    { status, body: { statusCode: status, error: code, message: '' } },
    `${status} ${code}, body exactly { statusCode, error, message }`,
  );
  t.ok(typeof body?.message === 'string' && body.message.length > 0, 'a message');
  t.match(res.headers['content-type'], /^application\/json/);
}

function isSuccess(t: Test, res: LightMyRequestResponse, route: Route, ctx: SuccessContext) {
  const body = parse(res);
  t.equal(res.statusCode, 200, `200 (got ${res.statusCode}: ${res.body.slice(0, 300)})`);
  if (res.statusCode !== 200) return;
  if (route.versioned) t.equal(body.api_version, '0.1', 'api_version 0.1');
  route.success(t, body, ctx);
}

/** What a cell expects, by kind: an error (status, code) or success with the key's reach. */
function expectation(route: Route, kind: Kind): { status: number; code: string } | { reach: number[] | null } {
  switch (kind) {
    case 'none':
      return { status: 401, code: 'KEY_MISSING' };
    case 'bad':
    case 'revoked':
      return { status: 401, code: 'KEY_INVALID' };
    case 'other':
      return route.namesSite ? { status: 403, code: 'FORBIDDEN_SITE' } : { reach: REACH.other };
    default:
      return { reach: REACH[kind] };
  }
}

let cells = 0;
t.test('the access matrix: every premium route × version segment × kind of key', async (t) => {
  for (const route of ROUTES) {
    for (const prefix of PREFIXES) {
      for (const kind of KINDS) {
        cells++;
        const exp = expectation(route, kind);
        const label = 'status' in exp ? `${exp.status} ${exp.code}` : '200';
        await t.test(`${route.method} ${prefix}${route.name} · ${kind} key → ${label}`, async (t) => {
          const res = await call(route, prefix, SITE, KEY_OF[kind]);
          if ('status' in exp) isError(t, res, exp.status, exp.code);
          else isSuccess(t, res, route, { site: SITE, prefix, reach: exp.reach });
          noKeyLeak(t, res);
        });
      }
    }
  }
});

t.test('the matrix is complete', async (t) => {
  t.equal(ROUTES.length, 11, 'eleven premium routes');
  t.equal(cells, 11 * 2 * 7, 'every route × version segment × kind');
});

t.test('an agency key reaches both its portfolio sites and gets 403 for a site outside it', async (t) => {
  for (const route of ROUTES.filter((r) => r.namesSite)) {
    for (const prefix of PREFIXES) {
      for (const site of [SITE, PORTFOLIO]) {
        await t.test(`${route.method} ${prefix}${route.name} · agency key, portfolio site ${site.title} → 200`, async (t) => {
          const res = await call(route, prefix, site, agencyKey);
          isSuccess(t, res, route, { site, prefix, reach: REACH.agency });
          noKeyLeak(t, res);
        });
      }
      await t.test(`${route.method} ${prefix}${route.name} · agency key, site outside the portfolio → 403`, async (t) => {
        const res = await call(route, prefix, OUTSIDE, agencyKey);
        isError(t, res, 403, 'FORBIDDEN_SITE');
        noKeyLeak(t, res);
      });
    }
  }
});

t.test('an admin key reaches every site', async (t) => {
  for (const route of ROUTES.filter((r) => r.namesSite)) {
    for (const prefix of PREFIXES) {
      for (const site of ALL_SITES) {
        await t.test(`${route.method} ${prefix}${route.name} · admin key, ${site.title} → 200`, async (t) => {
          const res = await call(route, prefix, site, adminKey);
          isSuccess(t, res, route, { site, prefix, reach: null });
          noKeyLeak(t, res);
        });
      }
    }
  }
});

t.test('a standard key gets 403 for its portfolio neighbour and for the outside site', async (t) => {
  for (const route of ROUTES.filter((r) => r.namesSite)) {
    for (const prefix of PREFIXES) {
      for (const site of [PORTFOLIO, OUTSIDE]) {
        await t.test(`${route.method} ${prefix}${route.name} · standard key of another site, ${site.title} → 403`, async (t) => {
          const res = await call(route, prefix, site, standardKey);
          isError(t, res, 403, 'FORBIDDEN_SITE');
          noKeyLeak(t, res);
        });
      }
    }
  }
});

t.test('/item/{id} (open data) with each kind of key: scores only for a key that reaches the site, never a key', async (t) => {
  for (const kind of KINDS) {
    const res = await app.inject({ method: 'GET', url: `/item/${SITE.id}`, headers: KEY_OF[kind] === null ? {} : { 'api-key': KEY_OF[kind]! } });
    noKeyLeak(t, res);
    if (kind === 'bad' || kind === 'revoked') {
      isError(t, res, 401, 'KEY_INVALID');
    } else if (kind === 'none' || kind === 'other') {
      // Not a public-sector site: nobody without access learns of it.
      isError(t, res, 404, 'SITE_NOT_FOUND');
    } else {
      t.equal(res.statusCode, 200, `${kind}: 200`);
      t.ok(res.json().data.scores, `${kind}: with scores`);
    }
  }
});
