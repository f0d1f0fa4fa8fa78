/**
 * GET and POST /tools/lix/ through the real API: hand-counted LIX values, the one response shape
 * (the machine description's `lix` and the usage text's `message`), the body forms accepted, the
 * empty and oversized refusals, and that LIX is not charged.
 */
import t from 'tap';
import { sql } from '../../core/db/kysely.js';
import type { FastifyInstance } from 'fastify';
import type { Db } from '../../core/db/database.js';
import { createKey } from '../../core/store/keys.js';
import { createSite } from '../../core/store/sites.js';
import { buildTestApi } from '../helpers/api.js';

interface World {
  app: FastifyInstance;
  db: Db;
  siteId: number;
  otherSiteId: number;
  key: string;
}

async function arrange(tt: { teardown(fn: () => unknown): void }, lixMaxBytes?: number): Promise<World> {
  const { app, db } = await buildTestApi(tt, { rateLimitPerMinute: 100_000, ...(lixMaxBytes ? { lixMaxBytes } : {}) });
  const siteId = await createSite(db, { title: 'Exempelby kommun', url: 'https://www.exempel.se/', monthlyQuota: 100 });
  const otherSiteId = await createSite(db, { title: 'Annan', url: 'https://www.annan.se/', monthlyQuota: 100 });
  const key = (await createKey(db, { kind: 'standard', siteIds: [siteId] })).key;
  return { app, db, siteId, otherSiteId, key };
}

function form(fields: [name: string, value: string, filename?: string][]) {
  const boundary = '----webperf-lix-boundary';
  const parts = fields.map(([name, value, filename]) =>
    `--${boundary}\r\nContent-Disposition: form-data; name="${name}"${filename ? `; filename="${filename}"\r\nContent-Type: text/plain` : ''}\r\n\r\n${value}\r\n`,
  );
  return { payload: Buffer.from(parts.join('') + `--${boundary}--\r\n`), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

function auth(w: World, extra: Record<string, string> = {}) {
  return { 'api-key': w.key, 'site-id': String(w.siteId), ...extra };
}

function postForm(w: World, content: string, query = '', extra: Record<string, string> = {}) {
  const body = form([['content', content]]);
  return w.app.inject({ method: 'POST', url: `/tools/lix/${query}`, headers: auth(w, { ...body.headers, ...extra }), payload: body.payload });
}

function get(w: World, content: string, query = '', extra: Record<string, string> = {}) {
  return w.app.inject({ method: 'GET', url: `/tools/lix/?content=${encodeURIComponent(content)}${query}`, headers: auth(w, extra) });
}

const SV = {
  veryEasy: 'Mycket lättläst, barnböcker',
  easy: 'Lättläst, skönlitteratur, populärtidningar',
  medium: 'Medelsvår, normal tidningstext',
  difficult: 'Svår, normalt värde för officiella texter',
  veryDifficult: 'Mycket svår, byråkratsvenska',
};
const EN = {
  veryEasy: "Very easy, children's books",
  easy: 'Easy: fiction, popular magazines',
  medium: 'Medium: normal newspaper text',
  difficult: 'Difficult: typical of official texts',
  veryDifficult: 'Very difficult: bureaucratic Swedish',
};

/** Counted by hand. LIX = words / sentences + 100 × long words (more than 6 letters) / words. */
const TEXTS: { text: string; lix: number; words: number; sentences: number; long: number; band: keyof typeof SV; bandId: string; note: string }[] = [
  // Solen, skiner, Barnen, leker, i, parken, Vi, badar: 8 words, 3 sentences, none over 6 letters: 8/3 = 2.67 → 2.7.
  { text: 'Solen skiner. Barnen leker i parken. Vi badar.', lix: 2.7, words: 8, sentences: 3, long: 0, band: 'veryEasy', bandId: 'very-easy', note: '2.7: message carries 2 (truncated, not rounded)' },
  // Kommunen(8), planerar(8), ett, nytt, bibliotek(9) | Det, öppnar(6), nästa, år: 9/2 + 100 × 3/9 = 4.5 + 33.33 = 37.83 → 37.8.
  { text: 'Kommunen planerar ett nytt bibliotek. Det öppnar nästa år.', lix: 37.8, words: 9, sentences: 2, long: 3, band: 'easy', bandId: 'easy', note: '37.8' },
  // Vi, planerar(8), ett, nytt, bibliotek(9): 5/1 + 100 × 2/5 = 5 + 40 = 45.
  { text: 'Vi planerar ett nytt bibliotek.', lix: 45, words: 5, sentences: 1, long: 2, band: 'medium', bandId: 'medium', note: '45' },
  // Kommunen(8) har beslutat(8) att bygga en ny förskola(8) i centrum(7): 10/1 + 100 × 4/10 = 50.
  { text: 'Kommunen har beslutat att bygga en ny förskola i centrum.', lix: 50, words: 10, sentences: 1, long: 4, band: 'difficult', bandId: 'difficult', note: '50: the lower edge belongs to "difficult"' },
  // 8 words, 2 sentences, all long but "om": 4 + 87.5 = 91.5.
  { text: 'Kommunfullmäktige beslutade om budgeten. Förvaltningen verkställer beslutet omedelbart!', lix: 91.5, words: 8, sentences: 2, long: 7, band: 'veryDifficult', bandId: 'very-difficult', note: '91.5' },
];

t.test('POST multipart/form-data: hand-counted LIX, one shape for both spec descriptions', async (t) => {
  const w = await arrange(t);
  for (const c of TEXTS) {
    const res = await postForm(w, c.text);
    t.equal(res.statusCode, 200, `${c.note}: ${res.body}`);
    t.strictSame(res.json(), {
      api_version: '0.1',
      lix: c.lix,
      message: [Math.trunc(c.lix), SV[c.band]],
      band: c.bandId,
      classification: { sv: SV[c.band], en: EN[c.band] },
      lang: 'sv',
      words: c.words,
      sentences: c.sentences,
      long_words: c.long,
      short_text: true,
    }, c.note);
  }
});

t.test('GET with the content query parameter answers the same, in the language asked for', async (t) => {
  const w = await arrange(t);
  const [c] = TEXTS;
  const sv = await get(w, c.text);
  t.equal(sv.statusCode, 200);
  t.strictSame(sv.json().message, [2, SV.veryEasy]);
  t.strictSame(sv.json(), (await postForm(w, c.text)).json(), 'GET and POST answer the same body');
  const en = await get(w, TEXTS[3].text, '&lang=en');
  t.strictSame(en.json().message, [50, EN.difficult]);
  t.equal(en.json().lang, 'en');
  const fi = await postForm(w, TEXTS[3].text, '?lang=fi');
  t.strictSame(fi.json().message, [50, EN.difficult], 'fi has no report language: English');
  const accept = await get(w, TEXTS[2].text, '', { 'accept-language': 'en-GB,en;q=0.8' });
  t.strictSame(accept.json().message, [45, EN.medium], 'Accept-Language');
  const bad = await get(w, TEXTS[2].text, '&lang=de');
  t.strictSame(bad.json(), { statusCode: 400, error: 'UNSUPPORTED_LANG', message: 'Unsupported lang "de": use one of sv, en, da, no, fi, is' });

  // 20 sentences of 10 short words: 200 words, no longer short. 200/20 + 0 = 10.
  const long = 'Vi läser en bok i skolan varje dag och natt. '.repeat(20);
  const res = await get(w, long);
  t.hasStrict(res.json(), { lix: 10, message: [10, SV.veryEasy], words: 200, sentences: 20, long_words: 0, short_text: false });
  const v = await w.app.inject({ method: 'GET', url: `/0.1/tools/lix/?content=${encodeURIComponent(TEXTS[1].text)}`, headers: auth(w) });
  t.strictSame(v.json(), (await postForm(w, TEXTS[1].text)).json(), 'the /0.1 copy answers the same');
});

t.test('POST urlencoded and JSON bodies are accepted too', async (t) => {
  const w = await arrange(t);
  const c = TEXTS[1];
  const expected = (await postForm(w, c.text)).json();
  const enc = await w.app.inject({
    method: 'POST', url: '/tools/lix/', headers: auth(w, { 'content-type': 'application/x-www-form-urlencoded' }),
    payload: 'content=' + encodeURIComponent(c.text),
  });
  t.strictSame(enc.json(), expected);
  const json = await w.app.inject({ method: 'POST', url: '/tools/lix/', headers: auth(w), payload: { content: c.text } });
  t.strictSame(json.json(), expected);
  const text = await w.app.inject({ method: 'POST', url: '/tools/lix/', headers: auth(w, { 'content-type': 'text/plain' }), payload: c.text });
  t.strictSame(text.json(), {
    statusCode: 415, error: 'UNSUPPORTED_MEDIA_TYPE', message: 'Send the body as multipart/form-data, application/x-www-form-urlencoded or application/json',
  }, 'text/plain is not a supported body');
});

t.test('empty, wordless and file content are 400', async (t) => {
  const w = await arrange(t);
  const missing = { statusCode: 400, error: 'CONTENT_MISSING', message: 'The content field is required' };
  t.strictSame((await postForm(w, '')).json(), missing, 'empty multipart field');
  t.strictSame((await postForm(w, '  \n\t ')).json(), missing, 'blank');
  t.strictSame((await get(w, '')).json(), missing, 'empty query parameter');
  t.strictSame((await w.app.inject({ method: 'GET', url: '/tools/lix/', headers: auth(w) })).json(), missing, 'no query parameter');
  const other = form([['text', 'Solen skiner.']]);
  t.strictSame((await w.app.inject({ method: 'POST', url: '/tools/lix/', headers: auth(w, other.headers), payload: other.payload })).json(),
    { statusCode: 400, error: 'CONTENT_MISSING', message: 'The content field is required, once, as a text field' }, 'no content field');
  t.strictSame((await w.app.inject({ method: 'POST', url: '/tools/lix/', headers: auth(w) })).json(),
    { statusCode: 400, error: 'CONTENT_MISSING', message: 'The content field is required, once, as a text field' }, 'no body');
  t.strictSame((await postForm(w, '1952 – 2025. 10:30!')).json(),
    { statusCode: 400, error: 'CONTENT_NO_WORDS', message: 'The text holds no words, so it has no LIX' }, 'numbers are no words');
  const file = form([['content', 'Solen skiner.', 'text.txt']]);
  t.strictSame((await w.app.inject({ method: 'POST', url: '/tools/lix/', headers: auth(w, file.headers), payload: file.payload })).json(),
    { statusCode: 400, error: 'FILE_NOT_ACCEPTED', message: 'The form part "content" is a file; send it as a plain text field' });
});

const TOO_LARGE = { statusCode: 413, error: 'TEXT_TOO_LARGE', message: 'The text is larger than the limit of 100000 bytes (UTF-8)' };

t.test('the default limit: 100,000 bytes of text are accepted, one byte more is 413', async (t) => {
  const w = await arrange(t);
  t.equal(w.app.deps.config.lixMaxBytes, 100_000);
  const exact = 'ord '.repeat(25_000); // 100,000 bytes: 25,000 words in one sentence
  const ok = await postForm(w, exact);
  t.equal(ok.statusCode, 200);
  t.hasStrict(ok.json(), { lix: 25000, words: 25000, sentences: 1 });
  const over = await postForm(w, exact + 'x');
  t.equal(over.statusCode, 413);
  t.strictSame(over.json(), TOO_LARGE);
  // Bytes, not characters: 50,001 × "ö" is 100,002 bytes.
  const wide = await postForm(w, 'ö'.repeat(50_001));
  t.strictSame(wide.json(), TOO_LARGE);
  const json = await w.app.inject({ method: 'POST', url: '/tools/lix/', headers: auth(w), payload: { content: exact + 'x' } });
  t.strictSame(json.json(), TOO_LARGE);
  t.strictSame((await get(w, exact + 'x')).json(), TOO_LARGE, 'GET is bounded the same way');
});

t.test('oversized requests are refused before the body is read', async (t) => {
  const w = await arrange(t, 1000);
  const tooLarge = { statusCode: 413, error: 'TEXT_TOO_LARGE', message: 'The text is larger than the limit of 1000 bytes (UTF-8)' };
  // A multipart field is cut one byte past the limit (busboy fieldSize), never buffered whole.
  const cut = await postForm(w, 'ord '.repeat(1250));
  t.strictSame(cut.json(), tooLarge, 'a 5,000-byte field');
  // A declared length over the cap (text limit + 16 KiB for multipart) is refused from the header alone.
  const huge = form([['content', 'a '.repeat(20_000)]]);
  t.ok(huge.payload.length > 1000 + 16 * 1024);
  const early = await w.app.inject({ method: 'POST', url: '/tools/lix/', headers: auth(w, huge.headers), payload: huge.payload });
  t.strictSame(early.json(), tooLarge, 'Content-Length over the multipart cap');
  // JSON beyond the body limit (6 × text limit + 16 KiB, room for escapes).
  const bigJson = await w.app.inject({ method: 'POST', url: '/tools/lix/', headers: auth(w), payload: { content: 'a '.repeat(12_000) } });
  t.strictSame(bigJson.json(), tooLarge, 'JSON over the body limit');
  // A chunked body (no Content-Length) over the body limit is cut by the body limit.
  const { Readable } = await import('node:stream');
  const chunked = await w.app.inject({
    method: 'POST', url: '/tools/lix/', headers: auth(w, { 'content-type': 'application/json' }),
    payload: Readable.from([JSON.stringify({ content: 'a '.repeat(12_000) })]),
  });
  t.strictSame(chunked.json(), tooLarge, 'streamed JSON over the body limit');
  // Within the body limit but over the text limit: the text is measured.
  const midJson = await w.app.inject({ method: 'POST', url: '/tools/lix/', headers: auth(w), payload: { content: 'a '.repeat(600) } });
  t.strictSame(midJson.json(), tooLarge, '1,200 bytes of text in JSON');
  const fits = await w.app.inject({ method: 'POST', url: '/tools/lix/', headers: auth(w), payload: { content: 'a '.repeat(500) } });
  t.equal(fits.statusCode, 200, '1,000 bytes fit');
});

t.test('access is checked, and LIX is not charged', async (t) => {
  const w = await arrange(t);
  const ledger = async () => Number((await sql<{ n: string }>`select (select count(*) from credit_ledger) + (select count(*) from orders) as n`.execute(w.db)).rows[0].n);
  const before = await ledger();
  for (let i = 0; i < 5; i++) t.equal((await postForm(w, TEXTS[i].text)).statusCode, 200);
  t.equal((await get(w, TEXTS[0].text)).statusCode, 200);
  t.equal(await ledger(), before, 'no order and no ledger row');
  t.strictSame((await w.app.inject({ method: 'GET', url: '/tools/lix/?content=x', headers: { 'site-id': String(w.siteId) } })).json(),
    { statusCode: 401, error: 'KEY_MISSING', message: 'An api-key is required' });
  t.strictSame((await w.app.inject({ method: 'GET', url: '/tools/lix/?content=x', headers: { 'api-key': w.key, 'site-id': String(w.otherSiteId) } })).json(),
    { statusCode: 403, error: 'FORBIDDEN_SITE', message: 'This api-key has no access to the site' });
  t.strictSame((await w.app.inject({ method: 'GET', url: '/tools/lix/?content=x', headers: { 'api-key': w.key } })).json(),
    { statusCode: 400, error: 'SITE_ID_MISSING', message: 'The site-id header is required' });
});
