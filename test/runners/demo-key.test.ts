/**
 * `npm start`'s demo key is of the current format (letters and digits, what public clients accept):
 * a data folder kept from before, whose demo key is of the earlier format, gets a new demo key at
 * its next start and the old one is revoked; a current key is kept from start to start.
 */
import { readFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { resolveKey } from '../../core/store/keys.js';
import { startDemo } from '../../runners/demo.js';
import { createTestDb } from '../helpers/db.js';
import { createLegacyKey } from '../helpers/legacy-key.js';

t.test('the demo key: current format at first start, kept, and an earlier-format key replaced', async (t) => {
  const { db } = await createTestDb(t);
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'webperf-demo-key-'));
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));
  const file = path.join(dataDir, 'demo.json');

  const first = await startDemo(db, dataDir);
  await first.close();
  t.match(first.key, /^wpk[A-Za-z0-9]{55}$/, 'first start: letters and digits');
  t.strictSame((await resolveKey(db, first.key))?.siteIds, [first.siteId], 'it reaches the demo site');

  const second = await startDemo(db, dataDir);
  await second.close();
  t.equal(second.key, first.key, 'kept at the next start');

  // A data folder from before the format changed: its demo key is of the earlier format.
  const saved = JSON.parse(await readFile(file, 'utf8'));
  await db.updateTable('api_keys').set({ revoked_at: new Date() }).where('label', '=', 'demo').execute();
  const old = await createLegacyKey(db, { kind: 'standard', siteIds: [first.siteId], label: 'demo' });
  await writeFile(file, JSON.stringify({ ...saved, key: old.key }));
  t.ok(await resolveKey(db, old.key), 'the old demo key works before the start');

  const third = await startDemo(db, dataDir);
  await third.close();
  t.match(third.key, /^wpk[A-Za-z0-9]{55}$/, 'a new key of the current format');
  t.strictSame((await resolveKey(db, third.key))?.siteIds, [first.siteId], 'reaching the demo site');
  t.equal(await resolveKey(db, old.key), null, 'the old demo key is revoked');
  t.equal(JSON.parse(await readFile(file, 'utf8')).key, third.key, 'and the new one kept in the data folder');
  const active = await db.selectFrom('api_keys').select('prefix').where('label', '=', 'demo').where('revoked_at', 'is', null).execute();
  t.strictSame(active.map((k) => k.prefix), [third.key.slice(0, 15)], 'one active demo key');
});
