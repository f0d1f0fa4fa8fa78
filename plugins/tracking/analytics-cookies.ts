/**
 * Which analytics tool a cookie belongs to: the shared rules (core/analytics.ts, from
 * core/data/analytics-rules.json) first, then a few well-known analytics cookies those rules
 * list no names for. Two entries of the rules are not taken as analytics cookies here, because
 * one alone would mean "analytics cookie set without consent" (an error) on sites without
 * analytics: AWSALB* (Siteimprove lists it, but every AWS load balancer sets it) and
 * mtm_consent* (Matomo Tag Manager's record of a consent choice).
 */
import { analyticsCookieTool } from '../../core/analytics.js';

const NOT_ANALYTICS = ['AWSALB', 'mtm_consent'];

/** Analytics cookie prefixes the rules file lacks (their tools are detected there by script only). */
const EXTRA_COOKIES: readonly { tool: string; prefixes: readonly string[] }[] = [
  { tool: 'Google Analytics', prefixes: ['__utm'] },
  { tool: 'Matomo', prefixes: ['_pk_'] },
  { tool: 'Hotjar', prefixes: ['_hj'] },
  { tool: 'Microsoft Clarity', prefixes: ['_clck', '_clsk'] },
  { tool: 'Yandex Metrika', prefixes: ['_ym_'] },
  { tool: 'Heap', prefixes: ['_hp2_'] },
  { tool: 'Snowplow', prefixes: ['_sp_'] },
  { tool: 'Meta Pixel', prefixes: ['_fbp'] },
];

/**
 * The analytics tool a cookie belongs to, or null. `present`: tools otherwise detected on the
 * page, which settle cookies several tools share (_pk_id: Matomo or Piwik PRO).
 */
export function analyticsToolOf(cookieName: string, present: readonly string[] = []): string | null {
  if (NOT_ANALYTICS.some((p) => cookieName.startsWith(p))) return null;
  return analyticsCookieTool(cookieName, present)
    ?? EXTRA_COOKIES.find(({ prefixes }) => prefixes.some((p) => cookieName.startsWith(p)))?.tool
    ?? null;
}
