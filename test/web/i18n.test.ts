/**
 * The pages' strings: every key exists in Swedish and English, every key a template names
 * literally exists, and a missing key fails loudly instead of showing a blank.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import t from 'tap';
import { MESSAGES, MissingMessageError, PAGE_LANGS, translator } from '../../api/web/i18n/index.js';
import { VIEWS_DIR } from '../../api/web/index.js';
import { SCORE_TYPES } from '../../api/web/chart.js';
import { COLUMNS } from '../../api/web/dashboard/index.js';

async function templates(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await templates(file)));
    else if (entry.name.endsWith('.eta')) out.push(file);
  }
  return out;
}

t.test('Swedish and English have the same keys, none of them empty', async (t) => {
  t.same(Object.keys(MESSAGES.sv).sort(), Object.keys(MESSAGES.en).sort());
  for (const lang of PAGE_LANGS) for (const [key, text] of Object.entries(MESSAGES[lang])) t.ok(text.trim().length > 0, `${lang} ${key}`);
});

t.test('every literal t(…) key in the templates exists', async (t) => {
  const files = await templates(VIEWS_DIR);
  t.ok(files.length >= 5, 'the templates were found');
  let keys = 0;
  for (const file of files) {
    const text = await readFile(file, 'utf8');
    for (const m of text.matchAll(/\bt\(\s*'([^']+)'\s*[,)]/g)) {
      keys += 1;
      for (const lang of PAGE_LANGS) t.ok(m[1] in MESSAGES[lang], `${path.relative(VIEWS_DIR, file)}: ${lang} has "${m[1]}"`);
    }
  }
  t.ok(keys > 50, `${keys} keys checked`);
});

t.test('the keys templates build from data exist', async (t) => {
  const families = [
    ...SCORE_TYPES.map((s) => `score.${s}`),
    ...['Municipality', 'Region'].map((c) => `category.${c}`),
    ...COLUMNS.map((c) => c.key),
    ...['overall', 'a11y', 'pagespeed', 'infosec', 'webstandard'].map((k) => `dashboard.col.${k}`),
  ];
  for (const key of families) for (const lang of PAGE_LANGS) t.ok(key in MESSAGES[lang], `${lang} has "${key}"`);
});

t.test('a missing key or parameter throws; parameters are filled in', async (t) => {
  const sv = translator('sv');
  t.throws(() => sv('no.such.key'), MissingMessageError);
  t.throws(() => sv('layout.signedInAs'), /No sv text for "layout.signedInAs"|layout\.signedInAs/, 'without its parameter the text is not shown half-filled');
  t.equal(sv('layout.signedInAs', { email: 'a@b.se' }), 'Inloggad som a@b.se');
  t.equal(translator('en')('dashboard.results', { n: 310 }), '310 websites');
});
