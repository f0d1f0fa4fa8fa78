/**
 * Type 32, DNS (plugins/dns): Zonemaster's real command line (Debian's zonemaster-cli, engine 4.6)
 * over zones the test world serves authoritatively on port 53 of its own loopback addresses, from
 * a root of its own (test/helpers/world/authoritative-dns.ts); the guard's check of the name
 * servers through the world's resolver; the rating worked out by hand from upstream's rules; the
 * runner without Zonemaster; Zonemaster's bounds (time, output, abort) with stand-in programs (a
 * shell script that sleeps or writes without end: the only thing they stand in for is a zone that
 * never ends, which the world cannot make Zonemaster produce in bounded time).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { chmod, mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { createProbes } from '../../core/net/probes.js';
import { runPlugin } from '../../core/pipeline.js';
import { NOT_RATED } from '../../core/plugin-api.js';
import { createDnsPlugin, zoneOf } from '../../plugins/dns/index.js';
import { criteria, count, rate, SEVERITY_OVERRIDES } from '../../plugins/dns/rating.js';
import { findProgram, parseStream, runZonemaster, type ZonemasterEntry } from '../../plugins/dns/zonemaster.js';
import { makeArtifacts } from '../helpers/fixture-artifacts.js';
import { SCENARIOS, startAuthoritativeDns, type ScenarioName } from '../helpers/world/authoritative-dns.js';
import { startWorld } from '../helpers/world/index.js';
import { pool } from '../helpers/pool.js';

const world = await startWorld(t);
// The zones, served from a root of the world's own; the world's resolver answers for them as a
// validating resolver would (SERVFAIL for the two whose DNSSEC fails, unless asked with CD).
const zones = await startAuthoritativeDns({ zones: Object.values(SCENARIOS) });
t.teardown(() => zones.close());
for (const [name, records] of zones.resolverRecords()) world.record(name, records);
const zonemaster = findProgram('zonemaster-cli');
const scratch = await mkdtemp(path.join(os.tmpdir(), 'webperf-dns-'));

/** A stand-in program: a shell script with this body. */
async function program(name: string, body: string): Promise<string> {
  const file = path.join(scratch, name);
  await writeFile(file, `#!/bin/sh\n${body}\n`);
  await chmod(file, 0o755);
  return file;
}

const entry = (testcase: string, level: ZonemasterEntry['level'], tag = `${testcase}_TAG`): ZonemasterEntry => ({
  module: testcase.replace(/\d+$/, ''), testcase, tag, level, args: {}, timestamp: 0,
});

t.test('the rating: worst level per test case, upstream\'s deductions and examples', async (t) => {
  const ratingOf = (entries: ZonemasterEntry[]) => rate(count(criteria(entries)));
  // Upstream's examples (webperf_core-tests-next.md section 7).
  t.equal(ratingOf([entry('ZONE01', 'WARNING'), entry('ZONE02', 'INFO')]), 4.25, '1 warning → 4.25');
  t.equal(ratingOf([entry('ZONE01', 'ERROR')]), 3.5, '1 error → 3.5');
  t.equal(ratingOf([entry('ZONE01', 'WARNING'), entry('ZONE02', 'WARNING')]), 3.5, '2 warnings → 3.5');
  t.equal(ratingOf(['ZONE01', 'ZONE02', 'ZONE03', 'ZONE04'].map((c) => entry(c, 'WARNING'))), 2, '4 warnings → 2.0');
  t.equal(ratingOf(['ZONE01', 'ZONE02', 'ZONE03'].map((c) => entry(c, 'ERROR'))), 1, '3 errors → 1.0');
  t.equal(ratingOf([entry('BASIC02', 'CRITICAL'), entry('ZONE01', 'INFO')]), 1, 'any CRITICAL → 1.0');
  // One test case counts once, at its worst; notices cost nothing; SYSTEM and UNSPECIFIED are left out.
  const many = [entry('ZONE01', 'INFO'), entry('ZONE01', 'WARNING'), entry('ZONE01', 'ERROR'), entry('ZONE01', 'WARNING'), entry('ZONE02', 'NOTICE'),
    { ...entry('UNSPECIFIED', 'ERROR'), module: 'SYSTEM' }, { ...entry('X', 'CRITICAL'), module: 'BASIC', testcase: 'UNSPECIFIED' }];
  t.strictSame(count(criteria(many)), { total: 2, critical: 0, errors: 1, warnings: 0, notices: 1, ok: 0 });
  t.equal(ratingOf(many), 3.5);
  // The overrides lower to NOTICE only.
  const lowered = criteria([{ ...entry('ADDRESS03', 'WARNING', 'NAMESERVER_IP_WITHOUT_REVERSE') }, { ...entry('SYNTAX06', 'WARNING', 'MX_NUMERIC_TLD') }, { ...entry('SYNTAX07', 'INFO', 'MNAME_SYNTAX_OK') }]);
  t.strictSame(lowered.map((c) => [c.testcase, c.level]), [['ADDRESS03', 'NOTICE'], ['SYNTAX06', 'NOTICE'], ['SYNTAX07', 'INFO']]);
  t.equal(ratingOf([]), NOT_RATED, 'nothing ran: not rated');
});

t.test('the stream: one entry per line, anything else skipped', async (t) => {
  const out = [
    '{"args":{"version":"v4.6.2"},"level":"INFO","module":"SYSTEM","tag":"GLOBAL_VERSION","testcase":"UNSPECIFIED","timestamp":0.0007}',
    'Warning: setting locale category LC_MESSAGES to sv_SE.UTF-8 failed',
    '{"args":{},"level":"CRITICAL","module":"BASIC","tag":"NO_GLUE_PREVENTS_NAMESERVER_TESTS","testcase":"BASIC02","timestamp":10.01}',
    '{"level":"LOUD","module":"BASIC","tag":"X","testcase":"BASIC01"}',
    '{"broken json',
  ].join('\n');
  t.strictSame(parseStream(out).map((e) => [e.module, e.testcase, e.tag, e.level]), [['SYSTEM', 'UNSPECIFIED', 'GLOBAL_VERSION', 'INFO'], ['BASIC', 'BASIC02', 'NO_GLUE_PREVENTS_NAMESERVER_TESTS', 'CRITICAL']]);
});

t.test('the zone: the registrable domain of the address asked for', async (t) => {
  t.equal(zoneOf('https://www.kommun.test/'), 'kommun.test');
  t.equal(zoneOf('https://www.stockholm.se/a/b'), 'stockholm.se');
  t.equal(zoneOf('https://user.github.io/'), 'user.github.io', 'a private suffix is its own zone');
  t.equal(zoneOf('https://127.0.0.1:8080/'), null);
});

t.test("upstream's severity overrides name tags this engine has", { skip: zonemaster ? false : 'zonemaster-cli is not installed' }, async (t) => {
  const profile = JSON.parse(execFileSync(zonemaster!, ['--dump-profile'], { encoding: 'utf8' })) as { test_levels: Record<string, Record<string, string>> };
  for (const [module, tags] of Object.entries(SEVERITY_OVERRIDES)) {
    const known = Object.keys(profile.test_levels[module] ?? {});
    for (const tag of tags) {
      const matches = tag.endsWith('*') ? known.filter((k) => k.startsWith(tag.slice(0, -1))) : known.filter((k) => k === tag);
      t.ok(matches.length > 0, `${module} ${tag}: ${matches.join(', ')}`);
    }
  }
});

t.test('a runner without zonemaster-cli: not available, not rated, said in both languages', async (t) => {
  const plugin = createDnsPlugin({ cli: path.join(scratch, 'no-such-zonemaster'), hints: null, timeoutMs: 1000 });
  const outcome = await runPlugin(plugin, makeArtifacts('https://www.kommun.test/'), { probes: createProbes(world.guard()) });
  t.strictSame([outcome.rating, outcome.ratings, outcome.unavailable, outcome.data.code, outcome.data.component], [NOT_RATED, {}, 'zonemaster-cli', 'TEST_TYPE_UNAVAILABLE', 'zonemaster-cli']);
  t.equal(outcome.error, `not available on this runner: zonemaster-cli is missing (${path.join(scratch, 'no-such-zonemaster')} is not an executable program)`);
  t.match(outcome.reports.sv.overall, /^Testtypen går inte att köra på den här testmaskinen: zonemaster-cli saknas/);
  t.match(outcome.reports.en.overall, /^The test type is not available on this test runner: zonemaster-cli is missing/);
  const onPath = createDnsPlugin({ cli: 'zonemaster-cli-not-installed', hints: null, timeoutMs: 1000 });
  const other = await runPlugin(onPath, makeArtifacts('https://www.kommun.test/'), { probes: createProbes(world.guard()) });
  t.equal(other.error, 'not available on this runner: zonemaster-cli is missing (zonemaster-cli-not-installed is not on the PATH)');
});

t.test('name servers at addresses the guard refuses: Zonemaster is not run, the result says why', async (t) => {
  const marker = path.join(scratch, 'ran');
  const spy = await program('spy-zonemaster', `touch ${marker}`);
  world.record('inside.test', { A: ['192.0.2.80'], NS: ['ns1.inside.test', 'ns2.elsewhere.test'] });
  world.record('ns1.inside.test', { A: ['10.20.30.40'] });
  world.record('ns2.elsewhere.test', { A: ['127.20.0.53'] });
  const plugin = createDnsPlugin({ cli: spy, hints: null, timeoutMs: 5000 });
  // The world's guard allowlists loopback only: 10.20.30.40 is refused; with nothing allowlisted, both.
  for (const [allow, refused] of [[undefined, ['ns1.inside.test (10.20.30.40)']], [[], ['ns1.inside.test (10.20.30.40)', 'ns2.elsewhere.test (127.20.0.53)']]] as const) {
    const outcome = await runPlugin(plugin, makeArtifacts('https://www.inside.test/'), { probes: createProbes(world.guard(allow)) });
    t.strictSame([outcome.rating, outcome.error, outcome.data.failed, outcome.data.code], [NOT_RATED, null, 'target-refused', 'TARGET_BLOCKED']);
    t.strictSame((outcome.data.refused_name_servers as { name: string; address: string }[]).map((r) => `${r.name} (${r.address})`), refused);
    t.equal(outcome.reports.en.overall.split('\n')[0], `inside.test: its name servers have addresses that are not allowed as test targets (private, loopback or other internal addresses): ${refused.join(', ')}. The domain was not tested.`);
    t.match(outcome.reports.sv.overall, /^inside\.test: namnservrarna har adresser som inte får testas/);
  }
  t.notOk(existsSync(marker), 'the program was never started');
  // A domain without NS records, or none at all: not rated, said so, nothing started either.
  const none = await runPlugin(plugin, makeArtifacts('https://nothing-here.test/'), { probes: createProbes(world.guard()) });
  t.strictSame([none.rating, none.data.failed], [NOT_RATED, 'nxdomain']);
  world.record('nons.test', { A: ['192.0.2.81'] });
  const nons = await runPlugin(plugin, makeArtifacts('https://nons.test/'), { probes: createProbes(world.guard()) });
  t.strictSame([nons.rating, nons.data.failed], [NOT_RATED, 'no-ns']);
  t.notOk(existsSync(marker));
  // A name whose label begins with a hyphen is no zone (and would read as an option to the program).
  const hyphen = await runPlugin(plugin, makeArtifacts('https://-x.test/'), { probes: createProbes(world.guard()) });
  t.strictSame([hyphen.rating, hyphen.data.failed, hyphen.reports.en.overall.split('\n')[0]], [NOT_RATED, 'invalid-domain', '-x.test is not a valid domain name, so there is no DNS zone to test.']);
  t.notOk(existsSync(marker));
});

t.test("Zonemaster's bounds: time, output and the run's signal end it, its children with it", async (t) => {
  const pidFile = path.join(scratch, 'child.pid');
  const slow = await program('slow-zonemaster', `sleep 30 & echo $! > ${pidFile}; wait`);
  const started = Date.now();
  await t.rejects(runZonemaster('slow.test', { cli: slow, hints: null, timeoutMs: 300 }, new AbortController().signal), { message: 'slow-zonemaster took longer than 300 ms' });
  t.ok(Date.now() - started < 5000, 'ended at its bound');
  const child = Number(readFileSync(pidFile, 'utf8'));
  await new Promise((r) => setTimeout(r, 100));
  // Gone, or a zombie waiting for whoever adopted it (a container's first process may never reap it).
  const state = (() => {
    try {
      return readFileSync(`/proc/${child}/stat`, 'utf8').split(') ')[1][0];
    } catch {
      return 'gone';
    }
  })();
  t.ok(state === 'gone' || state === 'Z', `the program's own child was killed too (${state})`);

  const loud = await program('loud-zonemaster', 'yes \'{"level":"INFO","module":"ZONE","tag":"X","testcase":"ZONE01"}\'');
  await t.rejects(runZonemaster('loud.test', { cli: loud, hints: null, timeoutMs: 20_000 }, new AbortController().signal), { message: 'loud-zonemaster wrote more than 8388608 bytes' });

  const controller = new AbortController();
  const run = runZonemaster('slow.test', { cli: slow, hints: null, timeoutMs: 20_000 }, controller.signal);
  setTimeout(() => controller.abort(new Error('the job was cancelled')), 100);
  await t.rejects(run, { message: 'the job was cancelled' });

  const silent = await program('silent-zonemaster', 'echo "no such option" >&2; exit 2');
  await t.rejects(runZonemaster('silent.test', { cli: silent, hints: null, timeoutMs: 5000 }, new AbortController().signal), { message: 'zonemaster-cli gave no result (exit code 2): no such option' });
});


/**
 * Every scenario zone through the plugin and the real zonemaster-cli. Per scenario: the test cases
 * remarked (worst level after the overrides) and the ratings, worked out by hand from them. Every
 * zone here has what loopback cannot help: ADDRESS01 (name servers at private addresses, ERROR,
 * −1.5) and ADDRESS02 (no reverse DNS, WARNING lowered to NOTICE by upstream's override, free), so
 * a healthy zone rates 3.5 overall and standards, 5.0 security.
 */
const LOOPBACK = ['ADDRESS01 ERROR', 'ADDRESS02 NOTICE', 'DELEGATION01 NOTICE'];
const EXPECTED: Record<ScenarioName, { remarks: string[]; rating: number; infosec: number; webstandard: number }> = {
  good: { remarks: [...LOOPBACK, 'DNSSEC07 NOTICE'], rating: 3.5, infosec: 5, webstandard: 3.5 },
  signed: { remarks: LOOPBACK, rating: 3.5, infosec: 5, webstandard: 3.5 },
  // 2 errors (ADDRESS01, BASIC02) and 8 warnings: 5 − 3 − 6 < 1 → 1.0; nothing in DNSSEC or Consistency.
  lame: {
    remarks: [...LOOPBACK, 'DNSSEC07 NOTICE', 'BASIC02 ERROR', 'CONNECTIVITY01 WARNING', 'CONNECTIVITY02 WARNING', 'DELEGATION04 WARNING', 'DELEGATION05 WARNING', 'NAMESERVER02 WARNING', 'NAMESERVER05 WARNING', 'NAMESERVER12 WARNING', 'NAMESERVER13 WARNING'],
    rating: 1, infosec: 5, webstandard: 1,
  },
  // 1 error, 1 warning: 5 − 1.5 − 0.75 = 2.75; security 5 − 0.75 = 4.25.
  serial: { remarks: [...LOOPBACK, 'DNSSEC07 NOTICE', 'CONSISTENCY01 WARNING'], rating: 2.75, infosec: 4.25, webstandard: 3.5 },
  // 2 errors: 5 − 3 = 2.0.
  recursor: { remarks: [...LOOPBACK, 'DNSSEC07 NOTICE', 'NAMESERVER01 ERROR'], rating: 2, infosec: 5, webstandard: 2 },
  // AXFR open is a NOTICE in this engine: free.
  axfr: { remarks: [...LOOPBACK, 'DNSSEC07 NOTICE', 'NAMESERVER03 NOTICE'], rating: 3.5, infosec: 5, webstandard: 3.5 },
  // DNSSEC02 at ERROR: 2 errors overall (2.0), 1 in security (3.5).
  dsmismatch: { remarks: [...LOOPBACK, 'DNSSEC02 ERROR'], rating: 2, infosec: 3.5, webstandard: 3.5 },
  // DNSSEC02, 04, 08, 09, 10 at ERROR: 6 errors overall and 5 in security → 1.0 each.
  expired: { remarks: [...LOOPBACK, 'DNSSEC02 ERROR', 'DNSSEC04 ERROR', 'DNSSEC08 ERROR', 'DNSSEC09 ERROR', 'DNSSEC10 ERROR'], rating: 1, infosec: 1, webstandard: 3.5 },
};

t.test('every scenario zone through the plugin and the real zonemaster-cli: remarks and ratings', { skip: zonemaster ? false : 'zonemaster-cli is not installed (Debian: apt-get install zonemaster-cli)' }, async (t) => {
  const plugin = createDnsPlugin({ cli: 'zonemaster-cli', hints: zones.hintsFile, timeoutMs: 60_000 });
  const scenarios = Object.keys(SCENARIOS) as ScenarioName[];
  const outcomes = await pool(scenarios, 3, (s) => runPlugin(plugin, makeArtifacts(`https://www.${SCENARIOS[s].name}/`), { probes: createProbes(world.guard()) }));
  for (const [i, scenario] of scenarios.entries()) {
    const o = outcomes[i];
    const data = o.data as { zone: string; remarks: { testcase: string; level: string }[]; zonemaster: { version: string; elapsed_ms: number }; name_servers: { name: string; addresses: string[] }[] };
    t.equal(o.error, null, `${scenario}: ${o.error}`);
    t.strictSame([...data.remarks.map((r) => `${r.testcase} ${r.level}`)].sort(), [...EXPECTED[scenario].remarks].sort(), `${scenario}: the test cases remarked`);
    t.strictSame([o.rating, o.ratings], [EXPECTED[scenario].rating, { infosec: EXPECTED[scenario].infosec, webstandard: EXPECTED[scenario].webstandard }], `${scenario}: rated as worked out`);
    t.strictSame([data.zone, data.zonemaster.version, data.name_servers], [SCENARIOS[scenario].name, 'v4.6.2', zones.zoneNs(SCENARIOS[scenario].name).map((n) => ({ name: n.name, addresses: [n.address] }))]);
  }
  t.comment(`Zonemaster's time per zone (3 at once): ${scenarios.map((s, i) => `${s} ${((outcomes[i].data as any).zonemaster.elapsed_ms / 1000).toFixed(2)} s`).join(', ')}`);

  // The report of one, word for word: the band, the counts, each remark in Zonemaster's own words.
  const serial = outcomes[scenarios.indexOf('serial')];
  const counts = serial.data.counts as { total: number; ok: number; notices: number };
  t.equal(serial.reports.en.overall.split('\n')[0], `serial.test: An average DNS setup, but it should be improved. ${counts.ok} of ${counts.total} criteria without remark. ${counts.notices} notices (not rated).`);
  t.equal(serial.reports.sv.overall.split('\n')[0], `serial.test: Genomsnittlig DNS-uppsättning, men bör förbättras. ${counts.ok} av ${counts.total} kriterier utan anmärkning. ${counts.notices} notiser (påverkar inte betyget).`);
  t.match(serial.reports.sv.sec, /Consistency \[varning\] Samma SOA Serial överallt: /);
  t.match(serial.reports.en.sec, /Consistency \[warning\] SOA serial number consistency: /);
  t.match(serial.reports.en.stand, /Address \[error\] Name server address must be globally routable: Nameserver ns1\.serial\.test has an IP address \(127\.53\./);
  t.match(serial.reports.sv.stand, /Address \[fel\] Namnserverns adress måste vara globalt routbar\.: Namnservern ns1\.serial\.test har en IP-adress/);
  // Security rated 1.0 for the expired signatures, in its report too.
  const expired = outcomes[scenarios.indexOf('expired')];
  t.match(expired.reports.en.sec, /DNSSEC \[error\]/);
});
