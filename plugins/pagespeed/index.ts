/**
 * Type 30: Lighthouse performance, accessibility, best practice and SEO from the one gather run.
 * Ratings are 5 × category score (at least 1). Performance rates pagespeed, accessibility rates
 * a11y; best practice and SEO count toward the overall rating (the mean of the four).
 * One report line per failing audit (score < 0.9), severity by Lighthouse's score.
 */
import { meta } from './meta.js';
import { definePlugin, NOT_RATED, type Finding, type ReportText } from '../../core/plugin-api.js';
import { lighthouseRating, lighthouseSeverity, meanRating } from '../../core/rating.js';
import { STRINGS } from './strings.js';


/** Lab metrics kept in json_check_data, by Lighthouse audit id. */
const METRICS: Record<string, string> = {
  'first-contentful-paint': 'fcp_ms',
  'largest-contentful-paint': 'lcp_ms',
  'total-blocking-time': 'tbt_ms',
  'cumulative-layout-shift': 'cls',
  'speed-index': 'speed_index_ms',
};

/** Where a failing audit of each Lighthouse category is reported. */
const REPORTED_IN = { performance: 'pagespeed', accessibility: 'a11y' } as const;

export default definePlugin({
  meta,
  run(artifacts) {
    const lh = artifacts.lighthouse;
    if (!lh) {
      return { rating: NOT_RATED, ratings: {}, findings: [], summary: STRINGS.noLighthouse, data: {} };
    }
    const score = (id: string) => lh.categories[id]?.score ?? null;
    const ratingOf = {
      performance: lighthouseRating(score('performance')),
      accessibility: lighthouseRating(score('accessibility')),
      'best-practices': lighthouseRating(score('best-practices')),
      seo: lighthouseRating(score('seo')),
    };

    const findings: Finding[] = [];
    const overallLines: Record<'sv' | 'en', string[]> = { sv: [], en: [] };
    const failing: { id: string; category: string; score: number }[] = [];
    for (const [categoryId, refs] of Object.entries(lh.auditRefs)) {
      for (const ref of refs) {
        const audit = lh.audits[ref.id];
        if (!audit || audit.score === null || !['binary', 'numeric', 'metricSavings'].includes(audit.scoreDisplayMode)) continue;
        const severity = lighthouseSeverity(audit.score);
        const category = REPORTED_IN[categoryId as keyof typeof REPORTED_IN];
        // A passed measurement is kept as a resolved finding with its value, so that the next run's
        // change can be told from jitter (core/changes.ts); reports list problems only.
        const value: Pick<Finding, 'value' | 'unit'> = typeof audit.numericValue === 'number' && Number.isFinite(audit.numericValue)
          ? { value: audit.numericValue, ...(audit.numericUnit ? { unit: audit.numericUnit } : {}) }
          : {};
        if (severity === 'resolved') {
          if (category && value.value !== undefined) findings.push({ rule: audit.id, category, severity, text: { sv: audit.title.sv, en: audit.title.en }, ...value });
          continue;
        }
        failing.push({ id: audit.id, category: categoryId, score: audit.score });
        const text: ReportText = {
          sv: audit.title.sv + (audit.displayValue ? ` (${audit.displayValue.sv})` : ''),
          en: audit.title.en + (audit.displayValue ? ` (${audit.displayValue.en})` : ''),
        };
        if (category) {
          findings.push({ rule: audit.id, category, severity, text, ...value });
        } else {
          const label = categoryId === 'seo' ? STRINGS.seo : STRINGS.bestPractice;
          overallLines.sv.push(`- ${label.sv}: ${text.sv}`);
          overallLines.en.push(`- ${label.en}: ${text.en}`);
        }
      }
    }

    const pct: Record<string, string> = {};
    for (const id of Object.keys(ratingOf)) {
      const s = score(id);
      pct[id] = s === null ? '-' : String(Math.round(s * 100));
    }
    const head = STRINGS.summary(pct);
    const metrics: Record<string, number | null> = {};
    for (const [auditId, key] of Object.entries(METRICS)) {
      const v = lh.audits[auditId]?.numericValue;
      metrics[key] = typeof v === 'number' ? Math.round(v * (key === 'cls' ? 1000 : 1)) / (key === 'cls' ? 1000 : 1) : null;
    }

    return {
      rating: meanRating(Object.values(ratingOf)),
      ratings: { pagespeed: ratingOf.performance, a11y: ratingOf.accessibility },
      findings,
      summary: {
        sv: [head.sv, ...overallLines.sv].join('\n'),
        en: [head.en, ...overallLines.en].join('\n'),
      },
      data: {
        lighthouse_version: lh.version,
        scores: Object.fromEntries(Object.keys(ratingOf).map((id) => [id, score(id)])),
        ratings: ratingOf,
        metrics,
        failing_audits: failing,
      },
    };
  },
});
