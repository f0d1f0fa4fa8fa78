/**
 * The world the bad-input runs play in: two sites, one key of every kind and a portal user,
 * created through the store (as the operator commands create them); the user signs in through
 * the portal's own form, as a browser does. The description is fetched from the running API.
 *
 * The two sites are served as real ones are (serveFuzzSites): https://fuzz.test/ and
 * https://other.fuzz.test/ on port 443, hosts of a test world (test/helpers/world) whose DNS
 * server the API is pointed at (WEBPERF_DNS_SERVERS), so that every name the fuzz makes the
 * service look at is answered on loopback and never by the system's resolver. The API allowlists
 * exactly those two origins: a well-formed webhook address reaches its receiver (a test event is
 * delivered), and the hostile addresses the fuzz sends (loopback, metadata) stay refused.
 */
import { randomBytes } from 'node:crypto';
import { Signer } from '@fastify/cookie';
import { SESSION_COOKIE, SESSION_MAX_AGE_MS } from '../../api/web/portal/common.js';
import type { Db } from '../../core/db/database.js';
import { createKey, revokeKey } from '../../core/store/keys.js';
import { createSite, getSetting } from '../../core/store/sites.js';
import { createUser, readSession, setPassword, writeSession } from '../../core/store/users.js';
import { startWorld } from '../../test/helpers/world/index.js';
import type { FuzzWorld } from './fuzz.js';

/** Spare sessions for the requests that end theirs (sign-out): more than a chaos run sends. */
const SPARE_SESSIONS = 64;

/** The two sites of the seeded world, served; `env` points the API at them. */
export interface FuzzSites {
  siteUrl: string;
  otherSiteUrl: string;
  /** WEBPERF_DNS_SERVERS and WEBPERF_EXTRA_CA_CERTS of their world; WEBPERF_ALLOW_TARGETS their two origins. */
  env: Record<string, string>;
  close(): Promise<void>;
}

/** Serves the two sites in a test world of their own. */
export async function serveFuzzSites(): Promise<FuzzSites> {
  const world = await startWorld();
  try {
    const site = await world.site('fuzz.test');
    const other = await world.site('other.fuzz.test');
    return {
      siteUrl: site.url,
      otherSiteUrl: other.url,
      env: world.env({ WEBPERF_ALLOW_TARGETS: [site.origin, other.origin].join(',') }),
      close: () => world.close(),
    };
  } catch (err) {
    await world.close();
    throw err;
  }
}

/** Seeds sites and keys; `port` is the API's. */
export async function seedWorld(db: Db, port: number, testTypeId: number, sites: Pick<FuzzSites, 'siteUrl' | 'otherSiteUrl'>): Promise<FuzzWorld> {
  const siteId = await createSite(db, { title: 'Fuzz site', url: sites.siteUrl, monthlyQuota: 1_000_000 });
  const otherSiteId = await createSite(db, { title: 'Other site', url: sites.otherSiteUrl, monthlyQuota: 1_000_000 });
  const standard = await createKey(db, { kind: 'standard', siteIds: [siteId], label: 'fuzz standard' });
  const other = await createKey(db, { kind: 'standard', siteIds: [otherSiteId], label: 'fuzz other site' });
  const agency = await createKey(db, { kind: 'agency', siteIds: [siteId, otherSiteId], label: 'fuzz agency' });
  const admin = await createKey(db, { kind: 'admin', siteIds: [], label: 'fuzz admin' });
  const revoked = await createKey(db, { kind: 'standard', siteIds: [siteId], label: 'fuzz revoked' });
  await revokeKey(db, revoked.id);
  const email = 'fuzz-agency@example.test';
  const password = randomBytes(18).toString('base64url');
  const userId = await createUser(db, { email, level: 'agency', siteIds: [siteId] });
  if (userId === null) throw new Error(`the portal user ${email} exists already`);
  await setPassword(db, userId, password);
  return {
    port,
    siteId,
    siteUrl: sites.siteUrl,
    otherSiteId,
    testTypeId,
    keys: { standard: standard.key, 'other-site': other.key, agency: agency.key, admin: admin.key, revoked: revoked.key },
    session: await portalSession(db, `http://127.0.0.1:${port}`, { email, password, userId }),
  };
}

/** The `name=value` of the session cookie an answer sets. */
function sessionCookie(res: Response): string {
  const set = res.headers.getSetCookie().find((c) => c.startsWith(`${SESSION_COOKIE}=`));
  if (!set) throw new Error(`${res.url}: ${res.status} without a session cookie`);
  return set.split(';')[0];
}

/** The CSRF token of a portal page's forms. */
function csrfToken(html: string): string {
  const token = /name="_csrf" value="([^"]+)"/.exec(html)?.[1];
  if (!token) throw new Error('no CSRF token on the page');
  return token;
}

/**
 * Signs the user in through the portal's form (GET the form, POST it with its token), reads the
 * signed-in session's CSRF token from a page, and makes the spare sessions: copies of that
 * session (same user, same CSRF secret) stored through the session store under new ids, each
 * signed with the portal's cookie secret as the portal signs its own.
 */
async function portalSession(db: Db, base: string, user: { email: string; password: string; userId: number }): Promise<FuzzWorld['session']> {
  const get = (path: string, cookie?: string) => fetch(`${base}${path}`, { redirect: 'manual', headers: cookie ? { cookie } : {}, signal: AbortSignal.timeout(30_000) });
  const form = await get('/portal/sign-in');
  const signedIn = await fetch(`${base}/portal/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie: sessionCookie(form), 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ email: user.email, password: user.password, _csrf: csrfToken(await form.text()) }),
    signal: AbortSignal.timeout(30_000),
  });
  if (signedIn.status !== 303) throw new Error(`portal sign-in answered ${signedIn.status}`);
  const cookie = sessionCookie(signedIn);
  const page = await get('/portal/', cookie);
  if (page.status !== 200) throw new Error(`the portal answered ${page.status} to the signed-in user`);
  const csrf = csrfToken(await page.text());

  const secret = await getSetting<string>(db, 'portal_session_secret');
  if (!secret) throw new Error('the portal has no session secret');
  const signer = new Signer(secret);
  const { valid, value: sessionId } = signer.unsign(decodeURIComponent(cookie.slice(SESSION_COOKIE.length + 1)));
  const data = valid && sessionId ? await readSession(db, sessionId) : null;
  if (!data) throw new Error('the signed-in session is not in the store');
  const spares: string[] = [];
  for (let i = 0; i < SPARE_SESSIONS; i++) {
    const id = randomBytes(24).toString('base64url');
    await writeSession(db, id, data, user.userId, new Date(Date.now() + SESSION_MAX_AGE_MS));
    spares.push(`${SESSION_COOKIE}=${encodeURIComponent(signer.sign(id))}`);
  }
  return {
    cookie,
    csrf,
    spareCookie: () => {
      const spare = spares.pop();
      if (!spare) throw new Error(`more than ${SPARE_SESSIONS} requests that end their session`);
      return spare;
    },
  };
}

/** GETs a JSON document from the API over loopback. */
export async function getJson<T>(url: string): Promise<T> {
  const res = await fetch(url, { signal: AbortSignal.timeout(30_000) });
  if (!res.ok) throw new Error(`GET ${url}: ${res.status}`);
  return (await res.json()) as T;
}
