/**
 * `npm start` as a newcomer sees it: one process starts the embedded PostgreSQL, migrations, the
 * runner, the scheduler, the demo and the API; prints the addresses, the demo site id and key; the
 * demo's scores appear at /item/{id}; Ctrl-C stops everything; a second start reuses the data.
 * The service is configured as an operator would point it at the test world (world.env(): its DNS
 * server, the suite's CA), with nothing allowlisted beyond the demo, which the service allowlists
 * itself by its origin (the demo is the service's own plain http site on loopback).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { PROJECT_ROOT } from '../../core/config.js';
import { testWorld } from '../helpers/world/index.js';

const BIN = path.join(PROJECT_ROOT, 'bin', 'webperf.js');

interface Started {
  child: ChildProcess;
  lines: string[];
  api: string;
  siteId: number;
  key: string;
  /** The demo portal account's password, as printed. */
  portalPassword: string;
  exited: Promise<number | null>;
}

async function start(dataDir: string, env: Record<string, string> = {}): Promise<Started> {
  const world = (await testWorld()).env({ WEBPERF_ALLOW_TARGETS: '' });
  const child = spawn(process.execPath, [BIN, 'serve'], {
    env: { ...process.env, ...world, PORT: '0', WEBPERF_DATA_DIR: dataDir, LOG_LEVEL: 'warn', DATABASE_URL: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  let buffer = '';
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not started in 60 s:\n${lines.join('\n')}`)), 60_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      let nl: number;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        lines.push(buffer.slice(0, nl));
        buffer = buffer.slice(nl + 1);
        if (lines.at(-1)!.includes('Ctrl-C stops everything')) {
          clearTimeout(timer);
          resolve();
        }
      }
    });
    child.stderr!.on('data', (chunk: Buffer) => lines.push(`stderr: ${chunk}`));
    void exited.then((code) => reject(new Error(`exited with ${code}:\n${lines.join('\n')}`)));
  });
  await ready;
  const find = (re: RegExp) => lines.map((l) => re.exec(l)).find(Boolean)?.[1];
  return {
    child,
    lines,
    api: find(/^\[webperf\] API: +(http:\/\/\S+)\/$/)!,
    siteId: Number(find(/^\[webperf\] Demo site id: (\d+)/)),
    key: find(/^\[webperf\] Demo api-key: (\S+)$/)!,
    portalPassword: find(/^\[webperf\] Portal: \S+\/portal\/ +\(demo account: demo@example\.org \/ password (\S+)\)$/)!,
    exited,
  };
}

async function stopWith(started: Started, signal: NodeJS.Signals): Promise<number | null> {
  started.child.kill(signal);
  return started.exited;
}

t.test('npm start: one process, demo scores within two minutes, clean Ctrl-C, data reused', async (t) => {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'webperf-serve-'));
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));
  const first = await start(dataDir);
  t.teardown(() => first.child.kill('SIGKILL'));
  t.match(first.api, /^http:\/\/127\.0\.0\.1:\d+$/);
  t.ok(first.lines.some((l) => l === `[webperf] Docs:  ${first.api}/docs`), 'prints the docs address');
  t.ok(first.lines.some((l) => l.startsWith(`[webperf] Dashboard: ${first.api}/ `)), 'prints the dashboard address');
  const dashboard = await fetch(`${first.api}/`, { headers: { accept: 'text/html' } });
  t.equal(dashboard.status, 200);
  t.match(await dashboard.text(), /<h1>Offentliga webbplatser<\/h1>/, 'the dashboard answers at that address');
  t.match(first.key, /^wpk[A-Za-z0-9]{55}$/, 'the demo key is letters and digits only');
  t.ok(first.lines.some((l) => /imported 310 public-sector websites/.test(l)));
  // The printed demo portal account signs in at once.
  t.match(first.portalPassword, /^[A-Za-z0-9_-]{16}$/, 'prints the demo portal account');
  const form = await fetch(`${first.api}/portal/sign-in`);
  const cookie = form.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())![1];
  const signedIn = await fetch(`${first.api}/portal/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _csrf: csrf, email: 'demo@example.org', password: first.portalPassword }),
  });
  t.equal(signedIn.status, 303, 'the demo account signs in');
  t.equal(signedIn.headers.get('location'), '/portal/');

  const health = await fetch(`${first.api}/health`);
  t.equal(health.status, 200);
  t.equal((await fetch(`${first.api}/public-sector/`).then((r) => r.json())).result_count, 310);

  const until = Date.now() + 120_000;
  let scores: any = null;
  while (Date.now() < until) {
    // A GET is retried on a reset keep-alive connection, as HTTP clients do: while the demo run
    // keeps this process's event loop busy, the server's 5 s keep-alive timer can fire before it
    // reads a request already sent on the idle socket (noted in RELIABILITY.md).
    const res = await fetch(`${first.api}/item/${first.siteId}`, { headers: { 'api-key': first.key } })
      .catch((err: any) => { if (err?.cause?.code === 'ECONNRESET') return null; throw err; });
    if (!res) continue;
    const body = await res.json();
    // 503 DB_UNAVAILABLE is the documented answer to retry (Retry-After), as a client does.
    if (res.status === 503 && body.error === 'DB_UNAVAILABLE') {
      t.comment(`GET /item/ answered 503 ${body.message}; retried`);
      await new Promise((r) => setTimeout(r, 1000));
      continue;
    }
    if (res.status !== 200) {
      t.fail(`GET /item/${first.siteId} answered ${res.status}: ${JSON.stringify(body)}`);
      break;
    }
    if (body.data.scores?.overall !== null && body.data.scores?.overall !== undefined) {
      scores = body.data.scores;
      break;
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
  t.ok(scores, 'the demo site has scores within two minutes of start');
  for (const k of ['a11y', 'infosec', 'pagespeed', 'webstandard', 'overall']) t.ok(scores[k] >= 1 && scores[k] <= 5, `${k} on the scale`);
  t.notOk(first.lines.some((l) => l.includes(first.key) && !/Demo api-key|Try:/.test(l)), 'the key appears only where it is printed for the operator');

  t.equal(await stopWith(first, 'SIGINT'), 0, `stopped cleanly; its last lines:\n${first.lines.slice(-15).join('\n')}`);
  t.ok(first.lines.includes('[webperf] stopped'));
  const pgAlive = await fetch(`${first.api}/health`).then(() => true, () => false);
  t.equal(pgAlive, false, 'the API is gone');

  const second = await start(dataDir);
  t.teardown(() => second.child.kill('SIGKILL'));
  t.equal(second.siteId, first.siteId, 'same demo site');
  t.equal(second.key, first.key, 'same demo key');
  t.equal(second.portalPassword, first.portalPassword, 'same demo portal password');
  t.notOk(second.lines.some((l) => /imported/.test(l)), 'nothing imported twice');
  const again = await fetch(`${second.api}/item/${second.siteId}`, { headers: { 'api-key': second.key } }).then((r) => r.json());
  t.same(again.data.scores, scores, 'the scores survived the restart');
  t.equal(await stopWith(second, 'SIGTERM'), 0, `stopped cleanly; its last lines:\n${second.lines.slice(-15).join('\n')}`);
});

const execFileP = promisify(execFile);

/** An operator command against the same data folder, as a second process. */
async function webperf(dataDir: string, ...args: string[]) {
  try {
    const { stdout, stderr } = await execFileP(process.execPath, [BIN, ...args], { env: { ...process.env, WEBPERF_DATA_DIR: dataDir, DATABASE_URL: '' }, timeout: 120_000 });
    return { code: 0, stdout, stderr };
  } catch (err: any) {
    return { code: err.code as number, stdout: err.stdout as string, stderr: err.stderr as string };
  }
}

/** Alive and not a zombie. */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat[stat.lastIndexOf(')') + 2] !== 'Z';
  } catch {
    return false;
  }
}

async function until(what: string, ms: number, probe: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

t.test('operator commands work while the service runs; a service killed with SIGKILL leaves no Chromium and starts again', async (t) => {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'webperf-ops-'));
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));
  const fast = { WEBPERF_HEARTBEAT_MS: '1000', WEBPERF_STALE_AFTER_MS: '5000' };
  const first = await start(dataDir, fast);
  t.teardown(() => first.child.kill('SIGKILL'));

  const created = await webperf(dataDir, 'keys', 'create', '--site', String(first.siteId), '--label', 'ops', '--json');
  t.equal(created.code, 0, created.stderr);
  const key: string = JSON.parse(created.stdout).key;
  t.match(key, /^wpk[A-Za-z0-9]{55}$/);
  const item = await fetch(`${first.api}/item/${first.siteId}`, { headers: { 'api-key': key } });
  t.equal(item.status, 200, 'the new key works against the running API');
  t.equal((await item.json()).data.title, 'Exempelby kommun (demo)');
  const list = await webperf(dataDir, 'keys', 'list', '--json');
  t.equal(list.code, 0, list.stderr);
  t.same(JSON.parse(list.stdout).map((k: any) => k.label).sort(), ['demo', 'ops']);

  const twice = await webperf(dataDir, 'serve');
  t.equal(twice.code, 1);
  t.match(twice.stderr, new RegExp(`^webperf: webperf \\(pid ${first.child.pid}\\) already runs on the data folder `), 'a second service on the same data folder is refused clearly');
  t.notMatch(twice.stderr, /undefined/);

  const pidDir = path.join(dataDir, 'chromium');
  await until('the runner has launched Chromium', 60_000, () => existsSync(pidDir) && readdirSync(pidDir).length > 0);
  const chromium = JSON.parse(readFileSync(path.join(pidDir, `${first.child.pid}.json`), 'utf8')).chromium as number;
  first.child.kill('SIGKILL');
  await first.exited;
  await until('the killed service\'s Chromium ends', 30_000, () => !running(chromium));
  t.pass('no Chromium of the killed service survives');

  const second = await start(dataDir, fast);
  t.teardown(() => second.child.kill('SIGKILL'));
  t.equal(second.siteId, first.siteId, 'same demo site');
  t.equal(second.key, first.key, 'same demo key');
  t.not(second.api, first.api);
  let scores: any = null;
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    const body = await fetch(`${second.api}/item/${second.siteId}`, { headers: { 'api-key': key } }).then((r) => r.json());
    if (typeof body.data.scores?.overall === 'number') {
      scores = body.data.scores;
      break;
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
  t.ok(scores, 'the demo site is tested, at its current address, within two minutes of the restart');
  t.equal(await stopWith(second, 'SIGTERM'), 0, `stopped cleanly; its last lines:\n${second.lines.slice(-15).join('\n')}`);
  t.same(readdirSync(pidDir), [], 'a clean stop leaves no Chromium note');
});
