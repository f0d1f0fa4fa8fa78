import { findChromium } from './core/config.js';
import { BrowserPool } from './runners/browser-pool.js';
import { startStaticSite } from './runners/static-site.js';
const site = await startStaticSite('test/fixtures/sites/infosec-tracking');
const pool = new BrowserPool(findChromium(process.env.CHROMIUM_PATH));
const browser = await pool.acquire();
for (const ctxKind of ['incognito', 'default']) {
  const ctx = ctxKind === 'incognito' ? await browser.createBrowserContext() : browser.defaultBrowserContext();
  const page = await ctx.newPage();
  const cdp = await page.createCDPSession();
  await cdp.send('Network.enable');
  cdp.on('Network.responseReceivedExtraInfo', (e: any) => { if (e.blockedCookies?.length || e.exemptedCookies?.length) console.log(ctxKind, JSON.stringify(e.blockedCookies), JSON.stringify(e.exemptedCookies)); });
  await page.goto(site.url + 'index.html', { waitUntil: 'networkidle0' });
  const { cookies } = (await cdp.send('Network.getAllCookies')) as any;
  console.log(ctxKind, cookies.map((c: any) => `${c.name}@${c.domain} ${c.sameSite} secure=${c.secure}`));
  await page.close();
}
await pool.close(); await site.close();
