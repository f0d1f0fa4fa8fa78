/**
 * Type 100: readability (LIX) of the page's main text (artifacts.mainText: nav, header, footer,
 * aside and hidden elements left out by the gather step). Word, sentence, rounding and band
 * rules are core/lix.ts's, shared with the API's /tools/lix/.
 *
 * Rated on overall only (no category), by band of the rounded value:
 *   LIX < 40 (very easy, easy) → 5 · 40 ≤ LIX < 50 (medium) → 4 · 50 ≤ LIX < 60 (difficult) → 3 ·
 *   LIX ≥ 60 (very difficult) → 2.
 * A short text (fewer than 200 words) is still rated, with a warning line in the summary;
 * a page without words is NOT_RATED.
 */
import { meta } from './meta.js';
import { lix, SHORT_TEXT_WORDS, type LixBand } from '../../core/lix.js';
import { definePlugin, NOT_RATED } from '../../core/plugin-api.js';
import { STRINGS } from './strings.js';


/** The rating of each LIX band. */
export const LIX_RATING: Record<LixBand, number> = {
  'very-easy': 5,
  easy: 5,
  medium: 4,
  difficult: 3,
  'very-difficult': 2,
};

export default definePlugin({
  meta,
  run(artifacts) {
    const r = lix(artifacts.mainText ?? '');
    const data = {
      lix: r.lix,
      words: r.words,
      sentences: r.sentences,
      long_words: r.longWords,
      band: r.band,
      short_text: r.short,
    };
    if (r.lix === null || r.band === null || r.classification === null) {
      return { rating: NOT_RATED, ratings: {}, findings: [], summary: STRINGS.noText, data };
    }
    const head = STRINGS.summary({ lix: r.lix.toFixed(1), classification: r.classification, words: r.words, sentences: r.sentences, longWords: r.longWords });
    const warning = r.short ? STRINGS.shortText(r.words, SHORT_TEXT_WORDS) : null;
    return {
      rating: LIX_RATING[r.band],
      ratings: {},
      findings: [],
      summary: {
        sv: warning ? `${head.sv}\n${warning.sv}` : head.sv,
        en: warning ? `${head.en}\n${warning.en}` : head.en,
      },
      data,
    };
  },
});
