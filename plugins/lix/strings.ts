/** User-facing strings of the readability plugin (type 100). */
import type { ReportText } from '../../core/plugin-api.js';

const pct = (longWords: number, words: number) => Math.round((100 * longWords) / words);

export const STRINGS = {
  summary: (v: { lix: string; classification: ReportText; words: number; sentences: number; longWords: number }): ReportText => ({
    sv: `LIX ${v.lix.replace('.', ',')}: ${v.classification.sv} (${v.words} ord, ${v.sentences} meningar, ${pct(v.longWords, v.words)} % långa ord).`,
    en: `LIX ${v.lix}: ${v.classification.en} (${v.words} words, ${v.sentences} sentences, ${pct(v.longWords, v.words)}% long words).`,
  }),
  shortText: (words: number, threshold: number): ReportText => ({
    sv: `- Texten är kort (${words} ord, under ${threshold}): värdet är osäkert.`,
    en: `- The text is short (${words} words, fewer than ${threshold}): the value is unreliable.`,
  }),
  noText: {
    sv: 'Sidan har ingen huvudtext att mäta läsbarheten på.',
    en: 'The page has no main text to measure readability on.',
  } satisfies ReportText,
};
