import t from 'tap';
import { lix, lixBand, lixWords, LIX_BANDS, SHORT_TEXT_WORDS } from '../../core/lix.js';

/** A text of `sentences` sentences holding `words` words in all, `long` of them long ("läsbarhet", 9 letters). */
function synthetic(words: number, sentences: number, long: number): string {
  const all = Array.from({ length: words }, (_, i) => (i < long ? 'läsbarhet' : 'ord'));
  const out: string[] = [];
  for (let s = 0; s < sentences; s++) {
    out.push(all.slice(Math.floor((s * words) / sentences), Math.floor(((s + 1) * words) / sentences)).join(' ') + '.');
  }
  return out.join(' ');
}

t.test('LIX of hand-counted Swedish and English texts', async (t) => {
  // 6 words, 2 sentences, no word over 6 letters (skiner, Barnen, parken have 6): 6/2 + 0.
  t.hasStrict(lix('Solen skiner. Barnen leker i parken.'), { lix: 3, words: 6, sentences: 2, longWords: 0, band: 'very-easy' });

  // 8 words, 2 sentences, 7 long (all but "om"): 8/2 + 100 × 7/8 = 4 + 87.5.
  t.hasStrict(lix('Kommunfullmäktige beslutade om budgeten. Förvaltningen verkställer beslutet omedelbart!'), {
    lix: 91.5, words: 8, sentences: 2, longWords: 7, band: 'very-difficult',
  });

  // 15 words, 2 sentences; long: afternoon, everybody, outside. 7.5 + 20.
  t.hasStrict(lix('The cat sat on the mat. It was a sunny afternoon, and everybody was outside!'), {
    lix: 27.5, words: 15, sentences: 2, longWords: 3, band: 'very-easy',
  });

  // Hyphenated words are one word with all their letters; numbers are no words.
  // Words: E-postadressen (14 letters), är, viktig (6), för, års, café-ägare (9 letters): 6/1 + 100 × 2/6.
  const hyphen = lix('E-postadressen är viktig för 1952 års café-ägare.');
  t.hasStrict(hyphen, { lix: 39.3, words: 6, sentences: 1, longWords: 2, band: 'easy' });
  t.same(lixWords('E-postadressen är viktig för 1952 års café-ägare.'), ['E-postadressen', 'är', 'viktig', 'för', 'års', 'café-ägare']);
  t.same(lixWords("Don't stop H2O 3.5 ---"), ["Don't", 'stop', 'H', 'O']);

  // A line break ends a heading-like line: 2 sentences, 6 words, 1 long (Öppettider): 3 + 16.67.
  t.hasStrict(lix('Öppettider\nVi har öppet alla dagar'), { lix: 19.7, words: 6, sentences: 2, longWords: 1 });

  // "Kl." before a space ends a sentence, "10:30" and "3.50" do not, "kr:" does: Kl | kostar det kr | billigt.
  t.hasStrict(lix('Kl. 10:30 kostar det 3.50 kr: billigt.'), { words: 5, sentences: 3, longWords: 1, lix: 21.7 });

  // Closing quotes may follow the end mark: "Kommer du?" | frågade hon | Ja.
  t.hasStrict(lix('"Kommer du?" frågade hon. Ja!'), { words: 5, sentences: 3, longWords: 1, lix: 21.7 });

  // Combining marks belong to their letter (NFC): "Kaféerna" has 8 letters either way.
  t.hasStrict(lix('Kafe\u0301erna'), { words: 1, longWords: 1, sentences: 1 });
});

t.test('classification texts and label language', async (t) => {
  const r = lix('Solen skiner. Barnen leker i parken.');
  t.same(r.classification, { sv: 'Mycket lättläst, barnböcker', en: "Very easy, children's books" });
  t.equal(r.label, 'Mycket lättläst, barnböcker', 'Swedish by default');
  t.equal(lix('Solen skiner.', 'en').label, "Very easy, children's books");
  t.equal(lix('Solen skiner.', 'da').label, "Very easy, children's books", 'languages without reports fall back to English');
  t.same(
    LIX_BANDS.map((b) => b.classification.sv),
    [
      'Mycket lättläst, barnböcker',
      'Lättläst, skönlitteratur, populärtidningar',
      'Medelsvår, normal tidningstext',
      'Svår, normalt värde för officiella texter',
      'Mycket svår, byråkratsvenska',
    ],
  );
});

t.test('band edges: each band includes its lower edge', async (t) => {
  const cases: [number, string][] = [
    [0, 'very-easy'], [29.9, 'very-easy'], [30, 'easy'], [39.9, 'easy'], [40, 'medium'], [49.9, 'medium'],
    [50, 'difficult'], [59.9, 'difficult'], [60, 'very-difficult'], [120, 'very-difficult'],
  ];
  for (const [value, band] of cases) t.equal(lixBand(value), band, `${value} → ${band}`);

  // Whole texts on the edges: n words in one sentence, no long word, give LIX n.
  t.hasStrict(lix(synthetic(29, 1, 0)), { lix: 29, band: 'very-easy' });
  t.hasStrict(lix(synthetic(30, 1, 0)), { lix: 30, band: 'easy' });
  t.hasStrict(lix(synthetic(40, 1, 0)), { lix: 40, band: 'medium' });
  t.hasStrict(lix(synthetic(50, 1, 0)), { lix: 50, band: 'difficult' });
  t.hasStrict(lix(synthetic(60, 1, 0)), { lix: 60, band: 'very-difficult' });
  // 20 words, 2 sentences, 4 long: 10 + 20 = 30 exactly.
  t.hasStrict(lix(synthetic(20, 2, 4)), { lix: 30, words: 20, sentences: 2, longWords: 4, band: 'easy' });
  // The band follows the rounded value: 243/22 + 100 × 46/243 = 29.9755 → 30.0 → easy.
  t.hasStrict(lix(synthetic(243, 22, 46)), { lix: 30, words: 243, sentences: 22, longWords: 46, band: 'easy' });
  // 10 words, 3 sentences, 2 long: 3.333 + 20 = 23.333 → 23.3 (one decimal).
  t.hasStrict(lix(synthetic(10, 3, 2)), { lix: 23.3, sentences: 3 });
});

t.test('short texts are flagged below 200 words', async (t) => {
  t.equal(SHORT_TEXT_WORDS, 200);
  t.equal(lix(synthetic(199, 10, 0)).short, true);
  t.equal(lix(synthetic(200, 10, 0)).short, false);
  t.equal(lix(synthetic(200, 10, 0)).words, 200);
});

t.test('text without words has no LIX', async (t) => {
  const empty = { lix: null, words: 0, sentences: 0, longWords: 0, band: null, classification: null, label: null, short: true };
  t.same(lix(''), empty);
  t.same(lix('   \n\n  '), empty);
  t.same(lix('1952 – 2025. 10:30!'), empty, 'numbers are no words');
});
