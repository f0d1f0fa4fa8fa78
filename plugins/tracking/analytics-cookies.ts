/**
 * Cookie-name prefixes of web-analytics tools. Mirrors the `cookies` lists of the shared
 * analytics-rules.json (tool names as there), so that this plugin does not depend on the analytics
 * module before it exists; the lead may point it at core/analytics.ts later. Deliberate
 * differences: `_pk_` stands for every Matomo/Piwik PRO visitor cookie and is attributed to Matomo;
 * `_hj` and `__utm` cover Hotjar's and Urchin-style Google cookies by prefix; Siteimprove's AWSALB*
 * (any AWS load balancer sets them) and Matomo Tag Manager's mtm_consent* (they record a consent
 * choice) are left out; _fbp, _clck/_clsk, _ym_, _hp2_ and _sp_ are well-known extras whose tools
 * the rules detect by script but list no cookies for.
 */
export const ANALYTICS_COOKIES: readonly { tool: string; prefixes: readonly string[] }[] = [
  { tool: 'Google Analytics', prefixes: ['_ga', '_gid', '_gat', '__utm'] },
  { tool: 'Matomo', prefixes: ['_pk_'] },
  { tool: 'Piwik PRO', prefixes: ['ppms_privacy_', 'stg_traffic_source_priority', 'stg_last_interaction', 'stg_returning_visitor', 'stg_fired__', 'stg_utm_campaign', 'stg_pk_campaign', 'stg_externalReferrer', '_stg_optout', 'stg_global_opt_out'] },
  { tool: 'Siteimprove Analytics', prefixes: ['nmstat', 'szcib', 'sz-feedback-should-hide'] },
  { tool: 'Vizzit', prefixes: ['___vizzit'] },
  { tool: 'Monsido Statistics', prefixes: ['monsido'] },
  { tool: 'Hotjar', prefixes: ['_hj'] },
  { tool: 'Adobe Analytics', prefixes: ['s_ecid', 's_cc', 's_sq', 's_vi', 's_fid', 's_vh'] },
  { tool: 'New Relic', prefixes: ['NREUM', 'NRAGENT'] },
  { tool: 'Fullstory', prefixes: ['fs_session', 'fs_uid'] },
  { tool: 'Application Insights', prefixes: ['ai_session', 'ai_user'] },
  { tool: 'Microsoft Clarity', prefixes: ['_clck', '_clsk'] },
  { tool: 'Yandex Metrika', prefixes: ['_ym_'] },
  { tool: 'Heap', prefixes: ['_hp2_'] },
  { tool: 'Snowplow', prefixes: ['_sp_'] },
  { tool: 'Meta Pixel', prefixes: ['_fbp'] },
];

/** The analytics tool a cookie name belongs to, or null. */
export function analyticsToolOf(cookieName: string): string | null {
  for (const { tool, prefixes } of ANALYTICS_COOKIES) {
    if (prefixes.some((p) => cookieName.startsWith(p))) return tool;
  }
  return null;
}
