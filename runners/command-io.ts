/**
 * Where a command of the CLI writes and how it ends: the process's own streams and exit unless
 * given others (a test runs `webperf test` and `webperf audit` in its own process this way,
 * test/helpers/operator.ts).
 */
export interface CommandIo {
  out(text: string): void;
  err(text: string): void;
  exit(code: number): never;
  /** Whether err is a terminal (a progress bar redraws its line). */
  errIsTty: boolean;
}

export const PROCESS_IO: CommandIo = {
  out: (text) => void process.stdout.write(text),
  err: (text) => void process.stderr.write(text),
  exit: (code) => process.exit(code),
  get errIsTty() {
    return process.stderr.isTTY === true;
  },
};
