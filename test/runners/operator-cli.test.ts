import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import t, { type Test } from 'tap';
import { buildApp } from '../../api/app.js';
import { PROJECT_ROOT, loadConfig } from '../../core/config.js';
import { PluginRegistry } from '../../core/registry.js';
import { resolveKey } from '../../core/store/keys.js';
import { createTestDb } from '../helpers/db.js';
import { operator } from '../helpers/operator.js';

const run = promisify(execFile);
const BIN = path.join(PROJECT_ROOT, 'bin', 'webperf.js');
/** A data folder where no service announces itself: the users add link uses the configured address. */
const NO_SERVICE = path.join(PROJECT_ROOT, 'test', '.no-service');

// One database for the whole file: the commands build on each other like an operator's session.
const { db, url } = await createTestDb(t);

const ENV = { DATABASE_URL: url, WEBPERF_DEMO: '0', WEBPERF_DATA_DIR: NO_SERVICE };

/**
 * The real CLI in its own process: kept for one command of each kind (and a refusal), whose exit
 * code and output are asserted exactly; the other calls run in process (`op`), the same code path.
 */
async function webperf(...args: string[]) {
  try {
    const { stdout, stderr } = await run(process.execPath, [BIN, ...args], { env: { ...process.env, ...ENV }, timeout: 120_000 });
    return { code: 0, stdout, stderr };
  } catch (err: any) {
    return { code: err.code as number, stdout: err.stdout as string, stderr: err.stderr as string };
  }
}

/** An operator command in this process (test/helpers/operator.ts): what the spawned CLI prints, and its exit code. */
const op = (...args: string[]) => operator(ENV, ...args);

/** A refusal: exit code 2, one clear message, nothing on stdout. */
function refused(t: Test, res: { code: number; stdout: string; stderr: string }, message: RegExp, what: string) {
  t.equal(res.code, 2, `${what}: exit code 2`);
  t.match(res.stderr, message, `${what}: message`);
  t.equal(res.stdout, '', `${what}: nothing on stdout`);
}

const count = async (table: 'sites' | 'api_keys' | 'categories') =>
  Number((await db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);

t.test('levels and categories', async (t) => {
  const set = await webperf('levels', 'set', 'gold', '500');
  t.strictSame(set, { code: 0, stdout: 'level gold: 500 credits per 30 days\n', stderr: '' });
  t.strictSame(await db.selectFrom('premium_levels').selectAll().execute(), [{ name: 'gold', monthly_quota: 500 }]);
  const [again, bad, missing] = await Promise.all([
    op('levels', 'set', 'gold', '750', '--json'),
    op('levels', 'set', 'silver', 'lots'),
    op('levels', 'set', 'silver'),
  ]);
  t.strictSame(JSON.parse(again.stdout), { name: 'gold', monthly_quota: 750 }, 'set changes a level');
  refused(t, bad, /^webperf levels: QUOTA must be a whole number of credits \(0 or more\), got "lots"\n$/, 'quota not a number');
  refused(t, missing, /levels set takes NAME and QUOTA/, 'quota missing');
  t.strictSame(await db.selectFrom('premium_levels').selectAll().execute(), [{ name: 'gold', monthly_quota: 750 }], 'nothing else written');

  const [kommuner, regioner] = [await webperf('categories', 'add', 'Kommuner'), await op('categories', 'add', 'Regioner', '--json')];
  t.match(kommuner, { code: 0, stdout: /^category \d+ added: Kommuner\n$/ });
  const cats = await db.selectFrom('categories').select(['id', 'title']).orderBy('id').execute();
  t.strictSame(cats.map((c) => c.title), ['Kommuner', 'Regioner']);
  t.strictSame(JSON.parse(regioner.stdout), { id: cats[1].id, title: 'Regioner' });
  const [dup, list] = await Promise.all([op('categories', 'add', 'Kommuner'), op('categories', 'list', '--json')]);
  refused(t, dup, /category "Kommuner" exists already/, 'duplicate category');
  t.strictSame(JSON.parse(list.stdout), [{ id: cats[0].id, title: 'Kommuner', sites: 0 }, { id: cats[1].id, title: 'Regioner', sites: 0 }]);
});

t.test('sites add, set and list', async (t) => {
  const add = await op('sites', 'add', '--title', 'Alfa kommun', '--url', 'https://alfa.example', '--level', 'gold', '--category', 'Kommuner', '--json');
  t.equal(add.code, 0, add.stderr);
  const site = JSON.parse(add.stdout);
  t.strictSame(site, { id: site.id, title: 'Alfa kommun', url: 'https://alfa.example/', level: 'gold', quota: null, followed: true, public_sector: false, categories: ['Kommuner'] });
  const row = await db.selectFrom('sites').select(['title', 'url', 'premium_level', 'monthly_quota', 'followed']).where('id', '=', site.id).executeTakeFirstOrThrow();
  t.strictSame(row, { title: 'Alfa kommun', url: 'https://alfa.example/', premium_level: 'gold', monthly_quota: null, followed: true });

  const before = await count('sites');
  const refusals = await Promise.all([
    op('sites', 'add', '--title', 'X', '--url', 'ftp://x.example/'),
    op('sites', 'add', '--title', 'X', '--url', 'https://x.example/', '--level', 'platinum'),
    op('sites', 'add', '--title', 'X', '--url', 'https://x.example/', '--category', 'Nope'),
    op('sites', 'add', '--url', 'https://x.example/'),
    op('sites', 'add', '--title', 'X', '--url', 'https://x.example/', '--quota', '1.5'),
    op('sites', 'add', '--title', 'X', '--url', 'https://x.example/', '--colour', 'red'),
  ]);
  refused(t, refusals[0], /--url must be an http or https address, got "ftp:\/\/x.example\/"/, 'ftp url');
  refused(t, refusals[1], /unknown premium level "platinum" \(see webperf levels list\)/, 'unknown level');
  refused(t, refusals[2], /unknown category: "Nope"/, 'unknown category');
  refused(t, refusals[3], /--title must not be empty/, 'title missing');
  refused(t, refusals[4], /--quota must be a whole number of credits/, 'quota not an integer');
  refused(t, refusals[5], /Unknown option '--colour'/, 'unknown option');
  t.equal(await count('sites'), before, 'no site written by a refused command');

  const beta = JSON.parse((await op('sites', 'add', '--title', 'Beta region', '--url', 'https://beta.example/', '--quota', '100', '--json')).stdout);
  const set = await op('sites', 'set', String(beta.id), '--level', 'gold', '--no-quota', '--followed', 'false', '--category', 'Regioner', '--category', 'Kommuner', '--json');
  t.strictSame(JSON.parse(set.stdout), { id: beta.id, title: 'Beta region', url: 'https://beta.example/', level: 'gold', quota: null, followed: false, public_sector: false, categories: ['Kommuner', 'Regioner'] });
  const set2 = await op('sites', 'set', String(beta.id), '--no-level', '--quota', '40', '--category', 'Regioner');
  t.equal(set2.code, 0, set2.stderr);
  t.match(set2.stdout, new RegExp(`^site ${beta.id} changed\\n`));
  t.strictSame(
    await db.selectFrom('sites').select(['premium_level', 'monthly_quota', 'followed']).where('id', '=', beta.id).executeTakeFirstOrThrow(),
    { premium_level: null, monthly_quota: 40, followed: false },
  );
  t.strictSame((await db.selectFrom('site_categories').select('category_id').where('site_id', '=', beta.id).execute()).length, 1, 'categories replaced');

  const setRefusals = await Promise.all([
    op('sites', 'set', '99999', '--quota', '1'),
    op('sites', 'set', String(beta.id), '--followed', 'maybe'),
    op('sites', 'set', String(beta.id), '--level', 'gold', '--no-level'),
    op('sites', 'set', String(beta.id)),
    op('sites', 'set', 'abc', '--quota', '1'),
  ]);
  refused(t, setRefusals[0], /no site 99999/, 'unknown site');
  refused(t, setRefusals[1], /--followed must be true or false, got "maybe"/, 'followed');
  refused(t, setRefusals[2], /--level and --no-level exclude each other/, 'level and no-level');
  refused(t, setRefusals[3], /nothing to change/, 'nothing to change');
  refused(t, setRefusals[4], /the site ID must be a positive integer, got "abc"/, 'site id');

  const list = await webperf('sites', 'list');
  t.equal(list.code, 0);
  t.equal(list.stdout, [
    'ID  TITLE        URL                    LEVEL  QUOTA  FOLLOWED  CATEGORIES',
    `${String(site.id).padEnd(2)}  Alfa kommun  https://alfa.example/  gold   -      yes       Kommuner`,
    `${String(beta.id).padEnd(2)}  Beta region  https://beta.example/  -      40     no        Regioner`,
    '',
  ].join('\n'));
});

t.test('keys: created once, usable, listed without secrets, revoked', async (t) => {
  const sites = await db.selectFrom('sites').select('id').orderBy('id').execute();
  const [A, B] = sites.map((s) => s.id);
  const config = loadConfig({ NODE_ENV: 'test' }, { publicUrl: 'http://webperf.test', databaseUrl: url, rateLimitPerMinute: 0 });
  const app = await buildApp({ db, config, registry: new PluginRegistry([]), version: 'test' });
  t.teardown(() => app.close());
  const stats = async (key: string) => (await app.inject({ method: 'GET', url: '/stats/', headers: { 'api-key': key } })).statusCode;

  const created = await op('keys', 'create', '--site', String(A), '--label', 'alfa portal');
  t.equal(created.code, 0, created.stderr);
  const m = /^key (\d+) created: (wpk[A-Za-z0-9]{12}) \(standard, site (\d+), label "alfa portal"\)\napi-key: (wpk[A-Za-z0-9]{55})\nThis key cannot be shown again: store it now\. Only its hash is kept\.\n$/.exec(created.stdout);
  t.ok(m, created.stdout);
  const [, id, prefix, site, key] = m!;
  t.equal(Number(site), A);
  t.ok(key.startsWith(prefix));
  t.strictSame(await resolveKey(db, key), { id: Number(id), kind: 'standard', label: 'alfa portal', siteIds: [A] }, 'the printed key resolves');
  t.equal(await stats(key), 200, 'and works against the API');
  const stored = await db.selectFrom('api_keys').selectAll().where('id', '=', Number(id)).executeTakeFirstOrThrow();
  t.strictSame(stored.hash, createHash('sha256').update(key).digest(), 'only the hash is stored');
  t.notOk(Object.values(stored).some((v) => typeof v === 'string' && v.includes(key.slice(15))), 'the secret part is stored nowhere');

  const agency = JSON.parse((await op('keys', 'create', '--agency', '--site', String(B), '--site', String(A), '--json')).stdout);
  t.strictSame(Object.keys(agency), ['id', 'prefix', 'kind', 'label', 'site_ids', 'key', 'note']);
  t.strictSame({ kind: agency.kind, site_ids: agency.site_ids, note: agency.note }, { kind: 'agency', site_ids: [A, B], note: 'The key cannot be shown again: store it now.' });
  t.strictSame((await resolveKey(db, agency.key))?.siteIds, [A, B]);
  const admin = await op('keys', 'create', '--admin', '--label', 'ops');
  t.match(admin.stdout, /^key \d+ created: wpk[A-Za-z0-9]{12} \(admin, every site, label "ops"\)\n/);
  const adminKey = /api-key: (\S+)/.exec(admin.stdout)![1];
  t.strictSame((await resolveKey(db, adminKey))?.siteIds, null, 'admin: every site');

  const before = await count('api_keys');
  const refusals = await Promise.all([
    op('keys', 'create'),
    op('keys', 'create', '--site', '99999'),
    op('keys', 'create', '--site', String(A), '--agency', '--admin'),
    op('keys', 'create', '--site', 'one'),
    op('keys', 'create', '--admin', '--site', String(A)),
  ]);
  refused(t, refusals[0], /a standard key needs at least one --site ID/, 'no site');
  refused(t, refusals[1], /no site 99999/, 'unknown site');
  refused(t, refusals[2], /--agency and --admin exclude each other/, 'two kinds');
  refused(t, refusals[3], /--site must be a positive integer, got "one"/, 'site not a number');
  refused(t, refusals[4], /an admin key reaches every site: give no --site/, 'admin with sites');
  t.equal(await count('api_keys'), before, 'no key written by a refused command');

  const [text, json] = await Promise.all([op('keys', 'list'), op('keys', 'list', '--json')]);
  const rows = await db.selectFrom('api_keys').select(['hash']).execute();
  for (const out of [text.stdout, json.stdout]) {
    for (const k of [key, agency.key, adminKey]) t.notOk(out.includes(k.slice(15)), 'no key secret in keys list');
    for (const r of rows) {
      t.notOk(out.includes(r.hash.toString('hex')), 'no hash (hex) in keys list');
      t.notOk(out.includes(r.hash.toString('base64')), 'no hash (base64) in keys list');
    }
  }
  const listed = JSON.parse(json.stdout);
  t.strictSame(listed.map((k: any) => Object.keys(k)), listed.map(() => ['id', 'prefix', 'kind', 'label', 'site_ids', 'created_at', 'revoked_at']));
  t.strictSame(listed.map((k: any) => [k.prefix, k.kind, k.label, k.site_ids, k.revoked_at]), [
    [prefix, 'standard', 'alfa portal', [A], null],
    [agency.prefix, 'agency', '', [A, B], null],
    [listed[2].prefix, 'admin', 'ops', null, null],
  ]);
  const lines = text.stdout.split('\n');
  t.equal(lines[0], 'ID  PREFIX           KIND      LABEL        SITES  CREATED              REVOKED');
  t.match(lines[1], new RegExp(`^${id} +${prefix}  standard  alfa portal  ${A} +\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d  -$`));

  const revoked = await webperf('keys', 'revoke', prefix);
  t.strictSame(revoked, { code: 0, stdout: `key ${prefix} revoked\n`, stderr: '' });
  t.equal(await resolveKey(db, key), null, 'a revoked key no longer resolves');
  t.equal(await stats(key), 401, 'and the API refuses it');
  const byId = await op('keys', 'revoke', String(agency.id), '--json');
  t.strictSame(JSON.parse(byId.stdout), { revoked: agency.id });
  t.equal(await stats(agency.key), 401);
  t.equal(await stats(adminKey), 200, 'other keys still work');
  const [twice, junk] = await Promise.all([op('keys', 'revoke', prefix), op('keys', 'revoke', 'hello')]);
  refused(t, twice, new RegExp(`no active key ${prefix}`), 'revoked twice');
  refused(t, junk, /"hello" is neither a key ID nor a key prefix/, 'not a prefix');
  const after = JSON.parse((await op('keys', 'list', '--json')).stdout);
  t.ok(after[0].revoked_at && after[1].revoked_at && after[2].revoked_at === null, 'revoked_at listed');
});

t.test('usage', async (t) => {
  const [help, none, unknown] = await Promise.all([op('keys', '--help'), op('sites'), webperf('levels', 'delete', 'gold')]);
  t.equal(help.code, 0);
  t.match(help.stdout, /^Usage:\n  webperf keys create --site ID/);
  t.equal(none.code, 2);
  t.match(none.stderr, /^Usage:\n  webperf sites list/);
  refused(t, unknown, /^webperf levels: unknown subcommand "delete"\nUsage:/, 'unknown subcommand');
});

t.test('users: a portal account with a one-time password link; refusals', async (t) => {
  const siteId = (await db.insertInto('sites').values({ title: 'Portalby', url: 'https://portalby.example/' }).returning('id').executeTakeFirstOrThrow()).id;
  const added = await op('users', 'add', '--email', 'Ulla@Example.org', '--site', String(siteId), '--json');
  t.equal(added.code, 0, added.stderr);
  const out = JSON.parse(added.stdout);
  t.match(out, { email: 'Ulla@Example.org', level: 'standard', site_ids: [siteId], link_valid_hours: 72 });
  t.match(out.password_link, /^http:\/\/127\.0\.0\.1:3000\/portal\/set-password\?token=[A-Za-z0-9_-]{43}$/);
  const token = new URL(out.password_link).searchParams.get('token')!;
  const stored = await db.selectFrom('password_tokens').select(['token_hash', 'user_id']).execute();
  t.strictSame(stored, [{ token_hash: createHash('sha256').update(token).digest(), user_id: out.id }], 'only the hash of the token is stored');
  const [dup, neither, both, noSite, badEmail, list] = await Promise.all([
    op('users', 'add', '--email', 'ulla@example.ORG', '--agency'),
    op('users', 'add', '--email', 'x@example.org'),
    op('users', 'add', '--email', 'x@example.org', '--agency', '--site', String(siteId)),
    op('users', 'add', '--email', 'x@example.org', '--site', '999999'),
    op('users', 'add', '--email', 'not an address', '--agency'),
    op('users', 'list', '--json'),
  ]);
  refused(t, dup, /an account with the e-mail address ulla@example\.ORG exists already/, 'the same e-mail in another case');
  refused(t, neither, /give --site ID \(repeatable\) or --agency/, 'no reach');
  refused(t, both, /--agency and --site exclude each other/, 'both');
  refused(t, noSite, /no site 999999/, 'unknown site');
  refused(t, badEmail, /--email is not an e-mail address/, 'bad e-mail');
  t.strictSame(JSON.parse(list.stdout).map((u: Record<string, unknown>) => Object.keys(u).sort()), [['created_at', 'email', 'id', 'level', 'password_set_at', 'site_ids']], 'listed without secrets');
});
