/**
 * Type 100, readability (plugins/lix), on the good and flawed fixture sites, each loaded once in a
 * real Chromium by the gather step and shared by every subtest below.
 */
import t from 'tap';
import lixPlugin from '../../plugins/lix/index.js';
import { createProbes } from '../../core/net/probes.js';
import { runPlugin } from '../../core/pipeline.js';
import { NOT_RATED } from '../../core/plugin-api.js';
import { LOOPBACK_GUARD, loadFixture } from '../helpers/fixture-artifacts.js';

const probes = createProbes(LOOPBACK_GUARD);
const good = (await loadFixture(t, 'good')).artifacts;
const flawed = (await loadFixture(t, 'flawed')).artifacts;

t.test('type 100: LIX of the good fixture\'s main text', async (t) => {
  t.notMatch(good.mainText, 'Quay Street', 'the footer is left out');
  t.notMatch(good.mainText, 'News feed', 'the navigation is left out');
  const outcome = await runPlugin(lixPlugin, good, { probes });
  t.equal(outcome.error, null);
  t.equal(outcome.typeOfTest, 100);
  // 243 words in 22 sentences (5 headings, 14 sentences of body text, 2 form labels and the
  // button each on a line of their own), 46 long words: 243/22 + 100 × 46/243 = 29.98 → 30.0.
  t.same(outcome.data, { lix: 30, words: 243, sentences: 22, long_words: 46, band: 'easy', short_text: false });
  t.equal(outcome.rating, 5);
  t.same(outcome.ratings, {});
  t.equal(outcome.reports.sv.overall, 'LIX 30,0: Lättläst, skönlitteratur, populärtidningar (243 ord, 22 meningar, 19 % långa ord).\nBetyg: 5.00');
  t.equal(outcome.reports.en.overall, 'LIX 30.0: Easy: fiction, popular magazines (243 words, 22 sentences, 19% long words).\nRating: 5.00');
});

t.test('type 100: LIX of the flawed fixture\'s short Swedish text', async (t) => {
  const outcome = await runPlugin(lixPlugin, flawed, { probes });
  // Hand-counted: heading 3 words (2 long), four paragraphs' sentences 7/11/14 · 10/14/12/16 words
  // (2+3+4 · 0+3+2+4 long), the newsletter line 12 words (3 long), the button "Skicka":
  // 100 words, 10 sentences, 23 long → 10 + 23 = 33.0.
  t.same(outcome.data, { lix: 33, words: 100, sentences: 10, long_words: 23, band: 'easy', short_text: true });
  t.equal(outcome.rating, 5, 'a short text is still rated');
  t.equal(
    outcome.reports.sv.overall,
    'LIX 33,0: Lättläst, skönlitteratur, populärtidningar (100 ord, 10 meningar, 23 % långa ord).\n- Texten är kort (100 ord, under 200): värdet är osäkert.\nBetyg: 5.00',
  );
  t.equal(
    outcome.reports.en.overall,
    'LIX 33.0: Easy: fiction, popular magazines (100 words, 10 sentences, 23% long words).\n- The text is short (100 words, fewer than 200): the value is unreliable.\nRating: 5.00',
  );
});

t.test('type 100: ratings per band, and a page without words', async (t) => {
  const sentence = (words: number, long: number) =>
    Array.from({ length: words }, (_, i) => (i < long ? 'förvaltning' : 'ord')).join(' ') + '.';
  // One sentence of n short words: LIX n.
  for (const [words, rating] of [[39, 5], [40, 4], [50, 3], [60, 2], [90, 2]] as const) {
    const outcome = await runPlugin(lixPlugin, { ...good, mainText: sentence(words, 0) }, { probes });
    t.equal(outcome.rating, rating, `LIX ${words} → ${rating}`);
  }
  const none = await runPlugin(lixPlugin, { ...good, mainText: '1952 – 2025' }, { probes });
  t.equal(none.rating, NOT_RATED);
  t.same(none.data, { lix: null, words: 0, sentences: 0, long_words: 0, band: null, short_text: true });
  t.equal(none.reports.sv.overall, 'Sidan har ingen huvudtext att mäta läsbarheten på.\nInte bedömt');
});
