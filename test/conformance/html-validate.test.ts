/**
 * Conformance: plugin 28 against html-validate's own command-line tool run directly on the HTML
 * the fixture server serves (fetched here with a plain HTTP request, not through the gather
 * step), with the same preset. The plugin validates the gathered main document of one Chromium
 * load; both must report the same messages, rule by rule and place by place.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { PROJECT_ROOT } from '../../core/config.js';
import { runPlugin } from '../../core/pipeline.js';
import htmlLint, { PRESET } from '../../plugins/html-validate/index.js';
import { loadFixture } from '../helpers/fixture-artifacts.js';

const run = promisify(execFile);
const CLI = path.join(PROJECT_ROOT, 'node_modules', '.bin', 'html-validate');

/** html-validate's CLI on `html`: [rule, severity, line, column, message] per message. */
async function reference(html: string): Promise<[string, string, number, number, string][]> {
  const dir = await mkdtemp(path.join(tmpdir(), 'webperf-html-'));
  try {
    await writeFile(path.join(dir, 'page.html'), html);
    await writeFile(path.join(dir, 'config.json'), JSON.stringify({ root: true, extends: [PRESET] }));
    // Exit status 1 means "invalid document", which is what this fixture is.
    const out = await run(CLI, ['--formatter', 'json', '--config', path.join(dir, 'config.json'), path.join(dir, 'page.html')]).catch((err) => err);
    const results = JSON.parse(out.stdout) as { messages: { ruleId: string; severity: number; line: number; column: number; message: string }[] }[];
    return results.flatMap((r) => r.messages).map((m) => [m.ruleId, m.severity >= 2 ? 'error' : 'warning', m.line, m.column, m.message]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

t.test('flawed: the same messages as html-validate run on the served HTML', async (t) => {
  const { url, artifacts, probes } = await loadFixture(t, 'flawed');
  // Read as the service reads it: the world's names and CA (Node's fetch knows neither).
  const served = (await probes.fetch(url)).body;
  const theirs = await reference(served);
  t.ok(theirs.length > 0, 'the reference finds something to compare');
  let findings: { rule: string; count?: number }[] = [];
  const spy = { meta: htmlLint.meta, run: async (a: any, c: any) => { const r = await htmlLint.run(a, c); findings = r.findings; return r; } };
  const outcome = await runPlugin(spy as any, artifacts, { probes: undefined as any });
  const data = outcome.data as any;
  t.same(data.messages.map((m: any) => [m.rule, m.severity, m.line, m.column, m.message]), theirs);
  t.equal(data.errors, theirs.filter((m) => m[1] === 'error').length);
  t.equal(data.warnings, theirs.filter((m) => m[1] === 'warning').length);
  // One finding per rule, counted per message.
  const perRule = new Map<string, number>();
  for (const [rule] of theirs) perRule.set(rule, (perRule.get(rule) ?? 0) + 1);
  t.same(findings.map((f) => [f.rule, f.count ?? 1]), [...perRule]);
  t.match(outcome.reports.en.overall, new RegExp(`: ${data.errors} errors? and ${data.warnings} warnings?\\.`));
});
