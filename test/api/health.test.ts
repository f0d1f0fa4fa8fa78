import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { buildApp } from '../../api/app.js';
import { loadConfig } from '../../core/config.js';
import { createDb } from '../../core/db/database.js';
import { startEmbeddedPostgres, ensureDatabase } from '../../core/db/embedded.js';
import { PluginRegistry } from '../../core/registry.js';

t.test('/health answers 503 while the database is down and 200 again when it is back, without a restart', async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'webperf-health-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  let pg = await startEmbeddedPostgres(path.join(dir, 'pg'), { fast: true });
  await ensureDatabase(pg.adminUrl, 'webperf');
  const db = createDb(pg.urlFor('webperf'), { max: 2 });
  const app = await buildApp({ db, config: loadConfig({ NODE_ENV: 'test' }), registry: new PluginRegistry(), version: '1.0.0' });
  t.teardown(async () => {
    await app.close();
    await db.destroy();
    await pg.stop();
  });

  const up = await app.inject('/health');
  t.equal(up.statusCode, 200);
  t.equal(up.json().status, 'ok');
  t.equal(up.json().database.status, 'ok');
  t.type(up.json().database.latency_ms, 'number');

  await pg.stop();
  const down = await app.inject('/health');
  t.equal(down.statusCode, 503);
  t.equal(down.json().status, 'unavailable');
  t.same(down.json().database, { status: 'unavailable', error: 'the database does not respond' });

  pg = await startEmbeddedPostgres(path.join(dir, 'pg'), { fast: true, port: pg.port });
  const back = await app.inject('/health');
  t.equal(back.statusCode, 200);
  t.equal(back.json().database.status, 'ok');
});
