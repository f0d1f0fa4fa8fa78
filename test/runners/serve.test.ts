/**
 * `npm start` as a newcomer sees it: one process starts the embedded PostgreSQL, migrations, the
 * runner, the scheduler, the demo and the API; prints the addresses, the demo site id and key; the
 * demo's scores appear at /item/{id}; Ctrl-C stops everything; a second start reuses the data.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { PROJECT_ROOT } from '../../core/config.js';

const BIN = path.join(PROJECT_ROOT, 'bin', 'webperf.js');

interface Started {
  child: ChildProcess;
  lines: string[];
  api: string;
  siteId: number;
  key: string;
  exited: Promise<number | null>;
}

async function start(dataDir: string): Promise<Started> {
  const child = spawn(process.execPath, [BIN, 'serve'], {
    env: { ...process.env, PORT: '0', WEBPERF_DATA_DIR: dataDir, LOG_LEVEL: 'warn', DATABASE_URL: '' },
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
  t.match(first.key, /^wpk_[0-9a-f]{12}_[A-Za-z0-9_-]{43}$/);
  t.ok(first.lines.some((l) => /imported 310 public-sector websites/.test(l)));

  const health = await fetch(`${first.api}/health`);
  t.equal(health.status, 200);
  t.equal((await fetch(`${first.api}/public-sector/`).then((r) => r.json())).result_count, 310);

  const until = Date.now() + 120_000;
  let scores: any = null;
  while (Date.now() < until) {
    const body = await fetch(`${first.api}/item/${first.siteId}`, { headers: { 'api-key': first.key } }).then((r) => r.json());
    if (body.data.scores?.overall !== null && body.data.scores?.overall !== undefined) {
      scores = body.data.scores;
      break;
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
  t.ok(scores, 'the demo site has scores within two minutes of start');
  for (const k of ['a11y', 'infosec', 'pagespeed', 'webstandard', 'overall']) t.ok(scores[k] >= 1 && scores[k] <= 5, `${k} on the scale`);
  t.notOk(first.lines.some((l) => l.includes(first.key) && !/Demo api-key|Try:/.test(l)), 'the key appears only where it is printed for the operator');

  t.equal(await stopWith(first, 'SIGINT'), 0);
  t.ok(first.lines.includes('[webperf] stopped'));
  const pgAlive = await fetch(`${first.api}/health`).then(() => true, () => false);
  t.equal(pgAlive, false, 'the API is gone');

  const second = await start(dataDir);
  t.teardown(() => second.child.kill('SIGKILL'));
  t.equal(second.siteId, first.siteId, 'same demo site');
  t.equal(second.key, first.key, 'same demo key');
  t.notOk(second.lines.some((l) => /imported/.test(l)), 'nothing imported twice');
  const again = await fetch(`${second.api}/item/${second.siteId}`, { headers: { 'api-key': second.key } }).then((r) => r.json());
  t.same(again.data.scores, scores, 'the scores survived the restart');
  t.equal(await stopWith(second, 'SIGTERM'), 0);
});
