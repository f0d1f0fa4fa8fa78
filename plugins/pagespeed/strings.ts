/** User-facing strings of the Lighthouse plugin (type 30). */
import type { ReportText } from '../../core/plugin-api.js';

export const STRINGS = {
  summary: (s: Record<string, string>): ReportText => ({
    sv: `Lighthouse: prestanda ${s.performance}, tillgänglighet ${s.accessibility}, god praxis ${s['best-practices']}, sökmotoroptimering ${s.seo} (av 100).`,
    en: `Lighthouse: performance ${s.performance}, accessibility ${s.accessibility}, best practice ${s['best-practices']}, SEO ${s.seo} (out of 100).`,
  }),
  bestPractice: { sv: 'God praxis', en: 'Best practice' } satisfies ReportText,
  seo: { sv: 'Sökmotoroptimering', en: 'SEO' } satisfies ReportText,
  noLighthouse: { sv: 'Lighthouse gav inget resultat.', en: 'Lighthouse gave no result.' } satisfies ReportText,
};
