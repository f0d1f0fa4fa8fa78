import { PassThrough } from 'node:stream';
import t from 'tap';
import { buildApp } from '../../api/app.js';
import { loadConfig } from '../../core/config.js';
import { PluginRegistry } from '../../core/registry.js';
import { createKey } from '../../core/store/keys.js';
import { createSite } from '../../core/store/sites.js';
import { createTestDb } from '../helpers/db.js';

t.test('request logs never hold an api-key, from the header or the query string', async (t) => {
  const { db } = await createTestDb(t);
  const siteId = await createSite(db, { title: 'Acme', url: 'https://acme.example/' });
  const { key } = await createKey(db, { kind: 'standard', siteIds: [siteId] });
  const stream = new PassThrough();
  let log = '';
  stream.on('data', (c: Buffer) => (log += c.toString()));
  const app = await buildApp({ db, config: loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'info' }), registry: new PluginRegistry(), version: '1.0.0' }, { logger: { stream } });
  t.teardown(() => app.close());

  t.equal((await app.inject({ url: `/stats/${siteId}`, headers: { 'api-key': key } })).statusCode, 200);
  t.equal((await app.inject({ url: `/stats/${siteId}?api-key=${key}&lang=en` })).statusCode, 401, 'premium routes take the key from the header only');
  t.equal((await app.inject({ url: '/health', headers: { 'api-key': 'wpk_000000000000_' + 'z'.repeat(43) } })).statusCode, 200);
  await new Promise((r) => setImmediate(r));

  const lines = log.trim().split('\n').map((l) => JSON.parse(l));
  const requests = lines.filter((l) => l.req);
  t.equal(requests.length, 3, 'three requests logged');
  t.notOk(log.includes(key), 'the key is nowhere in the log');
  t.notOk(log.includes('z'.repeat(43)), 'nor a wrong key');
  t.equal(requests[0].req.headers['api-key'], '[Redacted]');
  t.equal(requests[1].req.url, `/stats/${siteId}?api-key=[Redacted]&lang=en`);
});
