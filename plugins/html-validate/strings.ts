/** User-facing strings of the HTML Lint plugin (type 28). */
import type { ReportText } from '../../core/plugin-api.js';

/** What each rule of html-validate's standard preset checks, in the report languages. */
export const RULES: Record<string, ReportText> = {
  'area-alt': { sv: '<area> saknar alternativtext', en: '<area> lacks alternative text' },
  'aria-label-misuse': { sv: 'aria-label används på ett element där det inte är tillåtet', en: 'aria-label is used on an element where it is not allowed' },
  'attr-spacing': { sv: 'Attribut saknar mellanrum mellan sig', en: 'Attributes lack whitespace between them' },
  'attribute-allowed-values': { sv: 'Attribut har ett otillåtet värde', en: 'An attribute has a value that is not allowed' },
  'attribute-misuse': { sv: 'Attribut används på fel sätt', en: 'An attribute is misused' },
  'close-attr': { sv: 'Sluttagg har attribut', en: 'An end tag has attributes' },
  'close-order': { sv: 'Element stängs i fel ordning eller inte alls', en: 'Elements are closed in the wrong order or not at all' },
  deprecated: { sv: 'Föråldrat element används', en: 'A deprecated element is used' },
  'deprecated-rule': { sv: 'En föråldrad valideringsregel är påslagen', en: 'A deprecated validation rule is enabled' },
  'doctype-html': { sv: 'Dokumenttypen är inte <!DOCTYPE html>', en: 'The doctype is not <!DOCTYPE html>' },
  'element-name': { sv: 'Ogiltigt elementnamn', en: 'Invalid element name' },
  'element-permitted-content': { sv: 'Element står där det inte får förekomma', en: 'An element is placed where it is not permitted' },
  'element-permitted-occurrences': { sv: 'Element förekommer fler gånger än tillåtet', en: 'An element occurs more times than permitted' },
  'element-permitted-order': { sv: 'Element står i otillåten ordning', en: 'Elements are in a non-permitted order' },
  'element-permitted-parent': { sv: 'Element har en otillåten förälder', en: 'An element has a non-permitted parent' },
  'element-required-ancestor': { sv: 'Element saknar en nödvändig förfader', en: 'An element lacks a required ancestor' },
  'element-required-attributes': { sv: 'Element saknar obligatoriskt attribut', en: 'An element lacks a required attribute' },
  'element-required-content': { sv: 'Element saknar obligatoriskt innehåll', en: 'An element lacks required content' },
  'map-dup-name': { sv: 'Flera <map> har samma namn', en: 'Several <map> elements share a name' },
  'map-id-name': { sv: '<map> har olika id och name', en: '<map> has differing id and name' },
  'multiple-labeled-controls': { sv: 'En <label> hör till flera formulärfält', en: 'A <label> is associated with several controls' },
  'no-abstract-role': { sv: 'Abstrakt ARIA-roll används', en: 'An abstract ARIA role is used' },
  'no-deprecated-attr': { sv: 'Föråldrat attribut används', en: 'A deprecated attribute is used' },
  'no-dup-attr': { sv: 'Samma attribut förekommer två gånger på ett element', en: 'An attribute occurs twice on one element' },
  'no-dup-id': { sv: 'Samma id används av flera element', en: 'The same id is used by several elements' },
  'no-multiple-main': { sv: 'Sidan har flera synliga <main>', en: 'The page has several visible <main> elements' },
  'no-raw-characters': { sv: 'Tecken som måste skrivas som teckenreferens', en: 'Characters that must be written as character references' },
  'no-unused-disable': { sv: 'Onödig instruktion som stänger av en valideringsregel', en: 'Unneeded directive disabling a validation rule' },
  'script-element': { sv: '<script> används på fel sätt', en: '<script> is misused' },
  'unrecognized-char-ref': { sv: 'Okänd teckenreferens', en: 'Unrecognised character reference' },
  'valid-autocomplete': { sv: 'Ogiltigt värde på autocomplete', en: 'Invalid autocomplete value' },
  'valid-for': { sv: 'Ogiltigt for-attribut på <label>', en: 'Invalid for attribute on <label>' },
  'valid-id': { sv: 'Ogiltigt id', en: 'Invalid id' },
  'void-content': { sv: 'Tomt element (void) har innehåll', en: 'A void element has content' },
  'parser-error': { sv: 'HTML-koden går inte att tolka', en: 'The HTML cannot be parsed' },
};

const n = (count: number, one: string, many: string) => (count === 1 ? one : many);

export const STRINGS = {
  otherRule: { sv: 'Fel enligt html-validate', en: 'Reported by html-validate' } satisfies ReportText,
  finding: (rule: string, what: ReportText, line: number, message: string): ReportText => ({
    sv: `${what.sv} (${rule}). Första fallet, rad ${line}: ${message}`,
    en: `${what.en} (${rule}). First case, line ${line}: ${message}`,
  }),
  summary: (version: string, errors: number, warnings: number): ReportText => ({
    sv: `HTML-dokumentet validerat med html-validate ${version} (förinställningen standard): ${errors} fel och ${warnings} ${n(warnings, 'varning', 'varningar')}.`,
    en: `The HTML document validated with html-validate ${version} (standard preset): ${errors} ${n(errors, 'error', 'errors')} and ${warnings} ${n(warnings, 'warning', 'warnings')}.`,
  }),
  noHtml: {
    sv: 'Sidan levererade inget HTML-dokument att validera.',
    en: 'The page served no HTML document to validate.',
  } satisfies ReportText,
};
