/** User-facing strings of the CSS Lint plugin (type 27). */
import type { ReportText } from '../../core/plugin-api.js';

/** What each stylelint rule finds, in the report languages. */
export const RULES: Record<string, ReportText> = {
  'annotation-no-unknown': { sv: 'Okänd annotering (t.ex. felstavat !important)', en: 'Unknown annotation (e.g. a misspelt !important)' },
  'at-rule-descriptor-no-unknown': { sv: 'Okänd deskriptor i at-regel', en: 'Unknown descriptor in an at-rule' },
  'at-rule-descriptor-value-no-unknown': { sv: 'Ogiltigt värde på deskriptor i at-regel', en: 'Invalid descriptor value in an at-rule' },
  'at-rule-no-unknown': { sv: 'Okänd at-regel', en: 'Unknown at-rule' },
  'at-rule-prelude-no-invalid': { sv: 'Ogiltig inledning av at-regel', en: 'Invalid at-rule prelude' },
  'color-no-invalid-hex': { sv: 'Ogiltig hexadecimal färg', en: 'Invalid hex colour' },
  'custom-property-no-missing-var-function': { sv: 'Egen egenskap används utan var()', en: 'Custom property used without var()' },
  'declaration-property-value-no-unknown': { sv: 'Ogiltigt värde för egenskapen', en: 'Invalid value for the property' },
  'function-calc-no-unspaced-operator': { sv: 'Ogiltigt uttryck i calc() (mellanslag saknas kring operator)', en: 'Invalid calc() expression (operator without spaces)' },
  'function-no-unknown': { sv: 'Okänd funktion', en: 'Unknown function' },
  'keyframe-declaration-no-important': { sv: '!important i @keyframes ignoreras', en: '!important inside @keyframes is ignored' },
  'media-feature-name-no-unknown': { sv: 'Okänd mediaegenskap', en: 'Unknown media feature' },
  'media-feature-name-value-no-unknown': { sv: 'Ogiltigt värde för mediaegenskap', en: 'Invalid media feature value' },
  'media-query-no-invalid': { sv: 'Ogiltig mediafråga', en: 'Invalid media query' },
  'named-grid-areas-no-invalid': { sv: 'Ogiltiga namngivna rutnätsytor', en: 'Invalid named grid areas' },
  'no-invalid-double-slash-comments': { sv: 'Kommentar med // är inte giltig CSS', en: '// comments are not valid CSS' },
  'no-invalid-position-at-import-rule': { sv: '@import står efter andra regler och ignoreras', en: '@import after other rules is ignored' },
  'property-no-unknown': { sv: 'Okänd egenskap', en: 'Unknown property' },
  'selector-pseudo-class-no-unknown': { sv: 'Okänd pseudoklass', en: 'Unknown pseudo-class' },
  'selector-pseudo-element-no-unknown': { sv: 'Okänt pseudoelement', en: 'Unknown pseudo-element' },
  'selector-type-no-unknown': { sv: 'Okänd elementtyp i selektor', en: 'Unknown type selector' },
  'string-no-newline': { sv: 'Radbrytning i sträng', en: 'Newline in a string' },
  'syntax-string-no-invalid': { sv: 'Ogiltig syntaxsträng i @property', en: 'Invalid syntax string in @property' },
  'unit-no-unknown': { sv: 'Okänd enhet', en: 'Unknown unit' },
  'block-no-empty': { sv: 'Tomt block', en: 'Empty block' },
  'comment-no-empty': { sv: 'Tom kommentar', en: 'Empty comment' },
  'declaration-block-no-duplicate-custom-properties': { sv: 'Samma egna egenskap två gånger i ett block', en: 'The same custom property twice in a block' },
  'declaration-block-no-duplicate-properties': { sv: 'Samma egenskap två gånger i ett block', en: 'The same property twice in a block' },
  'declaration-block-no-shorthand-property-overrides': { sv: 'Kortform skriver över en tidigare egenskap', en: 'A shorthand overrides an earlier property' },
  'font-family-no-duplicate-names': { sv: 'Samma typsnitt två gånger i font-family', en: 'The same font twice in font-family' },
  'font-family-no-missing-generic-family-keyword': { sv: 'font-family saknar generisk reservfamilj (t.ex. sans-serif)', en: 'font-family lacks a generic fallback family (e.g. sans-serif)' },
  'keyframe-block-no-duplicate-selectors': { sv: 'Samma steg två gånger i @keyframes', en: 'The same step twice in @keyframes' },
  'no-duplicate-at-import-rules': { sv: 'Samma @import två gånger', en: 'The same @import twice' },
  'no-duplicate-selectors': { sv: 'Samma selektor förekommer flera gånger', en: 'The same selector occurs several times' },
  'selector-anb-no-unmatchable': { sv: 'Selektor med An+B som aldrig matchar', en: 'An+B selector that never matches' },
  'css-syntax-error': { sv: 'Stilmallen har ett syntaxfel och går inte att tolka', en: 'The stylesheet has a syntax error and cannot be parsed' },
};

const n = (count: number, one: string, many: string) => (count === 1 ? one : many);

export const STRINGS = {
  otherRule: { sv: 'Fel enligt stylelint', en: 'Reported by stylelint' } satisfies ReportText,
  inline: (n: number) => `inline #${n}`,
  finding: (rule: string, what: ReportText, where: string, line: number, message: string): ReportText => ({
    sv: `${what.sv} (${rule}). Första fallet: ${where}, rad ${line}: ${message}`,
    en: `${what.en} (${rule}). First case: ${where}, line ${line}: ${message}`,
  }),
  summary: (sheets: number, version: string, errors: number, warnings: number): ReportText => ({
    sv: `${sheets} ${n(sheets, 'stilmall', 'stilmallar')} validerade med stylelint ${version}: ${errors} fel och ${warnings} ${n(warnings, 'varning', 'varningar')}.`,
    en: `${sheets} ${n(sheets, 'stylesheet', 'stylesheets')} validated with stylelint ${version}: ${errors} ${n(errors, 'error', 'errors')} and ${warnings} ${n(warnings, 'warning', 'warnings')}.`,
  }),
  noStylesheets: {
    sv: 'Sidan använder inga stilmallar; det finns ingen CSS att validera.',
    en: 'The page uses no stylesheets; there is no CSS to validate.',
  } satisfies ReportText,
};
