/**
 * The unhandled rejections a runner lets pass (runners/tolerated-rejections.ts), in a node process
 * of its own as `webperf runner` and `webperf serve` install the handler: a browser gone
 * mid-command and a database away are logged in one line each and the process goes on; any other
 * unhandled rejection still ends it. Chaos runs meet the first two only when a crash or an outage
 * falls at the right moment; here each is thrown on purpose.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { CODE_ROOT } from '../../core/config.js';

const run = promisify(execFile);

/** A process with the handler installed that leaves `rejections` unhandled, then says it still runs. */
async function withHandler(rejections: string) {
  const module = path.join(CODE_ROOT, 'runners', 'tolerated-rejections.js');
  const script = `
    const { tolerateBrowserCrashAndDatabaseOutageRejections } = await import(${JSON.stringify(module)});
    tolerateBrowserCrashAndDatabaseOutageRejections((line) => console.log('log: ' + line));
    ${rejections}
    await new Promise((r) => setTimeout(r, 50));
    console.log('still running');`;
  return run(process.execPath, ['--input-type=module', '-e', script]).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (err: { code: number; stdout: string; stderr: string }) => ({ code: err.code, stdout: err.stdout, stderr: err.stderr }),
  );
}

t.test('a browser gone and a database away are let pass, each in one line; anything else ends the process', async (t) => {
  const tolerated = await withHandler(`
    Promise.reject(new Error('Protocol error (Page.navigate): Target closed'));
    Promise.reject(Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }));`);
  t.equal(tolerated.code, 0, tolerated.stderr);
  t.equal(tolerated.stdout, [
    'log: ignored after a browser crash: Protocol error (Page.navigate): Target closed',
    'log: ignored while the database is unavailable (a job\'s end may be unrecorded; the runner releases such jobs): terminating connection due to administrator command',
    'still running',
    '',
  ].join('\n'));

  const other = await withHandler(`Promise.reject(new Error('a bug'));`);
  t.equal(other.code, 1, 'any other rejection ends the process');
  t.notMatch(other.stdout, /still running/);
  t.match(other.stderr, /Error: a bug/);
});
