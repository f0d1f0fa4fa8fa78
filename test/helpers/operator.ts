/**
 * An operator command (`webperf sites|levels|categories|keys|users ...`) run in the test's own
 * process, the way `node bin/webperf.js ...` runs it, without the cost of a process (~0.6 s CPU
 * each): the configuration from the environment given over the test's own (loadConfig, as
 * runners/cli.ts does), then operatorCommand with its output and exit code captured; a thrown error
 * ends as bin/webperf.js ends it: `webperf: <message>` on stderr, exit code 1.
 *
 * Where this cannot be what the process does, spawn the real CLI: the process's own exit (an exit
 * code is recorded here, the process is not ended), anything else than an operator command (the
 * command line's own usage and unknown commands are runners/cli.ts's, not operatorCommand's), and
 * a file named relative to the working folder (read from this process's cwd).
 */
import { loadConfig } from '../../core/config.js';
import { describedError } from '../../runners/cli.js';
import { OPERATOR_COMMANDS, operatorCommand } from '../../runners/operator-cli.js';
import { auditCommand } from '../../runners/audit-cli.js';
import { testCommand } from '../../runners/test-cli.js';
import { lentChromiumEnv } from './shared-chromium.js';


export interface OperatorResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * `webperf ...args` in process, with `env` over process.env (a name set to undefined is unset):
 * what the spawned command would print on stdout and stderr, and its exit code (0 when it does not
 * exit of its own).
 */
export async function operator(env: Record<string, string | undefined>, ...args: string[]): Promise<OperatorResult> {
  const [command, ...rest] = args;
  if (command === undefined || !OPERATOR_COMMANDS.includes(command)) {
    throw new Error(`operator(): "${command ?? ''}" is not an operator command (${OPERATOR_COMMANDS.join(', ')}); spawn bin/webperf.js for it`);
  }
  let stdout = '';
  let stderr = '';
  let code: number | null = null;
  const exit = (c: number) => {
    // process.exit ends the process at the first call: whatever a command would do after it never runs.
    if (code === null) code = c;
  };
  try {
    const config = loadConfig({ ...process.env, ...env });
    await operatorCommand(config, command, rest, {
      out: (s) => {
        if (code === null) stdout += s;
      },
      err: (s) => {
        if (code === null) stderr += s;
      },
      exit,
    });
  } catch (err) {
    if (code !== null) return { code, stdout, stderr };
    stderr += `webperf: ${describedError(err).message}\n`;
    code = 1;
  }
  return { code: code ?? 0, stdout, stderr };
}

/** Where the in-process command would have ended the process. */
class Exit extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
}

/**
 * `webperf test|audit ...args` in process (runners/test-cli.ts's testCommand and
 * runners/audit-cli.ts's auditCommand, as runners/cli.ts calls them, with `env` over
 * process.env): what the spawned command would print on stdout and stderr, and its exit code. The
 * command loads its pages in a Chromium of its own, as the spawned one does; what is saved is the
 * process (its start, the engine's and Lighthouse's modules: about 2 s of CPU). cli.test.ts and
 * audit-budgets.test.ts spawn the real commands (their whole run as an operator starts them).
 * Not for what Node reads as it starts (NODE_EXTRA_CA_CERTS): spawn for that.
 */
export async function webperfCommand(env: Record<string, string | undefined>, command: 'test' | 'audit', args: string[]): Promise<OperatorResult> {
  let stdout = '';
  let stderr = '';
  const exit = (code: number): never => {
    throw new Exit(code);
  };
  const fail = (message: string, code = 2): never => {
    stderr += `${message}\n`;
    return exit(code);
  };
  const io = { out: (s: string) => void (stdout += s), err: (s: string) => void (stderr += s), exit, errIsTty: false };
  try {
    // The share's Chromium unless the test names another or none (WEBPERF_CHROMIUM_WS: undefined).
    const config = loadConfig({ ...process.env, ...lentChromiumEnv(), ...env });
    await (command === 'test' ? testCommand : auditCommand)(config, args, fail, io);
    return { code: 0, stdout, stderr };
  } catch (err) {
    if (err instanceof Exit) return { code: err.code, stdout, stderr };
    return { code: 1, stdout, stderr: `${stderr}webperf: ${describedError(err).message}\n` };
  }
}

/** `webperf test ...args` in process (webperfCommand). */
export const webperfTest = (env: Record<string, string | undefined>, args: string[]) => webperfCommand(env, 'test', args);
