/**
 * User-facing strings of the JS Lint plugin (type 29). The rule lines are webperf_core's
 * (locales/sv/LC_MESSAGES/javascript.po and its en twin); upstream has none for no-debugger, written here.
 */
import type { ReportText } from '../../core/plugin-api.js';
import type { JsRule } from './rules.js';

export const RULE_TEXT: Record<JsRule, ReportText> = {
  'no-eval': { sv: 'Javascript, förbjud användning av eval()', en: 'Javascript, disallow the use of eval()' },
  'no-implied-eval': { sv: 'Javascript, förbjud användning av eval()-liknande metoder', en: 'Javascript, disallow the use of eval()-like methods' },
  'no-script-url': { sv: 'Javascript, förbjud javascript: URLer', en: 'Javascript, disallow javascript: URLs' },
  'no-debugger': { sv: 'Javascript, förbjud debugger-satser', en: 'Javascript, disallow debugger statements' },
};

/** A script's name in the reports: its URL, or its place among the page's inline scripts. */
export interface ScriptName {
  url: string;
  /** 1-based among the inline scripts; 0 for an external script. */
  inline: number;
  page: string;
}

export const scriptName = (s: ScriptName): ReportText =>
  s.inline ? { sv: `inbäddat skript ${s.inline} på ${s.page}`, en: `inline script ${s.inline} on ${s.page}` } : { sv: s.url, en: s.url };

/** At most `max` names, then how many more. */
function list(names: string[], more: (n: number) => string, max = 5): string {
  const shown = names.slice(0, max).join(', ');
  return names.length > max ? `${shown} ${more(names.length - max)}` : shown;
}

const n = (count: number, one: string, many: string) => (count === 1 ? one : many);

export const STRINGS = {
  finding: (rule: JsRule, where: ReportText, line: number, column: number): ReportText => ({
    sv: `${RULE_TEXT[rule].sv} (${rule}). Första stället: ${where.sv}, rad ${line}, kolumn ${column}`,
    en: `${RULE_TEXT[rule].en} (${rule}). First place: ${where.en}, line ${line}, column ${column}`,
  }),
  resolved: (rule: JsRule): ReportText => ({ sv: `${RULE_TEXT[rule].sv} (löst)`, en: `${RULE_TEXT[rule].en} (resolved)` }),
  unparsable: (names: ReportText[]): ReportText => ({
    sv: `${names.length} skript gick varken att tolka som modul eller som klassiskt skript och granskades inte: ${list(names.map((x) => x.sv), (m) => `och ${m} till`)}`,
    en: `${names.length} ${n(names.length, 'script', 'scripts')} could be parsed neither as a module nor as a classic script and ${n(names.length, 'was', 'were')} not linted: ${list(names.map((x) => x.en), (m) => `and ${m} more`)}`,
  }),
  tooLarge: (names: ReportText[], limit: string): ReportText => ({
    sv: `${names.length} skript är större än ${limit} och granskades inte: ${list(names.map((x) => x.sv), (m) => `och ${m} till`)}`,
    en: `${names.length} ${n(names.length, 'script is', 'scripts are')} larger than ${limit} and ${n(names.length, 'was', 'were')} not linted: ${list(names.map((x) => x.en), (m) => `and ${m} more`)}`,
  }),
  timedOut: (names: ReportText[], seconds: number): ReportText => ({
    sv: `${names.length} skript kunde inte granskas inom ${seconds} s per skript och granskades inte: ${list(names.map((x) => x.sv), (m) => `och ${m} till`)}`,
    en: `${names.length} ${n(names.length, 'script', 'scripts')} could not be linted within ${seconds} s per script and ${n(names.length, 'was', 'were')} not linted: ${list(names.map((x) => x.en), (m) => `and ${m} more`)}`,
  }),
  failed: (names: ReportText[]): ReportText => ({
    sv: `${names.length} skript fick granskningen att misslyckas (till exempel slut på minne) och granskades inte: ${list(names.map((x) => x.sv), (m) => `och ${m} till`)}`,
    en: `${names.length} ${n(names.length, 'script', 'scripts')} made the linter fail (out of memory, for one) and ${n(names.length, 'was', 'were')} not linted: ${list(names.map((x) => x.en), (m) => `and ${m} more`)}`,
  }),
  outOfTime: (names: ReportText[], seconds: number): ReportText => ({
    sv: `Tiden för granskningen (${seconds} s) tog slut; ${names.length} skript granskades inte: ${list(names.map((x) => x.sv), (m) => `och ${m} till`)}`,
    en: `The time for linting (${seconds} s) ran out; ${names.length} ${n(names.length, 'script was', 'scripts were')} not linted: ${list(names.map((x) => x.en), (m) => `and ${m} more`)}`,
  }),
  summary: (linted: number, total: number, version: string, places: number): ReportText => ({
    sv: `${linted} av ${total} skript granskade med ESLint ${version} (no-eval, no-implied-eval, no-script-url, no-debugger): ${places} fynd.`,
    en: `${linted} of ${total} ${n(total, 'script', 'scripts')} linted with ESLint ${version} (no-eval, no-implied-eval, no-script-url, no-debugger): ${places} ${n(places, 'finding', 'findings')}.`,
  }),
  noScripts: {
    sv: 'Sidan kör inga skript; det finns ingen JavaScript att granska och inget att rätta.',
    en: 'The page runs no scripts; there is no JavaScript to lint and nothing to fix.',
  } satisfies ReportText,
  nothingLinted: (total: number): ReportText => ({
    sv: total === 1 ? 'Sidans enda skript kunde inte granskas, så sidan bedöms inte.' : `Inget av sidans ${total} skript kunde granskas, så sidan bedöms inte.`,
    en: `None of the page's ${total} ${n(total, 'script', 'scripts')} could be linted, so the page is not rated.`,
  }),
};
