/**
 * Type 23: Tracking and Privacy. Rates infosec, issue-based (core/rating.ts), from the one page
 * load's network log and cookie jar. Nobody consents in an automated run, so every analytics
 * cookie present was set without consent.
 *
 * Rules and severities (each counts once, `count` says how many requests or cookies):
 *   analytics-cookie-without-consent  error    a cookie named like an analytics tool's (core/analytics.ts rules,
 *                                              with the additions and exclusions of analytics-cookies.ts)
 *   third-party-cookies               error    cookies of another site than the page's
 *   cookie-not-secure                 error    no Secure flag (also on HTTP pages: such a site should be HTTPS);
 *                                              the HTTP Observatory's cookies-without-secure-flag, −20
 *   third-party-requests              warning  requests to hosts of other sites (core/gather/site.ts)
 *   cookie-not-httponly               warning  no HttpOnly flag
 *   cookie-samesite-missing           warning  no SameSite attribute
 *   cookie-samesite-none              warning  SameSite=None
 *   cookie-long-lifetime              warning  the site asks for more than 365 days
 * Third-party hosts under a domain of The Block List Project's tracking list (core/trackers.ts) are
 * listed in the data (`known_trackers`) but not rated here; the privacy test (31) rates them.
 * Lifetimes are those the site declared in Set-Cookie (Max-Age before Expires) when the network
 * log has it, else the cookie jar's (which Chromium caps at 400 days). Third-party cookies that
 * the browser refused to store (Chromium blocks them by default) are read from their Set-Cookie
 * lines, so a site is judged on what it tries to set, not on this browser's settings.
 */
import { analyticsOfPage } from '../../core/analytics.js';
import { listedTrackers, loadTrackerList } from '../../core/trackers.js';
import { meta } from './meta.js';
import { cookieHost, hostOf, thirdPartyHosts } from '../../core/gather/site.js';
import { definePlugin, type CookieRecord, type Finding } from '../../core/plugin-api.js';
import { issueRatings, round } from '../../core/rating.js';
import { analyticsToolOf } from './analytics-cookies.js';
import { cookieKey, declaredCookies, refusedThirdPartyCookies } from '../../core/gather/set-cookie.js';
import { STRINGS } from './strings.js';

const DAY_S = 86_400;
const MAX_LIFETIME_DAYS = 365;

/** One cookie as stored in json_check_data. */
export interface CookieSummary {
  name: string;
  domain: string;
  first_party: boolean;
  secure: boolean;
  http_only: boolean;
  same_site: string | null;
  session: boolean;
  /** Days the site asked for (declared), else the browser's; null for a session cookie. */
  lifetime_days: number | null;
  /** Days the browser keeps it (after its own cap); null for a session cookie or one not stored. */
  browser_lifetime_days: number | null;
  /** In the browser's cookie jar after the load; false for a third-party cookie the browser refused. */
  stored: boolean;
  analytics_tool: string | null;
}

export default definePlugin({
  meta,
  run(artifacts) {
    const pageHost = hostOf(artifacts.finalUrl || artifacts.mainDocument.url) ?? '';
    const hosts = thirdPartyHosts(artifacts.network.map((r) => r.url), pageHost);
    const totalThirdParty = hosts.reduce((sum, h) => sum + h.requests, 0);
    const trackerList = loadTrackerList().domains;
    const knownTrackers = listedTrackers(hosts.map((h) => h.host), trackerList);

    // Tools the page shows by URL or code tell shared cookies apart (_pk_id: Matomo or Piwik PRO).
    const present = analyticsOfPage(artifacts).filter((d) => d.evidence.some((e) => e.kind !== 'cookie')).map((d) => d.tool);
    const declared = declaredCookies(artifacts.network);
    const nowS = Date.now() / 1000;
    const days = (seconds: number) => round(seconds / DAY_S, 1);
    const stored = new Set<string>();
    const cookies: CookieSummary[] = artifacts.cookies.map((c: CookieRecord) => {
      const key = cookieKey(c.name, cookieHost(c.domain));
      stored.add(key);
      const session = c.expires === -1;
      const browserDays = session ? null : days(c.expires - nowS);
      const asked = declared.get(key)?.lifetimeSeconds;
      return {
        name: c.name,
        domain: c.domain,
        first_party: c.firstParty,
        secure: c.secure,
        http_only: c.httpOnly,
        same_site: c.sameSite || null,
        session,
        lifetime_days: session ? null : asked !== undefined && asked !== null ? days(asked) : browserDays,
        browser_lifetime_days: browserDays,
        stored: true,
        analytics_tool: analyticsToolOf(c.name, present),
      };
    });
    // Third-party cookies the browser refused to store are still cookies the site tries to set.
    for (const d of refusedThirdPartyCookies(artifacts.network, stored, pageHost)) {
      cookies.push({
        name: d.name,
        domain: d.domain,
        first_party: false,
        secure: d.secure,
        http_only: d.httpOnly,
        same_site: d.sameSite || null,
        session: d.lifetimeSeconds === null,
        lifetime_days: d.lifetimeSeconds === null ? null : days(d.lifetimeSeconds),
        browser_lifetime_days: null,
        stored: false,
        analytics_tool: analyticsToolOf(d.name, present),
      });
    }

    const findings: Finding[] = [];
    /** What each finding concerns (cookie names or hosts), for json_check_data. */
    const concerns = new Map<string, string[]>();
    const add = (rule: string, severity: Finding['severity'], list: readonly CookieSummary[], text: Finding['text']) => {
      if (list.length === 0) return;
      findings.push({ rule, category: 'infosec', severity, text, count: list.length });
      concerns.set(rule, list.map((c) => c.name));
    };
    const label = (c: CookieSummary) => c.name;
    const analytics = cookies.filter((c) => c.analytics_tool);
    const thirdPartyCookies = cookies.filter((c) => !c.first_party);
    const notSecure = cookies.filter((c) => !c.secure);
    const notHttpOnly = cookies.filter((c) => !c.http_only);
    const sameSiteMissing = cookies.filter((c) => c.same_site === null);
    const sameSiteNone = cookies.filter((c) => c.same_site === 'None');
    const longLived = cookies.filter((c) => c.lifetime_days !== null && c.lifetime_days > MAX_LIFETIME_DAYS);

    add('analytics-cookie-without-consent', 'error', analytics, STRINGS.analyticsWithoutConsent(analytics.map((c) => `${c.name} (${c.analytics_tool})`)));
    add('third-party-cookies', 'error', thirdPartyCookies, STRINGS.thirdPartyCookies(thirdPartyCookies.map((c) => `${c.name} (${cookieHost(c.domain)})`)));
    add('cookie-not-secure', 'error', notSecure, STRINGS.notSecure(notSecure.map(label)));
    if (hosts.length > 0) {
      findings.push({
        rule: 'third-party-requests',
        category: 'infosec',
        severity: 'warning',
        text: STRINGS.thirdPartyRequests(hosts.map((h) => h.host), totalThirdParty),
        count: totalThirdParty,
      });
      concerns.set('third-party-requests', hosts.map((h) => h.host));
    }
    add('cookie-not-httponly', 'warning', notHttpOnly, STRINGS.notHttpOnly(notHttpOnly.map(label)));
    add('cookie-samesite-missing', 'warning', sameSiteMissing, STRINGS.sameSiteMissing(sameSiteMissing.map(label)));
    add('cookie-samesite-none', 'warning', sameSiteNone, STRINGS.sameSiteNone(sameSiteNone.map(label)));
    add('cookie-long-lifetime', 'warning', longLived, STRINGS.longLifetime(longLived.map((c) => ({ name: c.name, days: c.lifetime_days! }))));

    const { rating, ratings } = issueRatings(findings, ['infosec']);
    return {
      rating,
      ratings,
      findings,
      summary: STRINGS.summary({
        hosts: hosts.length,
        requests: totalThirdParty,
        cookies: cookies.length,
        thirdPartyCookies: thirdPartyCookies.length,
        analytics: analytics.length,
      }),
      data: {
        url: artifacts.finalUrl,
        third_party: { hosts, total: totalThirdParty },
        // Listed only, not rated: the privacy test (31) rates them from the same list.
        known_trackers: knownTrackers,
        cookies,
        analytics_cookies: analytics.map((c) => ({ name: c.name, tool: c.analytics_tool })),
        findings: findings.map((f) => ({ rule: f.rule, severity: f.severity, count: f.count ?? 1, details: { concerns: concerns.get(f.rule) ?? [] } })),
      },
    };
  },
});
