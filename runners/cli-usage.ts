/** The command line's usage text, apart from the commands so that --help loads nothing else. */

export const AUDIT_USAGE = `  audit <url> --pages N [--out DIR] [--format audit_v2|csv]
                                     crawl a site from <url> and test N pages; write the summaries to DIR`;

export const USAGE = `Usage: webperf <command>

  serve                              API, runner, scheduler and demo in one process
  api                                only the HTTP API
  runner [--concurrency N]           only a test runner
  migrate                            migrate the database and exit
  test <url> [--tests 30,21] [--lang sv|en|da|no|fi|is] [--format text|json]
                                     test a URL once without a database
${AUDIT_USAGE}
  sites ... | levels ... | categories ... | keys ... | users ...   operator commands (webperf users --help)
`;
