/** User-facing strings of the web-analytics plugin (type 101). */
import type { AnalyticsEvidenceKind } from '../../core/analytics.js';
import type { ReportText } from '../../core/plugin-api.js';

export const STRINGS = {
  found: (tools: string[]): ReportText => ({
    sv: `Webbanalys som används: ${tools.join(', ')}. Detta är en kartläggning, inget betyg.`,
    en: `Web analytics in use: ${tools.join(', ')}. This is a detection, not a judgement: not rated.`,
  }),
  none: (known: number): ReportText => ({
    sv: `Ingen av ${known} kända webbanalystjänster hittades. Detta är en kartläggning, inget betyg.`,
    en: `None of ${known} known web-analytics tools was found. This is a detection, not a judgement: not rated.`,
  }),
  evidenceKind: {
    url: { sv: 'anrop', en: 'request' },
    body: { sv: 'kod', en: 'code' },
    cookie: { sv: 'kaka', en: 'cookie' },
  } satisfies Record<AnalyticsEvidenceKind, ReportText>,
};
