/** robots.txt (RFC 9309): found, the Sitemap lines, and whether the start page may be crawled. */
import robotsParserModule from 'robots-parser';
import type { Finding, Probes } from '../../core/plugin-api.js';
import { isFile, mediaType } from './answers.js';
import { STRINGS } from './strings.js';

// The package is CommonJS (`module.exports = fn`) but its types declare `export default fn`;
// under NodeNext the default import is that function at run time, whatever the types say.
const robotsParser = robotsParserModule as unknown as typeof robotsParserModule.default;

/** json_check_data.robots (the URL is left out of what is stored). */
export interface RobotsData {
  url: string;
  status: number;
  found: boolean;
  sitemaps: string[];
  /** For user agent `*`; null when there is no robots.txt. */
  allows_start_page: boolean | null;
}

export async function checkRobots(probes: Probes, origin: string, startUrl: string): Promise<{ data: RobotsData; findings: Finding[] }> {
  const url = `${origin}/robots.txt`;
  const res = await probes.fetch(url);
  const found = isFile(res) && mediaType(res) === 'text/plain';
  if (!found) {
    return {
      data: { url, status: res.status, found, sitemaps: [], allows_start_page: null },
      findings: [{ rule: 'robots-txt-missing', category: 'webstandard', severity: 'error', text: STRINGS.robotsMissing(res.status, mediaType(res), res.failure) }],
    };
  }
  const robots = robotsParser(url, res.body);
  const sitemaps: string[] = [];
  for (const raw of robots.getSitemaps()) {
    try {
      const abs = new URL(raw, url).href;
      if (!sitemaps.includes(abs)) sitemaps.push(abs);
    } catch {
      // A Sitemap line that is no URL is ignored, as crawlers do.
    }
  }
  const allows = robots.isAllowed(startUrl, '*') ?? null;
  const findings: Finding[] = [];
  if (allows === false) {
    findings.push({ rule: 'robots-txt-disallows-start-page', category: 'webstandard', severity: 'warning', text: STRINGS.robotsDisallows });
  }
  return { data: { url, status: res.status, found, sitemaps, allows_start_page: allows }, findings };
}
