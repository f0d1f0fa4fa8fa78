/**
 * Budgets: minimum ratings a page must meet, so that `webperf test` and `webperf audit` can fail a
 * CI build when a page gets worse. Written as assertions (`--assert`) or in a budget file
 * (`--budget FILE.json`), checked against the test types the command runs before a page is loaded,
 * then evaluated on each page's outcomes.
 *
 * One assertion (spaces around the tokens are allowed; names are case-insensitive):
 *
 *   assertion = type ">=" limit                    the test type's overall rating
 *             / type ":" category ">=" limit       the test type's rating of the category
 *             / category ">=" limit                the page's rating of the category: the mean of
 *                                                  the ratings of it by the test types run that
 *                                                  rate it (as the service averages a site's scores)
 *   type      = 1*DIGIT                            a type_of_test, e.g. 30 (it must be run)
 *   category  = "a11y" / "pagespeed" / "infosec" / "webstandard"           (CATEGORIES)
 *             / "accessibility" / "performance" / "security" / "standards" (the same, by alias)
 *   limit     = 1*DIGIT [ "." 1*DIGIT ]            a rating from 1 to 5
 *
 * Only minimum ratings exist (a rating is 1.0, worst, to 5.0, best), so `>=` is the one operator.
 * A test type that is not rated (rating -1: it failed, the page could not be loaded, or it had
 * nothing to judge) breaks every budget that names it. A category budget is broken by a test type
 * rating the category that failed (not rated, with an error: the category's true rating is not
 * known); one with nothing to judge (CSS lint on a page without CSS) is left out of the mean, as the
 * service leaves it out of a site's scores; a category no test type rated breaks it.
 *
 * The budget file: `{ "budgets": [entry, ...] }`, an entry being an assertion as above or an object
 * `{ "type": 30, "category": "pagespeed", "min": 4 }` (type or category or both; min required).
 */
import { WebperfError } from './errors.js';
import { CATEGORIES, NOT_RATED, type Category } from './plugin-api.js';
import { round } from './rating.js';

/** One budget: a minimum rating. */
export interface Budget {
  /** The budget in the assertion grammar, canonical (category by its own name), e.g. `30:pagespeed>=4`. */
  name: string;
  /** The test type it names; null: the category over every test type run that rates it. */
  typeOfTest: number | null;
  /** The category; null: the test type's overall rating. */
  category: Category | null;
  /** The lowest rating that meets it, 1–5. */
  min: number;
}

/** What a budget is checked against: one test type's outcome on a page, and the categories it rates. */
export interface RatedType {
  typeOfTest: number;
  /** Overall rating 1–5, or NOT_RATED. */
  rating: number;
  ratings: Partial<Record<Category, number>>;
  /** Why it was not rated, when it failed. */
  error: string | null;
  /** The categories the test type rates (its meta.categories). */
  categories: readonly Category[];
}

/** A budget evaluated on one page. */
export interface BudgetResult {
  budget: Budget;
  /** The rating compared with the limit; null when not rated. */
  actual: number | null;
  met: boolean;
  /** The actual value in words: `3.90`, `4.10 (mean of 18: 3.60, 30: 4.60)`, `not rated: <why>`. */
  actualText: string;
}

/** Category names accepted in assertions, by alias too (the names reports and Lighthouse use). */
const CATEGORY_NAMES: Record<string, Category> = {
  a11y: 'a11y',
  pagespeed: 'pagespeed',
  infosec: 'infosec',
  webstandard: 'webstandard',
  accessibility: 'a11y',
  performance: 'pagespeed',
  security: 'infosec',
  standards: 'webstandard',
};

const CATEGORY_HELP = `${CATEGORIES.join(', ')} (or accessibility, performance, security, standards)`;
const ONE_OPERATOR = 'budgets are minimum ratings: the only comparison is >=';
const FORMS = 'TYPE>=N, CATEGORY>=N or TYPE:CATEGORY>=N, e.g. 21>=4, a11y>=4.5, 30:pagespeed>=4';

function invalid(message: string, details: Record<string, unknown>): WebperfError {
  return new WebperfError('VALIDATION', message, details);
}

function nameOf(typeOfTest: number | null, category: Category | null, min: number): string {
  const scope = typeOfTest === null ? category : category === null ? String(typeOfTest) : `${typeOfTest}:${category}`;
  return `${scope}>=${min}`;
}

/** A test type id as written: digits only, a safe integer. Null when it is not. */
function typeId(text: string): number | null {
  if (!/^[0-9]+$/.test(text)) return null;
  const id = Number(text);
  return Number.isSafeInteger(id) ? id : null;
}

/** Why a limit is not valid, or null when it is. */
function badLimit(min: number): string | null {
  return Number.isFinite(min) && min >= 1 && min <= 5 ? null : 'the limit must be a rating from 1 to 5, e.g. 4 or 4.5';
}

function category(text: string): Category | null {
  return Object.hasOwn(CATEGORY_NAMES, text.toLowerCase()) ? CATEGORY_NAMES[text.toLowerCase()] : null;
}

/** One assertion as written: the budget, or why it is not one. */
function readAssertion(written: string): Budget | string {
  if (written === '') return `empty; expected ${FORMS}`;
  const at = written.indexOf('>=');
  if (at < 0) return /[<>=]/.test(written) ? ONE_OPERATOR : `expected ${FORMS}`;
  const scope = written.slice(0, at).trim();
  const limit = written.slice(at + 2).trim();
  if (/[<>=]/.test(limit)) return ONE_OPERATOR;
  const min = /^[0-9]+(\.[0-9]+)?$/.test(limit) ? Number(limit) : NaN;
  const limitProblem = badLimit(min);
  if (limitProblem) return limitProblem;
  const parts = scope.split(':').map((s) => s.trim());
  if (parts.length > 2 || parts.some((p) => p === '')) return `expected ${FORMS}`;
  const typePart = parts.length === 2 || /^[0-9]/.test(parts[0]) ? parts[0] : null;
  const categoryPart = parts.length === 2 ? parts[1] : typePart === null ? parts[0] : null;
  const typeOfTest = typePart === null ? null : typeId(typePart);
  if (typePart !== null && typeOfTest === null) return `"${typePart}" is not a test type id (a whole number such as 30)`;
  const cat = categoryPart === null ? null : category(categoryPart);
  if (categoryPart !== null && cat === null) return `unknown category "${categoryPart}": ${CATEGORY_HELP}`;
  return { name: nameOf(typeOfTest, cat, min), typeOfTest, category: cat, min };
}

/** One assertion; throws VALIDATION naming it and saying what is wrong. */
export function parseAssertion(text: string): Budget {
  const written = text.trim();
  const read = readAssertion(written);
  if (typeof read === 'string') throw invalid(`budget "${written}": ${read}`, { budget: written });
  return read;
}

/**
 * The budgets of `--assert` values: each value one assertion or several separated by commas.
 * The same budget given twice counts once.
 */
export function parseAssertions(values: readonly string[]): Budget[] {
  return unique(values.flatMap((v) => v.split(',')).map(parseAssertion));
}

/** Budgets without repeats (the same canonical name), in the order first given. */
export function unique(budgets: readonly Budget[]): Budget[] {
  const seen = new Map<string, Budget>();
  for (const b of budgets) if (!seen.has(b.name)) seen.set(b.name, b);
  return [...seen.values()];
}

const ENTRY_FIELDS = ['type', 'category', 'min'];

/**
 * The budgets of a budget file's text. Throws VALIDATION naming the bad entry (`budgets[2]`) and
 * what is wrong with it; the caller adds the file's name.
 */
export function parseBudgetFile(text: string): Budget[] {
  let doc: unknown;
  try {
    doc = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (err) {
    throw invalid(`not JSON: ${(err as Error).message}`, {});
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw invalid('expected an object: {"budgets": [...]}', {});
  const extra = Object.keys(doc).filter((k) => k !== 'budgets');
  if (extra.length) throw invalid(`unknown field "${extra[0]}": the file has one field, "budgets"`, { field: extra[0] });
  const list = (doc as { budgets?: unknown }).budgets;
  if (!Array.isArray(list)) throw invalid('"budgets" must be a list of budgets: {"budgets": ["a11y>=4.5", {"type": 30, "category": "pagespeed", "min": 4}]}', {});
  if (list.length === 0) throw invalid('"budgets" is empty: name at least one budget', {});
  return unique(list.map((entry, i) => budgetEntry(entry, `budgets[${i}]`)));
}

function budgetEntry(entry: unknown, where: string): Budget {
  const shown = JSON.stringify(entry);
  const fail = (why: string): never => {
    throw invalid(`${where} ${shown}: ${why}`, { entry: where });
  };
  if (typeof entry === 'string') {
    const read = readAssertion(entry.trim());
    return typeof read === 'string' ? fail(read) : read;
  }
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return fail(`expected an assertion such as "a11y>=4.5" or an object {"type": 30, "category": "pagespeed", "min": 4}`);
  const fields = entry as Record<string, unknown>;
  const extra = Object.keys(fields).filter((k) => !ENTRY_FIELDS.includes(k));
  if (extra.length) fail(`unknown field "${extra[0]}" (a budget has type, category and min)`);
  if (!('min' in fields)) fail('"min" is missing: the lowest rating that meets the budget, 1 to 5');
  if (typeof fields.min !== 'number' || badLimit(fields.min)) fail('"min" must be a number from 1 to 5');
  const min = fields.min as number;
  let typeOfTest: number | null = null;
  if ('type' in fields) {
    if (typeof fields.type !== 'number' || !Number.isSafeInteger(fields.type) || fields.type < 0) fail('"type" must be a test type id, a whole number such as 30');
    typeOfTest = fields.type as number;
  }
  let cat: Category | null = null;
  if ('category' in fields) {
    if (typeof fields.category !== 'string') fail(`"category" must be one of ${CATEGORY_HELP}`);
    cat = category(fields.category as string);
    if (cat === null) fail(`unknown category "${fields.category}": ${CATEGORY_HELP}`);
  }
  if (typeOfTest === null && cat === null) fail('name a "type", a "category" or both');
  return { name: nameOf(typeOfTest, cat, min), typeOfTest, category: cat, min };
}

/**
 * Checks the budgets against the test types a command runs (id and the categories each rates):
 * a budget must name a test type that runs, a category that type rates, or a category some type
 * run rates. Throws VALIDATION with one line per budget that cannot be judged.
 */
export function checkBudgets(budgets: readonly Budget[], types: readonly { id: number; categories: readonly Category[] }[]): void {
  const ids = types.map((t) => t.id).sort((a, b) => a - b).join(', ');
  const problems: string[] = [];
  for (const b of budgets) {
    if (b.typeOfTest !== null) {
      const type = types.find((t) => t.id === b.typeOfTest);
      if (!type) problems.push(`budget "${b.name}": test type ${b.typeOfTest} is not run (the test types run: ${ids})`);
      else if (b.category !== null && !type.categories.includes(b.category)) {
        problems.push(`budget "${b.name}": test type ${b.typeOfTest} does not rate ${b.category} (it rates ${type.categories.length ? type.categories.join(', ') : 'no category, only overall'})`);
      }
    } else if (b.category !== null && !types.some((t) => t.categories.includes(b.category!))) {
      problems.push(`budget "${b.name}": none of the test types run (${ids}) rates ${b.category}`);
    }
  }
  if (problems.length) throw invalid(problems.join('\n'), { budgets: problems.length });
}

/** A rating as shown: two decimals, or as many as it takes to show why it meets the limit or not. */
export function formatRating(value: number, min: number): string {
  const short = value.toFixed(2);
  return Number(short) >= min === value >= min ? short : String(round(value, 5));
}

/** A reason on one line, without its closing full stop (", limit N" follows it). */
function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim().replace(/\.$/, '');
}

function notRated(type: RatedType | undefined): string {
  if (!type) return 'not rated: not run';
  return type.error ? `not rated: ${oneLine(type.error)}` : 'not rated';
}

const isRated = (r: number | undefined): r is number => typeof r === 'number' && r !== NOT_RATED && r >= 1;

function evaluate(budget: Budget, types: readonly RatedType[]): Omit<BudgetResult, 'budget'> {
  const broken = (actualText: string) => ({ actual: null, met: false, actualText });
  const judged = (actual: number, actualText = formatRating(actual, budget.min)) => ({ actual, met: actual >= budget.min, actualText });
  if (budget.typeOfTest !== null) {
    const type = types.find((t) => t.typeOfTest === budget.typeOfTest);
    if (!type || !isRated(type.rating)) return broken(notRated(type));
    if (budget.category === null) return judged(type.rating);
    const r = type.ratings[budget.category];
    return isRated(r) ? judged(r) : broken(`not rated in ${budget.category}`);
  }
  const cat = budget.category!;
  const raters = types.filter((t) => t.categories.includes(cat));
  const unrated = raters.filter((t) => !isRated(t.rating) && t.error !== null);
  if (unrated.length) {
    const errors = [...new Set(unrated.map((t) => oneLine(t.error!)))];
    if (errors.length === 1) return broken(`not rated by test type${unrated.length > 1 ? 's' : ''} ${unrated.map((t) => t.typeOfTest).join(', ')}: ${errors[0]}`);
    return broken(`not rated by ${unrated.map((t) => `test type ${t.typeOfTest}: ${oneLine(t.error!)}`).join('; ')}`);
  }
  const rated = raters.filter((t) => isRated(t.ratings[cat]));
  if (rated.length === 0) return broken(`not rated in ${cat}`);
  // Ratings carry five decimals: the mean is rounded there, so 4.1, 4.2 and 4.3 meet 4.2.
  const mean = round(rated.reduce((sum, t) => sum + t.ratings[cat]!, 0) / rated.length, 5);
  const shown = formatRating(mean, budget.min);
  if (rated.length === 1) return judged(mean, `${shown} (test type ${rated[0].typeOfTest})`);
  return judged(mean, `${shown} (mean of ${rated.map((t) => `${t.typeOfTest}: ${formatRating(t.ratings[cat]!, budget.min)}`).join(', ')})`);
}

/** Every budget on one page's outcomes. */
export function evaluateBudgets(budgets: readonly Budget[], types: readonly RatedType[]): BudgetResult[] {
  return budgets.map((budget) => ({ budget, ...evaluate(budget, types) }));
}

/** The actual value against the limit, as a CI report's failure message says it. */
export function budgetMessage(result: BudgetResult): string {
  return `${result.actualText}, limit ${result.budget.min}`;
}

/** The one line a broken budget prints: the budget, the page, the actual value and the limit. */
export function brokenBudgetLine(result: BudgetResult, url: string): string {
  return `budget broken: ${result.budget.name} on ${url}: ${budgetMessage(result)}`;
}

/** The closing line: how many budgets were checked and how many of them broke. */
export function budgetSummary(results: readonly BudgetResult[]): string {
  const broken = results.filter((r) => !r.met).length;
  return broken === 0 ? `budgets: all ${results.length} met` : `budgets: ${broken} of ${results.length} broken`;
}
