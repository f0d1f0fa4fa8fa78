/**
 * JUnit XML of tested pages, the report format CI systems (GitLab, Jenkins, GitHub Actions'
 * reporters, Azure Pipelines) show natively: one test suite per page, in it one test case per test
 * type and one per budget. A test type that failed (not rated with an error: the page could not be
 * loaded, the plugin threw) and a broken budget are failures; a test type not rated for want of
 * anything to judge (web analytics on a page without any) is skipped.
 *
 * Written with junit-report-builder, which knows the format's shape (the counts on every suite,
 * CDATA for the output) and leaves out characters XML 1.0 cannot hold.
 */
import junitModule, { type Builder } from 'junit-report-builder';
import { budgetMessage, type BudgetResult } from './budgets.js';
import { NOT_RATED } from './plugin-api.js';

// The package is CommonJS whose module.exports is the builder, typed as an ES default export: under
// NodeNext, TypeScript sees that export one level down from where Node puts it.
const junit = junitModule as unknown as Builder;

/** One test type's outcome on a page, as the report shows it. */
export interface JunitTestType {
  typeOfTest: number;
  /** The test type's name in the report's language. */
  name: string;
  rating: number;
  error: string | null;
  /** Readable report (system-out of its test case). */
  report?: string;
  durationMs?: number;
}

/** One page: its test types and its budgets. */
export interface JunitPage {
  url: string;
  types: readonly JunitTestType[];
  budgets: readonly BudgetResult[];
}

/** The JUnit XML document of the pages, in the order given. */
export function junitReport(pages: readonly JunitPage[], options: { name: string; timestamp?: Date }): string {
  const report = junit.newBuilder().name(options.name);
  for (const page of pages) {
    const suite = report.testSuite().name(page.url);
    if (options.timestamp) suite.timestamp(options.timestamp);
    for (const type of page.types) {
      const testCase = suite.testCase().className(page.url).name(`test type ${type.typeOfTest} ${type.name}`);
      if (type.durationMs !== undefined) testCase.time(type.durationMs / 1000);
      const rated = type.rating !== NOT_RATED && type.rating >= 1;
      if (type.error) testCase.failure(`not rated: ${type.error}`, 'error');
      else if (!rated) testCase.skipped();
      const summary = rated ? `rating ${type.rating.toFixed(2)}` : 'not rated';
      testCase.standardOutput(type.report ? `${summary}\n${type.report}` : summary);
    }
    for (const result of page.budgets) {
      const testCase = suite.testCase().className(page.url).name(`budget ${result.budget.name}`);
      if (result.met) testCase.standardOutput(budgetMessage(result));
      else testCase.failure(budgetMessage(result), 'budget');
    }
  }
  return report.build();
}
