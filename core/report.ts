/**
 * Readable reports (check_report*) rendered from a plugin's findings, in each report language:
 * one bullet line per finding that can be improved, grouped per category.
 */
import { REPORT_LANGS, type ReportLang, type ReportText } from './i18n/langs.js';
import type { Category, Finding, PluginResult } from './plugin-api.js';

/** Report fields of a stored result, per language. */
export interface ReportSet {
  overall: string;
  a11y: string;
  perf: string;
  sec: string;
  stand: string;
}
export type Reports = Record<ReportLang, ReportSet>;

const FIELD: Record<Category, keyof ReportSet> = { a11y: 'a11y', pagespeed: 'perf', infosec: 'sec', webstandard: 'stand' };

const LABELS: Record<ReportLang, { rating: string; notRated: string; none: string; cat: Record<Category, string> }> = {
  sv: {
    rating: 'Betyg',
    notRated: 'Inte bedömt',
    none: 'Inget att förbättra hittades.',
    cat: { a11y: 'Tillgänglighet', pagespeed: 'Prestanda', infosec: 'Integritet & säkerhet', webstandard: 'Standarder' },
  },
  en: {
    rating: 'Rating',
    notRated: 'Not rated',
    none: 'Nothing to improve was found.',
    cat: { a11y: 'Accessibility', pagespeed: 'Performance', infosec: 'Integrity & Security', webstandard: 'Standards' },
  },
};

const IMPROVABLE = new Set(['critical', 'error', 'warning']);

function ratingText(lang: ReportLang, rating: number | undefined): string {
  const l = LABELS[lang];
  return rating === undefined || rating < 1 ? l.notRated : `${l.rating}: ${rating.toFixed(2)}`;
}

/** " (N)" follows a finding concerning several places, unless its text already states the number. */
function showCount(f: Finding, lang: ReportLang): boolean {
  return f.count !== undefined && f.count > 1 && !new RegExp(`(^|\\D)${f.count}(\\D|$)`).test(f.text[lang]);
}

function bullets(findings: Finding[], lang: ReportLang): string[] {
  return findings
    .filter((f) => IMPROVABLE.has(f.severity))
    .map((f) => `- ${f.text[lang]}${showCount(f, lang) ? ` (${f.count})` : ''}`);
}

export function renderReports(result: PluginResult): Reports {
  const out = {} as Reports;
  for (const lang of REPORT_LANGS) {
    const set: ReportSet = { overall: '', a11y: '', perf: '', sec: '', stand: '' };
    const overallLines = [`${result.summary[lang]}`.trim(), ratingText(lang, result.rating)].filter(Boolean);
    for (const category of Object.keys(FIELD) as Category[]) {
      const fs = result.findings.filter((f) => f.category === category);
      const rated = result.ratings[category];
      if (fs.length === 0 && rated === undefined) continue;
      const lines = bullets(fs, lang);
      set[FIELD[category]] = [`${LABELS[lang].cat[category]}: ${ratingText(lang, rated)}`, ...(lines.length ? lines : [`- ${LABELS[lang].none}`])].join('\n');
    }
    set.overall = overallLines.join('\n');
    out[lang] = set;
  }
  return out;
}

/** Reports of a test type on a page that could not be loaded: why, in plain words, and not rated. */
export function failureReports(text: ReportText): Reports {
  const out = {} as Reports;
  for (const lang of REPORT_LANGS) out[lang] = { overall: `${text[lang]}\n${LABELS[lang].notRated}`, a11y: '', perf: '', sec: '', stand: '' };
  return out;
}

const WITHOUT_PAGE: ReportText = {
  sv: 'Bedömt utan sidan, utifrån tjänstens egna anrop till webbplatsen.',
  en: "Judged without the page, from the service's own requests to the site.",
};

/** A plugin's reports on a page the browser refused, judged from the probes: the overall report says so and why. */
export function judgedWithoutPage(reports: Reports, why: ReportText): Reports {
  const out = {} as Reports;
  for (const lang of REPORT_LANGS) out[lang] = { ...reports[lang], overall: [reports[lang].overall, `${WITHOUT_PAGE[lang]} ${why[lang]}`].filter(Boolean).join('\n') };
  return out;
}

/** Report for a plugin that threw or timed out. */
export function errorReports(message: string): Reports {
  const text: ReportText = {
    sv: `Testet kunde inte genomföras: ${message}`,
    en: `The test could not be completed: ${message}`,
  };
  const out = {} as Reports;
  for (const lang of REPORT_LANGS) out[lang] = { overall: text[lang], a11y: '', perf: '', sec: '', stand: '' };
  return out;
}
