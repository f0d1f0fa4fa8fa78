/**
 * Type 9: Standard files. Probes the site's origin (of the page after redirects) for robots.txt,
 * its sitemaps, security.txt (RFC 9116) and the feeds the main document links to. Every probe is
 * a guarded, memoised request beside the page load; the page itself is not loaded again.
 * security.txt findings rate infosec, the rest webstandard.
 */
import { meta } from './meta.js';
import { definePlugin } from '../../core/plugin-api.js';
import { issueRatings } from '../../core/rating.js';
import { checkFeeds } from './feeds.js';
import { checkRobots } from './robots.js';
import { checkSecurityTxt } from './security-txt.js';
import { checkSitemaps } from './sitemaps.js';
import { STRINGS } from './strings.js';


export default definePlugin({
  meta,
  async run(artifacts, { probes }) {
    const startUrl = artifacts.finalUrl || artifacts.requestedUrl;
    const origin = new URL(startUrl).origin;
    const [robotsAndSitemaps, security, feeds] = await Promise.all([
      checkRobots(probes, origin, startUrl).then(async (robots) => ({
        robots,
        sitemaps: await checkSitemaps(probes, origin, robots.data.sitemaps),
      })),
      checkSecurityTxt(probes, origin),
      checkFeeds(probes, artifacts.mainDocument.html, artifacts.mainDocument.url || startUrl),
    ]);
    const { robots, sitemaps } = robotsAndSitemaps;
    const findings = [...robots.findings, ...sitemaps.findings, ...feeds.findings, ...security.findings];

    const { url: _robotsUrl, ...robotsData } = robots.data;
    const { url: _securityUrl, ...securityData } = security.data;
    return {
      ...issueRatings(findings, ['webstandard', 'infosec']),
      findings,
      summary: STRINGS.summary({
        robots: robots.data.found,
        sitemapEntries: sitemaps.pages,
        securityTxt: security.data.found,
        feeds: feeds.data.filter((f) => f.ok).length,
      }),
      data: { robots: robotsData, sitemaps: sitemaps.data, sitemap_pages: sitemaps.pages, security_txt: securityData, feeds: feeds.data },
    };
  },
});
