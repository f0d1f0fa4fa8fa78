/**
 * Conformance: plugin 29 against ESLint's own command-line tool (node_modules/.bin/eslint, one
 * spawn) on the same scripts written to a temporary folder, with a flat config file written here
 * from the note's settings, not from the plugin's code: the four rules as errors, ecmaVersion
 * latest, browser and node globals, inline config off; sourceType module, except the two files
 * that are classic scripts (c.js uses `with`; e.js parses as nothing), which the plugin lints as
 * 'script' after the module parse fails. Both must report the same rule ids at the same lines and
 * columns, with the same messages, and the same parse error for the script that parses as neither.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import globals from 'globals';
import t from 'tap';
import { PROJECT_ROOT } from '../../core/config.js';
import { createProbes } from '../../core/net/probes.js';
import { runPlugin } from '../../core/pipeline.js';
import jsLint from '../../plugins/js-lint/index.js';
import { LOOPBACK_GUARD, makeArtifacts } from '../helpers/fixture-artifacts.js';

const run = promisify(execFile);
const CLI = path.join(PROJECT_ROOT, 'node_modules', '.bin', 'eslint');
const PAGE = 'https://kommun.test/';
const RULES = ['no-eval', 'no-implied-eval', 'no-script-url', 'no-debugger'];

/** [file name, the plugin's name for the script, url in the artifacts, text]. */
const SCRIPTS: [string, string, string, string][] = [
  ['inline-1.js', `inline script 1 on ${PAGE}`, '', "eval('1')\nvar t = setInterval('tick()', 1000);\n"],
  ['a.js', `${PAGE}a.js`, `${PAGE}a.js`, 'setTimeout("x()", 1);\ndebugger;\n'],
  ['b.js', `${PAGE}b.js`, `${PAGE}b.js`, 'location.href = "javascript:void(0)";\nconst u = `javascript:alert(1)`;\n'],
  ['c.js', `${PAGE}c.js`, `${PAGE}c.js`, 'with (obj) {}\nwindow.setTimeout("y()", 2);\nfunction f() { debugger; }\n'],
  ['d.js', `${PAGE}d.js`, `${PAGE}d.js`, '/* eslint-disable */\neval("3");\nwindow.eval("4"); // eslint-disable-line no-eval\n'],
  ['e.js', `${PAGE}e.js`, `${PAGE}e.js`, 'var ok = 1;\nfunction (\n'],
];
const CLASSIC = ['c.js', 'e.js'];

interface CliMessage { ruleId: string | null; line: number; column: number; message: string; fatal?: boolean }

/** ESLint's CLI on the scripts: its messages per file name. */
async function reference(): Promise<Map<string, CliMessage[]>> {
  const dir = await mkdtemp(path.join(tmpdir(), 'webperf-eslint-'));
  try {
    for (const [file, , , text] of SCRIPTS) await writeFile(path.join(dir, file), text);
    const config = [
      {
        files: ['**/*.js'],
        languageOptions: { ecmaVersion: 'latest', sourceType: 'module', globals: { ...globals.browser, ...globals.node } },
        linterOptions: { noInlineConfig: true, reportUnusedDisableDirectives: 'off', reportUnusedInlineConfigs: 'off' },
        rules: Object.fromEntries(RULES.map((r) => [r, 'error'])),
      },
      { files: CLASSIC, languageOptions: { sourceType: 'script' } },
    ];
    await writeFile(path.join(dir, 'eslint.config.mjs'), `export default ${JSON.stringify(config)};\n`);
    // Exit status 1 means "problems found", which is what these scripts have.
    const out = await run(CLI, ['--config', path.join(dir, 'eslint.config.mjs'), '--format', 'json', ...SCRIPTS.map(([f]) => f)], { cwd: dir, timeout: 20_000 }).catch((err) => err);
    const results = JSON.parse(out.stdout) as { filePath: string; messages: CliMessage[] }[];
    return new Map(results.map((r) => [path.basename(r.filePath), r.messages]));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

t.test('the plugin reports what ESLint\'s CLI reports, place by place', async (t) => {
  const theirs = await reference();
  const artifacts = makeArtifacts(PAGE, { scripts: SCRIPTS.map(([, , url, content]) => ({ url, content })) });
  const outcome = await runPlugin(jsLint, artifacts, { probes: createProbes(LOOPBACK_GUARD) });
  t.equal(outcome.error, null);
  const data = outcome.data as any;

  const expected = SCRIPTS.flatMap(([file, name]) =>
    (theirs.get(file) ?? []).filter((m) => m.ruleId !== null && RULES.includes(m.ruleId)).map((m) => [name, m.ruleId, m.line, m.column, m.message]),
  );
  t.ok(expected.length >= 9, `the reference finds something to compare (${expected.length} places)`);
  t.same(data.places.map((p: any) => [p.script, p.rule, p.line, p.column, p.message]), expected);

  // The eslint-disable comments of d.js are not obeyed, by either; ESLint says so (no rule id).
  t.ok(theirs.get('d.js')!.some((m) => m.ruleId === null && /has no effect because you have 'noInlineConfig'/.test(m.message)));
  // e.js parses as neither: the same parse error (ESLint's fatal message for the classic parse).
  const fatal = theirs.get('e.js')!.find((m) => m.fatal)!;
  t.ok(fatal, 'ESLint cannot parse e.js either');
  t.same(data.scripts[5].parse_error, { line: fatal.line, column: fatal.column, message: fatal.message });
  t.same(data.scripts.map((s: any) => s.source_type), ['module', 'module', 'module', 'script', 'module', null]);
});
