/**
 * `webperf sites import FILE.csv` against a real PostgreSQL: both separators, a byte-order mark,
 * idempotent re-import, changes, the dry run, every kind of bad row with its line, --skip-bad, and
 * files refused as a whole. Run as the operator runs it (the real CLI in its own process) for an
 * import, a refused import (exit code 2) and one with bad rows skipped (exit code 3); the other
 * calls run the same command in this process (test/helpers/operator.ts), in the same folder.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import t, { type Test } from 'tap';
import { PROJECT_ROOT } from '../../core/config.js';
import { listCatalogSites } from '../../core/store/catalog-admin.js';
import { createTestDb } from '../helpers/db.js';
import { operator } from '../helpers/operator.js';

const run = promisify(execFile);
const BIN = path.join(PROJECT_ROOT, 'bin', 'webperf.js');

// One database for the whole file: the imports build on each other like an operator's session.
const { db, url } = await createTestDb(t);
const dir = await mkdtemp(path.join(os.tmpdir(), 'webperf-site-import-'));
// The files are named relative to the test's folder, as the operator names them: the commands run
// in process (`op`) read them from this process's working folder, the spawned ones run there.
const cwd = process.cwd();
process.chdir(dir);
t.teardown(() => {
  process.chdir(cwd);
  return rm(dir, { recursive: true, force: true });
});
const ENV = { DATABASE_URL: url, WEBPERF_DEMO: '0', WEBPERF_DATA_DIR: path.join(dir, 'data') };

/** The real CLI in its own process. */
async function webperf(...args: string[]) {
  try {
    const { stdout, stderr } = await run(process.execPath, [BIN, ...args], { env: { ...process.env, ...ENV }, cwd: dir, timeout: 120_000 });
    return { code: 0, stdout, stderr };
  } catch (err: any) {
    return { code: err.code as number, stdout: err.stdout as string, stderr: err.stderr as string };
  }
}

/** The same command in this process: what the spawned CLI prints, and its exit code. */
const op = (...args: string[]) => operator(ENV, ...args);

/** Writes a file into the test's folder; returns its name there (the CLI runs in that folder). */
async function csv(name: string, content: string | Buffer): Promise<string> {
  await writeFile(path.join(dir, name), content);
  return name;
}

/** Every site with its categories, by id, as the operator's catalogue lists it (public_sector aside). */
async function catalogue() {
  return (await listCatalogSites(db)).map(({ public_sector: _, ...site }) => site);
}

const bySite = async () => Object.fromEntries((await catalogue()).map(({ url, id, ...rest }) => [url, rest]));

/** A refusal: exit code 2, nothing on stdout, and nothing written. */
async function refusedWhole(t: Test, res: { code: number; stdout: string; stderr: string }, stderr: string, before: unknown) {
  t.equal(res.code, 2, 'exit code 2');
  t.equal(res.stdout, '', 'nothing on stdout');
  t.equal(res.stderr, stderr, 'the reason');
  t.strictSame(await catalogue(), before, 'nothing written');
}

await db.insertInto('premium_levels').values([{ name: 'gold', monthly_quota: 500 }, { name: 'silver', monthly_quota: 100 }]).execute();
await db.insertInto('categories').values([{ title: 'Kommuner' }, { title: 'Regioner' }]).execute();

t.test('a semicolon file with a byte-order mark adds its sites; importing it again changes nothing', async (t) => {
  const file = await csv(
    'first.csv',
    '\uFEFFtitle;url;category;level;quota;followed\r\n' +
      'Alfa kommun;https://Alfa.example;Kommuner;gold;;yes\r\n' +
      '"Beta; region";https://beta.example/start/#top;Kommuner|Regioner;;100;nej\r\n' +
      '\r\n' +
      'Gamma;http://gamma.example:80/?utm_source=news;;;;\r\n',
  );
  const first = await webperf('sites', 'import', file);
  t.equal(first.code, 0, first.stderr);
  t.equal(first.stderr, '');
  const ids = (await catalogue()).map((s) => s.id);
  t.equal(ids.length, 3);
  t.equal(
    first.stdout,
    [
      `line 2: added site ${ids[0]} "Alfa kommun" https://alfa.example/ (level gold, categories Kommuner)`,
      `line 3: added site ${ids[1]} "Beta; region" https://beta.example/start/ (quota 100, not followed, categories Kommuner|Regioner)`,
      `line 5: added site ${ids[2]} "Gamma" http://gamma.example/`,
      'first.csv: 3 rows: 3 added, 0 changed, 0 unchanged, 0 bad',
      '',
    ].join('\n'),
  );
  const expected = {
    'https://alfa.example/': { title: 'Alfa kommun', premium_level: 'gold', monthly_quota: null, followed: true, categories: ['Kommuner'] },
    'https://beta.example/start/': { title: 'Beta; region', premium_level: null, monthly_quota: 100, followed: false, categories: ['Kommuner', 'Regioner'] },
    'http://gamma.example/': { title: 'Gamma', premium_level: null, monthly_quota: null, followed: true, categories: [] },
  };
  t.strictSame(await bySite(), expected);
  const scores = await db.selectFrom('category_scores').select('category_id').execute();
  t.equal(scores.length, 2, 'the categories\' averages are kept');

  const again = await op('sites', 'import', file);
  t.strictSame(again, { code: 0, stdout: 'first.csv: 3 rows: 0 added, 0 changed, 3 unchanged, 0 bad\n', stderr: '' }, 'a second import changes nothing');
  t.strictSame(await bySite(), expected);
  t.strictSame((await catalogue()).map((s) => s.id), ids, 'and adds nothing');
});

t.test('a comma file without a byte-order mark: changes applied, columns left out left alone', async (t) => {
  const before = await catalogue();
  const [alfa, beta, gamma] = before;
  const file = await csv(
    'second.csv',
    'URL,Title,Level,notes\n' +
      'https://alfa.example/,Alfa kommun,silver,moved up\n' +
      'https://beta.example/start,"Beta region, new name",,\n' +
      '"https://delta.example/","Delta ""the fourth""",gold,\n',
  );
  const res = await op('sites', 'import', file, '--json');
  t.equal(res.code, 0, res.stderr);
  t.equal(res.stderr, 'second.csv: ignored column "notes" (known: title, url, category, level, quota, followed)\n');
  const delta = (await catalogue()).find((s) => s.url === 'https://delta.example/')!;
  t.strictSame(JSON.parse(res.stdout), {
    file: 'second.csv',
    dry_run: false,
    written: true,
    separator: ',',
    columns: ['url', 'title', 'level'],
    rows: 3,
    added: [{ line: 4, id: delta.id, title: 'Delta "the fourth"', url: 'https://delta.example/', level: 'gold', quota: null, followed: true, categories: [] }],
    changed: [
      { line: 2, id: alfa.id, title: 'Alfa kommun', url: 'https://alfa.example/', changes: { level: { from: 'gold', to: 'silver' } } },
      {
        line: 3,
        id: beta.id,
        title: 'Beta; region',
        url: 'https://beta.example/start/',
        changes: { title: { from: 'Beta; region', to: 'Beta region, new name' } },
      },
    ],
    unchanged: 0,
    bad: [],
    ignored_columns: ['notes'],
  });
  t.strictSame(await catalogue(), [
    { ...alfa, premium_level: 'silver' },
    { ...beta, title: 'Beta region, new name' },
    gamma,
    { id: delta.id, title: 'Delta "the fourth"', url: 'https://delta.example/', premium_level: 'gold', monthly_quota: null, followed: true, categories: [] },
  ]);

  // Emptied cells: no categories, no level, no own quota, followed again.
  const cleared = await csv('cleared.csv', 'title;url;category;level;quota;followed\nBeta region, new name;https://beta.example/start/;;;;\n');
  const res2 = await op('sites', 'import', cleared);
  t.equal(res2.code, 0, res2.stderr);
  t.equal(
    res2.stdout,
    `line 2: changed site ${beta.id} https://beta.example/start/: quota 100 -> -, followed no -> yes, categories Kommuner|Regioner -> -\n` +
      'cleared.csv: 1 row: 0 added, 1 changed, 0 unchanged, 0 bad\n',
  );
  t.strictSame((await catalogue()).find((s) => s.id === beta.id), { ...beta, title: 'Beta region, new name', monthly_quota: null, followed: true, categories: [] });
});

t.test('--dry-run prints what would change and writes nothing', async (t) => {
  const before = await catalogue();
  const sitesRow = before.find((s) => s.url === 'http://gamma.example/')!;
  const file = await csv('dry.csv', 'title;url;followed;category\nGamma;http://gamma.example/;no;Regioner\nEpsilon;https://epsilon.example/;;\nAlfa kommun;https://alfa.example/;yes;Kommuner\n');
  const scoresBefore = await db.selectFrom('category_scores').selectAll().execute();
  const text = await op('sites', 'import', file, '--dry-run');
  t.strictSame(text, {
    code: 0,
    stdout: [
      `line 2: would change site ${sitesRow.id} http://gamma.example/: followed yes -> no, categories - -> Regioner`,
      'line 3: would add "Epsilon" https://epsilon.example/',
      'dry.csv: 3 rows: 1 added, 1 changed, 1 unchanged, 0 bad (dry run: nothing written)',
      '',
    ].join('\n'),
    stderr: '',
  });
  const json = await op('sites', 'import', file, '--dry-run', '--json');
  t.equal(json.code, 0);
  const report = JSON.parse(json.stdout);
  t.match(report, { dry_run: true, written: false, unchanged: 1, bad: [] });
  t.strictSame(report.added, [{ line: 3, id: null, title: 'Epsilon', url: 'https://epsilon.example/', level: null, quota: null, followed: true, categories: [] }]);
  t.strictSame(report.changed.map((c: any) => [c.id, c.changes]), [[sitesRow.id, { followed: { from: true, to: false }, categories: { from: [], to: ['Regioner'] } }]]);
  t.strictSame(await catalogue(), before, 'nothing written');
  t.strictSame(await db.selectFrom('category_scores').selectAll().execute(), scoresBefore, 'no averages recomputed');
});

t.test('every bad row is reported with its line and reason; nothing written unless --skip-bad', async (t) => {
  // Two sites already share an address: a row with it cannot tell which to change.
  await db.insertInto('sites').values([{ title: 'Twin 1', url: 'https://twin.example' }, { title: 'Twin 2', url: 'https://twin.example/' }]).execute();
  const twins = (await catalogue()).filter((s) => s.url.startsWith('https://twin.example')).map((s) => s.id);
  const before = await catalogue();
  const file = await csv(
    'bad.csv',
    [
      'title;url;category;level;quota;followed', // 1
      'Zeta;https://zeta.example/;Regioner;silver;5;1', // 2: good
      ';https://no-title.example/', // 3
      'No url;', // 4
      'Ftp;ftp://ftp.example/', // 5
      'Relative;www.relative.example', // 6
      'Level;https://level.example/;;platinum', // 7
      'Category;https://category.example/;Kommuner|Nope|Other', // 8
      'Quota;https://quota.example/;;;1.5', // 9
      'Followed;https://followed.example/;;;;maybe', // 10
      '"Eta,', // 11: a title over two lines
      'the second line";https://eta.example/', // 12
      'Zeta again;https://ZETA.example', // 13: duplicate of line 2
      '', // 14
      'Extra;https://extra.example/;;;;;what', // 15
      'Secret;https://user:pw@secret.example/', // 16
      'Twin;https://twin.example/', // 17
      ';;;;;', // 18: an empty row, skipped
      ';ftp://both.example/;;;-1', // 19: several reasons
      '',
    ].join('\n'),
  );
  const badLines = [
    'bad.csv, line 3: title is missing',
    'bad.csv, line 4: url is missing',
    'bad.csv, line 5: bad url "ftp://ftp.example/": not an http or https address',
    'bad.csv, line 6: bad url "www.relative.example": not an absolute address (it starts with https:// or http://)',
    'bad.csv, line 7: unknown level "platinum" (see webperf levels list)',
    'bad.csv, line 8: unknown categories "Nope", "Other" (see webperf categories list)',
    'bad.csv, line 9: bad quota "1.5": a whole number of credits (0 or more)',
    'bad.csv, line 10: bad followed "maybe": yes or no (true/false, 1/0, ja/nej)',
    'bad.csv, line 13: duplicate: the same address as line 2',
    'bad.csv, line 15: 1 field more than the header has (a ";" inside a field must be quoted)',
    'bad.csv, line 16: bad url "https://user:pw@secret.example/": it carries a user name or password',
    `bad.csv, line 17: the address matches 2 sites (ids ${twins.join(', ')}): change them one by one with webperf sites set`,
    'bad.csv, line 19: title is missing; bad url "ftp://both.example/": not an http or https address; bad quota "-1": a whole number of credits (0 or more)',
  ];
  // None of these writes: run side by side.
  const [refused, dry, json] = await Promise.all([webperf('sites', 'import', file), op('sites', 'import', file, '--dry-run'), op('sites', 'import', file, '--json')]);
  await refusedWhole(
    t,
    refused,
    [...badLines, 'webperf sites: bad.csv: 13 bad rows, nothing written; fix them, or give --skip-bad to import the other rows', ''].join('\n'),
    before,
  );

  t.equal(dry.code, 2, 'a dry run exits as the import would');
  t.equal(dry.stdout, 'line 2: would add "Zeta" https://zeta.example/ (level silver, quota 5, categories Regioner)\nline 11: would add "Eta,\nthe second line" https://eta.example/\nbad.csv: 15 rows: 2 added, 0 changed, 0 unchanged, 13 bad (dry run: nothing written)\n');
  t.equal(dry.stderr, [...badLines, 'webperf sites: bad.csv: 13 bad rows, the import would write nothing; fix them, or give --skip-bad to import the other rows', ''].join('\n'));
  t.strictSame(await catalogue(), before, 'nothing written by the dry run');

  t.equal(json.code, 2);
  const report = JSON.parse(json.stdout);
  t.match(report, { written: false, rows: 15, unchanged: 0 });
  t.strictSame(report.bad.map((b: any) => b.line), [3, 4, 5, 6, 7, 8, 9, 10, 13, 15, 16, 17, 19]);
  t.strictSame(report.bad.find((b: any) => b.line === 19).reasons.length, 3);
  t.strictSame(await catalogue(), before, 'nothing written with --json either');

  const skipped = await webperf('sites', 'import', file, '--skip-bad');
  t.equal(skipped.code, 3, 'exit code 3: bad rows skipped');
  t.equal(skipped.stderr, badLines.join('\n') + '\n');
  const after = await catalogue();
  const added = after.filter((s) => !before.some((b) => b.id === s.id));
  t.strictSame(
    added.map(({ id, ...s }) => s),
    [
      { title: 'Zeta', url: 'https://zeta.example/', premium_level: 'silver', monthly_quota: 5, followed: true, categories: ['Regioner'] },
      { title: 'Eta,\nthe second line', url: 'https://eta.example/', premium_level: null, monthly_quota: null, followed: true, categories: [] },
    ],
    'the good rows written',
  );
  t.equal(
    skipped.stdout,
    `line 2: added site ${added[0].id} "Zeta" https://zeta.example/ (level silver, quota 5, categories Regioner)\n` +
      `line 11: added site ${added[1].id} "Eta,\nthe second line" https://eta.example/\n` +
      'bad.csv: 15 rows: 2 added, 0 changed, 0 unchanged, 13 bad (skipped)\n',
  );
  t.strictSame(after.slice(0, before.length), before, 'the other sites untouched');
});

t.test('files refused as a whole: exit code 2, nothing written', async (t) => {
  const before = await catalogue();
  const latin1 = Buffer.concat([Buffer.from('title;url\nBeta;https://beta.example/start/\n'), Buffer.from([0xc5]), Buffer.from('re;https://are.example/\n')]);
  const cases: [string, string | Buffer, string][] = [
    ['latin1.csv', latin1, 'line 3: the file is not UTF-8 text (save it as "CSV UTF-8")'],
    ['nourl.csv', 'title;address\nX;https://x.example/\n', 'line 1: the header row has no url column (columns: title, url, category, level, quota, followed; the first row of the file names them)'],
    [
      'quote.csv',
      'title;url\nX;https://x.example/\n"Open;https://open.example/\n',
      'line 3: a quote opens a field and never closes; a field holding ";", a quote or a line break is quoted as "...", a quote inside doubled ("")',
    ],
    [
      'after.csv',
      'title,url\nA,https://a.example/\n\n"B"x,https://b.example/\nC,https://c.example/\n',
      'line 4: a quoted field goes on after its closing quote; a field holding ",", a quote or a line break is quoted as "...", a quote inside doubled ("")',
    ],
    ['twice.csv', 'title;url;Title\n', 'line 1: the header names the column title twice'],
    ['one.csv', 'title\n', 'the header row names one column ("title"); it needs at least title and url, separated by ";" or ","'],
    ['empty.csv', '\uFEFF\n\n', 'the file is empty: it needs a header row (title and url) and a row per site'],
  ];
  for (const [name, content] of cases) await csv(name, content);
  const [missing, usage, ...results] = await Promise.all([
    op('sites', 'import', 'missing.csv'),
    op('sites', 'import'),
    ...cases.map(([name]) => op('sites', 'import', name)),
  ]);
  for (const [i, [name, , reason]] of cases.entries()) {
    await t.test(name, (t) => refusedWhole(t, results[i], `webperf sites: ${name}: ${reason}\n`, before));
  }
  await refusedWhole(t, missing, 'webperf sites: cannot read missing.csv: no such file\n', before);
  t.equal(usage.code, 2);
  t.match(usage.stderr, /^webperf sites: sites import takes one FILE\nUsage:/);
});
