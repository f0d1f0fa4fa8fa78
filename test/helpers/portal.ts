/**
 * Arrange the portal for browser tests: the real app listening on loopback over a fresh test
 * database, a premium site, portal users, and a signed-in Chromium page.
 */
import type { AddressInfo } from 'node:net';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { Browser, BrowserContext, Page } from 'puppeteer-core';
import type { Config } from '../../core/config.js';
import { createSite } from '../../core/store/sites.js';
import { createUser, setPassword, type UserLevel } from '../../core/store/users.js';
import { buildTestApi, type TestApi } from './api.js';
import { testBrowserPool } from './fixture-artifacts.js';

export interface PortalServer extends TestApi {
  /** http://127.0.0.1:port */
  base: string;
}

export async function startPortal(t: { teardown(fn: () => unknown): void }, overrides: Partial<Config> = {}): Promise<PortalServer> {
  const api = await buildTestApi(t, { rateLimitPerMinute: 100_000, ...overrides });
  await api.app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = api.app.server.address() as AddressInfo;
  return { ...api, base: `http://127.0.0.1:${port}` };
}

/** A site on a premium level with `quota` credits per 30 days. */
export async function premiumSite(api: TestApi, title: string, url: string, quota = 100): Promise<number> {
  await api.db.insertInto('premium_levels').values({ name: `level-${quota}`, monthly_quota: quota }).onConflict((oc) => oc.doNothing()).execute();
  return createSite(api.db, { title, url, premiumLevel: `level-${quota}` });
}

/** A user with a password set (the one-time link is exercised by the journey test). */
export async function portalUser(api: TestApi, email: string, password: string, level: UserLevel, siteIds: number[]): Promise<number> {
  const id = await createUser(api.db, { email, level, siteIds });
  if (id === null) throw new Error(`user ${email} exists`);
  await setPassword(api.db, id, password);
  return id;
}

/** A fresh browser context (its own cookies) in the test process's one Chromium. */
export async function browserContext(t: { teardown(fn: () => unknown): void }): Promise<{ browser: Browser; context: BrowserContext; page: Page }> {
  const browser = await testBrowserPool().acquire();
  const context = await browser.createBrowserContext();
  t.teardown(() => context.close().catch(() => {}));
  const page = await context.newPage();
  return { browser, context, page };
}

/** Signs in through the form, as a person does; resolves on the page after the redirect. */
export async function signIn(page: Page, base: string, email: string, password: string): Promise<number> {
  await page.goto(`${base}/portal/sign-in`);
  await page.type('#email', email);
  await page.type('#password', password);
  const [res] = await Promise.all([page.waitForNavigation(), page.click('form.portal-form button[type=submit]')]);
  return res?.status() ?? 0;
}

/** Submits the form matched by `selector` and waits for the next page; its HTTP status. */
export async function submit(page: Page, selector: string): Promise<number> {
  const [res] = await Promise.all([page.waitForNavigation(), page.$eval(selector, (f) => (f as HTMLFormElement).requestSubmit())]);
  return res?.status() ?? 0;
}

/** Text content of the first element matching `selector`, trimmed; null when none. */
export async function text(page: Page, selector: string): Promise<string | null> {
  return page.$eval(selector, (e) => (e.textContent ?? '').trim()).catch(() => null);
}

export type PortalClient = ReturnType<typeof portalClient>;

/** A minimal cookie jar and form client over inject, as a browser would use the portal. */
export function portalClient(app: FastifyInstance) {
  let cookie = '';
  const keep = (res: LightMyRequestResponse) => {
    const set = res.cookies.find((c) => c.name === 'webperf_session');
    if (set) cookie = set.value === '' || (set.expires && set.expires.getTime() < Date.now()) ? '' : `webperf_session=${set.value}`;
    return res;
  };
  const token = (html: string) => /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';
  return {
    get cookie() {
      return cookie;
    },
    get: async (url: string) => keep(await app.inject({ method: 'GET', url, headers: { accept: 'text/html', 'accept-language': 'en', ...(cookie ? { cookie } : {}) } })),
    post: async (url: string, fields: Record<string, string>) =>
      keep(await app.inject({
        method: 'POST',
        url,
        headers: { accept: 'text/html', 'accept-language': 'en', 'content-type': 'application/x-www-form-urlencoded', ...(cookie ? { cookie } : {}) },
        payload: new URLSearchParams(fields).toString(),
      })),
    token,
  };
}

/** Signs `c` in through the sign-in form. */
export async function portalSignIn(c: PortalClient, email: string, password: string) {
  const form = await c.get('/portal/sign-in');
  return c.post('/portal/sign-in', { _csrf: c.token(form.body), email, password });
}
