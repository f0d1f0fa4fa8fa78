/**
 * Type 101: which web-analytics tools the page uses (core/analytics.ts and its rules file), from
 * the one page load: every request URL, the served HTML and the text of every script the page
 * ran (external and inline), and the cookies present after the load.
 *
 * NOT_RATED: it is a detection, not a judgement (the summary says so); whether analytics cookies
 * were set without consent is judged by the tracking plugin (type 23).
 * json_check_data is `{ tools, detections }`: `tools` (sorted names) is what the runner stores per
 * site and test date for the agency CSV.
 */
import { ANALYTICS_TOOLS, analyticsOfPage } from '../../core/analytics.js';
import { meta } from './meta.js';
import { definePlugin, NOT_RATED } from '../../core/plugin-api.js';
import { STRINGS } from './strings.js';


export default definePlugin({
  meta,
  run(artifacts) {
    const detections = analyticsOfPage(artifacts);
    const tools = detections.map((d) => d.tool);
    const head = tools.length > 0 ? STRINGS.found(tools) : STRINGS.none(ANALYTICS_TOOLS.length);
    const line = (lang: 'sv' | 'en') =>
      detections.map((d) => `- ${d.tool}: ${d.evidence.map((e) => `${STRINGS.evidenceKind[e.kind][lang]} ${e.match}`).join(', ')}`);
    return {
      rating: NOT_RATED,
      ratings: {},
      findings: [],
      summary: {
        sv: [head.sv, ...line('sv')].join('\n'),
        en: [head.en, ...line('en')].join('\n'),
      },
      data: { tools, detections },
    };
  },
});
