/**
 * The rules on the statement page: what DIGG requires of its content, each a finding in the a11y
 * category (rule ids as upstream's where it has them).
 */
import type { Finding, Severity, ReportText } from '../../core/plugin-api.js';
import { ageInYears, findDates, latestOf, type FoundDate } from './dates.js';
import { findDiggLink } from './digg.js';
import { MAX_TEXT, type Page } from './html.js';
import { burdenClaim, compliance, evaluationMethod, feedbackFunction, inaccessibleContent } from './rules.js';
import { STRINGS } from './strings.js';

const finding = (rule: string, severity: Severity, text: ReportText): Finding => ({ rule, category: 'a11y', severity, text });

/** Upstream's age rules: 1 year a warning, 2, 3, 4 and 5 or more years an error. */
function ageFinding(prefix: string, date: FoundDate, now: Date, text: (years: number, date: string) => ReportText): Finding | null {
  const years = Math.min(5, ageInYears(date.date, now));
  if (years < 1) return null;
  return finding(`${prefix}-older-than-${years}years`, years === 1 ? 'warning' : 'error', text(years, date.date));
}

export function judgeStatement(page: Page, now: Date): { findings: Finding[]; data: Record<string, unknown> } {
  const findings: Finding[] = [];
  const text = page.statementText;

  const status = compliance(text);
  if (!status) findings.push(finding('no-compatible-word', 'error', STRINGS.noCompatibleWord));
  else if (status.level === 'partial') findings.push(finding('compatible-word-partly', 'error', STRINGS.compatiblePartly(status.phrase)));
  else if (status.level === 'not') findings.push(finding('compatible-word-not', 'error', STRINGS.compatibleNot(status.phrase)));

  // Required when the website is not fully compliant (MDFFS 2019:2: "innehåll som inte är tillgängligt").
  const list = status && status.level !== 'full' ? inaccessibleContent(page.blocks, text) : null;
  if (list && !list.found) findings.push(finding('no-inaccessible-content-list', 'error', STRINGS.noInaccessibleContentList));

  const feedback = feedbackFunction(page);
  if (!feedback) findings.push(finding('no-feedback-function', 'error', STRINGS.noFeedbackFunction));

  const digg = findDiggLink(page.links);
  if (!digg) findings.push(finding('no-notification-function-link', 'error', STRINGS.noNotificationLink));
  else if (digg.kind === 'old') findings.push(finding('has-old-notification-function-link', 'warning', STRINGS.oldNotificationLink(digg.href)));
  else if (digg.kind === 'canonical') findings.push(finding('has-canonical-notification-function-link', 'info', STRINGS.canonicalNotificationLink(digg.href)));

  const burden = burdenClaim(text, page.blocks);
  if (burden) {
    findings.push(burden.reasoned
      ? finding('has-unreasonably-burdensome-accommodation', 'warning', STRINGS.burdenReasoned(burden.phrase))
      : finding('has-unreasonably-burdensome-accommodation', 'error', STRINGS.burdenUnreasoned(burden.phrase)));
  }

  const method = evaluationMethod(text);
  if (!method) findings.push(finding('no-evaluation-method', 'error', STRINGS.noEvaluationMethod));

  const dates = findDates(text, now);
  const assessed = latestOf(dates, 'assessment');
  const updated = latestOf(dates, 'update');
  if (!assessed) findings.push(finding('no-assessment-date', 'error', STRINGS.noAssessmentDate));
  else {
    const old = ageFinding('assessment-date', assessed, now, STRINGS.assessedOlderThan);
    if (old) findings.push(old);
  }
  if (!updated) findings.push(finding('no-updated-date', 'error', STRINGS.noUpdatedDate));
  else {
    const old = ageFinding('updated-date', updated, now, STRINGS.updatedOlderThan);
    if (old) findings.push(old);
  }

  return {
    findings,
    data: {
      compliance: status,
      inaccessible_content: list,
      feedback_function: feedback,
      notification_function_link: digg,
      unreasonably_burdensome_accommodation: burden && { phrase: burden.phrase, reasoned: burden.reasoned, reason: burden.reason },
      evaluation_method: method,
      dates,
      assessment_date: assessed?.date ?? null,
      assessment_age_years: assessed ? ageInYears(assessed.date, now) : null,
      last_updated_date: updated?.date ?? null,
      last_updated_age_years: updated ? ageInYears(updated.date, now) : null,
      // A page longer than this is judged on its beginning only.
      text_cut: page.textChars > MAX_TEXT ? { page_chars: page.textChars, judged_chars: MAX_TEXT } : null,
    },
  };
}
