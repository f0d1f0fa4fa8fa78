/**
 * LIX (läsbarhetsindex, Björnsson 1968): LIX = words / sentences + 100 × long words / words.
 * Serves plugin type 100 and the API's /tools/lix/ endpoint, so every rule is fixed here:
 *
 * - Word: a run of letters (Unicode letters, with their combining marks: å, ä, ö, é, ü, ß...),
 *   where letter runs joined by a single hyphen or apostrophe stay one word ("e-post",
 *   "step-free", "don't" are one word each). Digits are not letters: "1952" is no word, and a
 *   digit splits a token ("H2O" is the two words "H" and "O"). The text is NFC-normalised first.
 * - Long word: more than 6 letters (LONG_WORD_LETTERS); hyphens and apostrophes are not letters.
 * - Sentence: the text is cut at every line break and after every run of `.`, `!`, `?` or `:`
 *   (closing quotes or brackets may follow the run) that is followed by whitespace or the end of
 *   the text; every piece holding at least one word is one sentence. So a heading, a form label or
 *   a button text on its own line is a sentence; "3.5", "10:30" and "t.ex" inside a word do not
 *   end one, but "t.ex. " does (abbreviations followed by a space count as sentence ends, as in
 *   most LIX counters). Text with words has at least one sentence.
 * - The value is rounded to one decimal (half away from zero); the band is read from the rounded
 *   value, so the shown number and its band always agree.
 * - Bands are half-open [lower, upper): < 30 very easy, 30 ≤ LIX < 40 easy, 40 ≤ LIX < 50 medium,
 *   50 ≤ LIX < 60 difficult, ≥ 60 very difficult. An exact 30 is "easy" (the reference table's
 *   "< 30" row excludes it), 40 is "medium", 50 "difficult" and 60 "very difficult".
 * - Short text: fewer than 200 words (SHORT_TEXT_WORDS); its value is unstable and says so.
 * - No words at all: lix, band, classification and label are null (a LIX of 0 would read as
 *   "very easy"); words, sentences and longWords are 0 and short is true.
 */
import { reportLang, type Lang, type ReportText } from './i18n/langs.js';
import { round } from './rating.js';

/** A word is long when it has more letters than this. */
export const LONG_WORD_LETTERS = 6;
/** Texts with fewer words than this are flagged as short (unstable LIX). */
export const SHORT_TEXT_WORDS = 200;

export type LixBand = 'very-easy' | 'easy' | 'medium' | 'difficult' | 'very-difficult';

/** The reference table's bands: each holds LIX values from `min` (inclusive) to the next band's min. */
export const LIX_BANDS: readonly { band: LixBand; min: number; classification: ReportText }[] = [
  { band: 'very-easy', min: -Infinity, classification: { sv: 'Mycket lättläst, barnböcker', en: "Very easy, children's books" } },
  { band: 'easy', min: 30, classification: { sv: 'Lättläst, skönlitteratur, populärtidningar', en: 'Easy: fiction, popular magazines' } },
  { band: 'medium', min: 40, classification: { sv: 'Medelsvår, normal tidningstext', en: 'Medium: normal newspaper text' } },
  { band: 'difficult', min: 50, classification: { sv: 'Svår, normalt värde för officiella texter', en: 'Difficult: typical of official texts' } },
  { band: 'very-difficult', min: 60, classification: { sv: 'Mycket svår, byråkratsvenska', en: 'Very difficult: bureaucratic Swedish' } },
];

/** The LIX of a text and what it was computed from. */
export interface LixResult {
  /** Rounded to one decimal; null when the text has no words. */
  lix: number | null;
  words: number;
  sentences: number;
  longWords: number;
  band: LixBand | null;
  /** The reference table's text for the band. */
  classification: ReportText | null;
  /** The classification in the language asked for (sv by default; other languages get en). */
  label: string | null;
  /** Fewer than SHORT_TEXT_WORDS words: the value is unstable. */
  short: boolean;
}

const WORD = /\p{L}[\p{L}\p{M}]*(?:['’-]\p{L}[\p{L}\p{M}]*)*/gu;
const LETTER = /\p{L}/gu;
/** Line breaks, and runs of . ! ? : (with closing quotes/brackets) before whitespace or the end. */
const SENTENCE_END = /[\r\n\u2028\u2029]+|[.!?:]+["'”’»)\]]*(?=\s|$)/u;

/** Band of a (rounded) LIX value. */
export function lixBand(value: number): LixBand {
  let found: LixBand = 'very-easy';
  for (const b of LIX_BANDS) if (value >= b.min) found = b.band;
  return found;
}

/** The words of a text, as defined above. */
export function lixWords(text: string): string[] {
  return text.normalize('NFC').match(WORD) ?? [];
}

/** LIX of `text`; `lang` only picks the language of `label`. */
export function lix(text: string, lang?: Lang): LixResult {
  const normalized = text.normalize('NFC');
  let words = 0;
  let longWords = 0;
  let sentences = 0;
  for (const piece of normalized.split(new RegExp(SENTENCE_END, 'gu'))) {
    const found = piece.match(WORD);
    if (!found) continue;
    sentences++;
    words += found.length;
    for (const w of found) if ((w.match(LETTER)?.length ?? 0) > LONG_WORD_LETTERS) longWords++;
  }
  if (words === 0) {
    return { lix: null, words: 0, sentences: 0, longWords: 0, band: null, classification: null, label: null, short: true };
  }
  const value = round(words / sentences + (100 * longWords) / words, 1);
  const band = lixBand(value);
  const classification = LIX_BANDS.find((b) => b.band === band)!.classification;
  return {
    lix: value,
    words,
    sentences,
    longWords,
    band,
    classification,
    label: classification[reportLang(lang)],
    short: words < SHORT_TEXT_WORDS,
  };
}
