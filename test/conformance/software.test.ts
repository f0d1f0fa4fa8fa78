/**
 * The software plugin (type 25) and RetireJS's own CLI (retire 5.7.0, `--verbose --outputformat
 * json`) agree on the same files and the same vendored repository: the same libraries, versions
 * and vulnerabilities (identifiers and severities), RetireJS's end-of-life notices told apart.
 * Three stub scripts of test/fixtures/sites/software: jQuery 1.12.4 (found by its file name),
 * jQuery 3.7.1 and Bootstrap 3.3.7 (found by their banners). One spawn of the CLI.
 */
import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { PROJECT_ROOT } from '../../core/config.js';
import { runPlugin } from '../../core/pipeline.js';
import type { Probes } from '../../core/plugin-api.js';
import { RETIRE_REPOSITORY_FILE, type Vulnerability } from '../../plugins/software/retire-data.js';
import plugin from '../../plugins/software/index.js';
import { isEndOfLifeNotice, vulnerabilityIds } from '../../plugins/software/retire-scan.js';
import { fixtureRoot, makeArtifacts } from '../helpers/fixture-artifacts.js';

const run = promisify(execFile);
const FILES = ['jquery-1.12.4.min.js', 'jquery.min.js', 'bootstrap.min.js'];
const PAGE = 'https://kommun.test/';

const dir = await mkdtemp(path.join(os.tmpdir(), 'webperf-retire-'));
t.teardown(() => rm(dir, { recursive: true, force: true }));
const scripts = path.join(dir, 'js');
await mkdir(scripts);
for (const f of FILES) await copyFile(path.join(fixtureRoot('software'), 'js', f), path.join(scripts, f));

/** Per file: component@version → sorted "ids severity" of its vulnerabilities, and its end-of-life notice. */
type Seen = Record<string, Record<string, { vulnerabilities: string[]; endOfLife: boolean }>>;

const line = (ids: string[], severity: string | null) => `${ids.join('+')} ${severity}`;

t.test('the RetireJS CLI and the plugin find the same libraries and vulnerabilities', async (t) => {
  const out = path.join(dir, 'retire.json');
  const cli = path.join(PROJECT_ROOT, 'node_modules', 'retire', 'lib', 'cli.js');
  await run(process.execPath, [cli, '--path', scripts, '--jsrepo', RETIRE_REPOSITORY_FILE, '--outputformat', 'json', '--outputpath', out, '--verbose', '--exitwith', '0'], {
    cwd: dir,
    timeout: 60_000,
    env: { ...process.env, HOME: dir },
  });
  const report = JSON.parse(await readFile(out, 'utf8')) as { data: { file: string; results: { component: string; version: string; vulnerabilities?: Vulnerability[] }[] }[]; errors: string[] };
  t.strictSame(report.errors, [], 'the CLI read the vendored repository');

  const byCli: Seen = {};
  for (const finding of report.data) {
    const file = path.basename(finding.file);
    for (const r of finding.results) {
      const vulns = r.vulnerabilities ?? [];
      (byCli[file] ??= {})[`${r.component}@${r.version}`] = {
        vulnerabilities: vulns.filter((v) => !isEndOfLifeNotice(v)).map((v) => line(vulnerabilityIds(r.component, v), v.severity)).sort(),
        endOfLife: vulns.some(isEndOfLifeNotice),
      };
    }
  }

  const artifacts = makeArtifacts(PAGE, {
    mainDocument: { url: PAGE, status: 200, headers: {}, html: '<!DOCTYPE html><html lang="sv"><head><title>K</title></head><body></body></html>' },
    scripts: await Promise.all(FILES.map(async (f) => ({ url: `${PAGE}js/${f}`, content: await readFile(path.join(scripts, f), 'utf8') }))),
  });
  const probes = {} as Probes; // never asked
  const outcome = await runPlugin(plugin, artifacts, { probes, now: new Date('2026-11-27T12:00:00Z') });
  t.equal(outcome.error, null);
  const byPlugin: Seen = {};
  for (const s of (outcome.data as any).software.filter((s: any) => s.category === 'js')) {
    for (const resource of s.resources as string[]) {
      (byPlugin[path.basename(resource)] ??= {})[`${s.key}@${s.version}`] = {
        vulnerabilities: (s.vulnerabilities as { ids: string[]; severity: string }[]).map((v) => line(v.ids, v.severity)).sort(),
        endOfLife: s.end_of_life !== null,
      };
    }
  }

  t.strictSame(byPlugin, byCli, 'the same libraries, versions and vulnerabilities per file');
  // What both found, spelled out (RetireJS repository of 2026-08-22).
  t.strictSame(Object.keys(byCli).sort(), FILES.slice().sort());
  t.strictSame(byCli['jquery-1.12.4.min.js'], {
    'jquery@1.12.4': {
      vulnerabilities: ['CVE-2015-9251 medium', 'CVE-2019-11358 medium', 'CVE-2020-11022 medium', 'CVE-2020-11023 medium', 'jquery issue 11974 medium'],
      endOfLife: true,
    },
  });
  t.strictSame(byCli['jquery.min.js'], { 'jquery@3.7.1': { vulnerabilities: [], endOfLife: false } });
  t.strictSame(Object.keys(byCli['bootstrap.min.js']), ['bootstrap@3.3.7']);
  t.ok(byCli['bootstrap.min.js']['bootstrap@3.3.7'].endOfLife, "Bootstrap 3 is past RetireJS's end of life");
  t.ok(byCli['bootstrap.min.js']['bootstrap@3.3.7'].vulnerabilities.includes('CVE-2019-8331 medium'));
});
