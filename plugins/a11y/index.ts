/**
 * Type 18: accessibility from the gather step's axe-core run (WCAG 2.2 A and AA rules, in the
 * same loaded page as Lighthouse; this plugin never loads the page again).
 *
 * Issue-based, category a11y: one finding per violated rule, whatever its element count.
 * axe impact → severity: critical → critical (−25), serious → error (−10), moderate and minor →
 * warning (−1); a rule without impact counts as a warning. Report line per rule with its element
 * count ("Bilder saknar alternativtext (3 element)"), most severe first, saying how many sit in
 * embedded frames, which the gather step tests too. No axe result → NOT_RATED.
 */
import { meta } from './meta.js';
import { definePlugin, NOT_RATED, type AxeRuleResult, type Finding, type Severity } from '../../core/plugin-api.js';
import { DEDUCTION, issueRatings } from '../../core/rating.js';
import { RULE_TEXT_SV, STRINGS } from './strings.js';


/**
 * The axe tags the gather step runs (core/gather/gather.ts AXE_TAGS; the axe artifact does not
 * carry them, and importing the gather step would load Lighthouse). A test keeps the two equal.
 */
export const AXE_RUN_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];

/** Selectors kept per rule in json_check_data. */
const MAX_SELECTORS = 20;

export const IMPACT_SEVERITY: Record<NonNullable<AxeRuleResult['impact']>, Severity> = {
  critical: 'critical',
  serious: 'error',
  moderate: 'warning',
  minor: 'warning',
};

function severityOf(impact: AxeRuleResult['impact']): Severity {
  return impact ? IMPACT_SEVERITY[impact] : 'warning';
}

export default definePlugin({
  meta,
  run(artifacts) {
    const axe = artifacts.axe;
    if (!axe) {
      return { rating: NOT_RATED, ratings: {}, findings: [], summary: STRINGS.noAxe, data: { axe_version: null, tags: AXE_RUN_TAGS, violations: [], frames: [] } };
    }
    const violations = [...axe.violations].sort(
      (a, b) => DEDUCTION[severityOf(b.impact)] - DEDUCTION[severityOf(a.impact)] || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
    );
    const findings: Finding[] = violations.map((v) => ({
      rule: v.id,
      category: 'a11y',
      severity: severityOf(v.impact),
      // The count is in the text ("(3 element)"), so `count` stays unset: the report renderer
      // would append it a second time.
      text: STRINGS.ruleLine({ sv: RULE_TEXT_SV[v.id] ?? v.help, en: v.help }, v.nodes.length, v.nodes.filter((n) => n.frame?.length).length),
    }));
    const frames = axe.frames ?? [];
    const summary = STRINGS.summary(axe.version, violations.length, violations.reduce((n, v) => n + v.nodes.length, 0), axe.passes);
    const framesNote = STRINGS.framesTested(frames.length);
    const { rating, ratings } = issueRatings(findings, ['a11y']);
    return {
      rating,
      ratings,
      findings,
      summary: frames.length ? { sv: summary.sv + framesNote.sv, en: summary.en + framesNote.en } : summary,
      data: {
        axe_version: axe.version,
        tags: AXE_RUN_TAGS,
        violations: violations.map((v) => ({
          rule: v.id,
          impact: v.impact,
          count: v.nodes.length,
          // A target has several parts when the element sits in a frame or a shadow root.
          selectors: v.nodes.slice(0, MAX_SELECTORS).map((n) => n.target.join(' >>> ')),
          help_url: v.helpUrl,
        })),
        // Where the violations sit: each embedded frame axe ran in, with its elements that fail.
        frames: frames.map((f) => ({
          frame: f.path.join(' >>> '),
          url: f.url,
          elements: violations.reduce((n, v) => n + v.nodes.filter((node) => node.frame?.join(' >>> ') === f.path.join(' >>> ')).length, 0),
        })),
      },
    };
  },
});
