/** The command line's usage text, apart from the commands so that --help loads nothing else. */

export const AUDIT_USAGE = `  audit <url> --pages N [--out DIR] [--format audit_v2|csv] [--junit FILE]
        [--assert BUDGETS]... [--budget FILE.json]
                                     crawl a site from <url> and test N pages; write the summaries to DIR
                                     (and a JUnit report to FILE); every page must meet the budgets`;

/** The budgets of `webperf test` and `webperf audit` (core/budgets.ts has the grammar). */
export const BUDGET_USAGE = `Budgets (test, audit): minimum ratings from 1 to 5; --assert repeats and takes them comma-separated
  21>=4                 test type 21's overall rating
  30:pagespeed>=4       test type 30's rating of a category
  a11y>=4.5             a category: the mean of its ratings by the test types run that rate it
  categories: a11y, pagespeed, infosec, webstandard (or accessibility, performance, security, standards)
  --budget FILE.json    {"budgets": ["a11y>=4.5", {"type": 30, "category": "pagespeed", "min": 4}]}
  A test type not rated breaks every budget that names it; one that failed breaks a category budget too.
  Exit codes: 0 tested, budgets met · 1 the page could not be tested · 2 bad usage or budget · 3 a budget broken
`;

export const USAGE = `Usage: webperf <command>

  serve                              API, runner, scheduler and demo in one process
  api                                only the HTTP API
  runner [--concurrency N]           only a test runner
  migrate                            migrate the database and exit
  test <url> [--tests 30,21] [--lang sv|en|da|no|fi|is] [--format text|json|junit] [--output FILE]
       [--assert BUDGETS]... [--budget FILE.json] [--compare EARLIER.json]
                                     test a URL once without a database; with --compare, what changed
                                     since an earlier --format json output (findings added, fixed, changed)
${AUDIT_USAGE}
  sites ... | levels ... | categories ... | keys ... | users ...   operator commands (webperf users --help)
  data refresh-retire [--from URL] [--out FILE]
                                     download and check RetireJS's vulnerability data for the software test
  data refresh-trackers [--from URL] [--out FILE]
                                     download and check the tracking list of the privacy and tracking tests

${BUDGET_USAGE}`;
