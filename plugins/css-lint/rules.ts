/**
 * The stylelint rules type 27 runs, with the finding severity of each. No shareable config
 * (stylelint-config-standard/-recommended) is installed, so the rules are listed here: those that
 * find CSS a browser drops or misreads (unknown or invalid = error) and those that find
 * redundant or risky CSS that still works (duplicates, empty blocks = warning). Pure style
 * rules (formatting, naming, ordering) are left out: they are taste, not validity.
 */
import type { Config } from 'stylelint';

export const ERROR_RULES = [
  'annotation-no-unknown',
  'at-rule-descriptor-no-unknown',
  'at-rule-descriptor-value-no-unknown',
  'at-rule-no-unknown',
  'at-rule-prelude-no-invalid',
  'color-no-invalid-hex',
  'custom-property-no-missing-var-function',
  'declaration-property-value-no-unknown',
  'function-calc-no-unspaced-operator',
  'function-no-unknown',
  'keyframe-declaration-no-important',
  'media-feature-name-no-unknown',
  'media-feature-name-value-no-unknown',
  'media-query-no-invalid',
  'named-grid-areas-no-invalid',
  'no-invalid-double-slash-comments',
  'no-invalid-position-at-import-rule',
  'property-no-unknown',
  'selector-pseudo-class-no-unknown',
  'selector-pseudo-element-no-unknown',
  'selector-type-no-unknown',
  'string-no-newline',
  'syntax-string-no-invalid',
  'unit-no-unknown',
] as const;

export const WARNING_RULES = [
  'block-no-empty',
  'comment-no-empty',
  'declaration-block-no-duplicate-custom-properties',
  'declaration-block-no-duplicate-properties',
  'declaration-block-no-shorthand-property-overrides',
  'font-family-no-duplicate-names',
  'font-family-no-missing-generic-family-keyword',
  'keyframe-block-no-duplicate-selectors',
  'no-duplicate-at-import-rules',
  'no-duplicate-selectors',
  'selector-anb-no-unmatchable',
] as const;

/** Rule id of a stylesheet that cannot be parsed at all (stylelint's CssSyntaxError). */
export const SYNTAX_ERROR_RULE = 'css-syntax-error';

/** Rule options beyond on/off. */
const OPTIONS: Record<string, Record<string, unknown>> = {
  // `display: -webkit-box; display: flex` is a deliberate fallback, not a mistake.
  'declaration-block-no-duplicate-properties': { ignore: ['consecutive-duplicates-with-different-syntaxes'] },
};

export const STYLELINT_CONFIG: Config = {
  rules: Object.fromEntries([
    ...ERROR_RULES.map((r) => [r, [true, { ...OPTIONS[r], severity: 'error' }]]),
    ...WARNING_RULES.map((r) => [r, [true, { ...OPTIONS[r], severity: 'warning' }]]),
  ]),
};
