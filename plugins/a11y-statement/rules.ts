/**
 * What a page says, read with Swedish cues: is it an accessibility statement, is it about the
 * website or another service, and what of DIGG's required content (MDFFS 2019:2 and DIGG's
 * guidance "Skapa en tillgänglighetsredogörelse") it holds.
 */
import { findDiggLink } from './digg.js';
import type { Block, Page } from './html.js';
import { ACCESSIBILITY_WORD, OTHER_SERVICE, STATEMENT_WORD } from './links.js';
import { Sentences } from './sentences.js';

// ---- Compliance ("följsamhet") ----

export type Compliance = 'full' | 'partial' | 'not';

const LEVEL = '(inte helt|ej helt|helt|delvis|inte|ej)';
/** Upstream's phrase; \p{L} instead of \b, which does not know å, ä and ö. */
const COMPATIBLE = new RegExp(`(?<!\\p{L})${LEVEL}\\s+förenlig`, 'iu');
/** "uppfyller delvis kraven", a wording of some third-party templates. */
const REQUIREMENTS = new RegExp(`(?<!\\p{L})uppfyller\\s+${LEVEL}\\s+(?:alla\\s+)?(?:lag)?kraven`, 'iu');

export function compliance(text: string): { level: Compliance; phrase: string } | null {
  const m = COMPATIBLE.exec(text) ?? REQUIREMENTS.exec(text);
  if (!m) return null;
  const word = m[1].toLowerCase().replace(/\s+/g, ' ');
  const level: Compliance = word === 'helt' ? 'full' : word === 'inte' || word === 'ej' ? 'not' : 'partial';
  return { level, phrase: m[0].replace(/\s+/g, ' ') };
}

// ---- 12 §: oskäligt betungande anpassning ----

const BURDEN = /12\s*§\s*(?:i\s+)?(?:dos-)?lagen|oskäligt\s+betungande/giu;
/** "Vi åberopar inte 12 §", "inga undantag för oskäligt betungande anpassning": no claim. */
const NEGATED = /(?:åberopar|tillämpar|hänvisar|använder|gör)\s+(?:vi\s+)?(?:inte|ej)\b|(?<!\p{L})(?:inte|ej)\s+(?:åberopa|tillämpa|hänvisa)|(?<!\p{L})(?:inga|ingen|inget)\s+(?:\p{L}+\s+){0,2}?(?:undantag|hänvisning|åberop)/iu;
/** A reason given for the claim ("skäl" as a word of its own: "oskäligt" is the claim itself). */
const REASON = /eftersom|på grund av|pga\.?|därför att|med anledning av|(?<!\p{L})skäl|motiv|kostna|kostar|resurs|budget|orimlig|ekonomisk|tekniska begränsningar|bedöm|i förhållande till|nytta|avvägning|då det|då vi/iu;

export interface BurdenClaim {
  phrase: string;
  /** The text the reason was looked for in: the claim's paragraph (or section) and the one after it. */
  context: string;
  reasoned: boolean;
  reason: string | null;
}

/** Where a sentence of the statement text ends: a full stop, ! or ? before a space. */
const SENTENCE_END = /[.!?] /g;

/** The claim's context in the page's blocks: its block and what follows up to the next heading (or one block). */
function claimContext(blocks: readonly Block[], phrase: RegExp): string {
  const at = blocks.findIndex((b) => phrase.test(b.text));
  if (at < 0) return '';
  const own = blocks[at];
  const parts = [own.text];
  for (let i = at + 1; i < blocks.length; i++) {
    const b = blocks[i];
    if (b.kind === 'heading' && (own.kind !== 'heading' || b.level <= own.level)) break;
    parts.push(b.text);
    if (own.kind !== 'heading') break; // a paragraph: its reason is in it or right after it
  }
  return parts.join(' ');
}

/** The first claim of 12 § that is not negated; null when the page makes none. */
export function burdenClaim(text: string, blocks: readonly Block[]): BurdenClaim | null {
  const sentences = new Sentences(text, SENTENCE_END);
  // Each sentence is asked once whether it negates, however many claims it holds.
  const negated = new Map<number, boolean>();
  for (const m of text.matchAll(BURDEN)) {
    const { start, end } = sentences.around(m.index!, m.index! + m[0].length);
    const sentence = text.slice(start, end + 1).trim();
    if (!negated.has(start)) negated.set(start, NEGATED.test(sentence));
    if (negated.get(start)) continue;
    const phrase = new RegExp(m[0].replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\s+/g, '\\s+'), 'iu');
    const context = claimContext(blocks, phrase) || sentence;
    // The claim's own words are no reason: every "12 § lagen" and "oskäligt betungande" goes first.
    const reason = REASON.exec(context.replace(BURDEN, ' '));
    return { phrase: m[0].replace(/\s+/g, ' '), context: context.slice(0, 400), reasoned: reason !== null, reason: reason?.[0] ?? null };
  }
  return null;
}

// ---- Evaluation method ----

/**
 * Upstream's list (its stray `]` after intern(a) test(ning|er) left out), with DIGG's "extern
 * part" and "tredje part". The loose cues of the list (a heading "Hur vi testat webbplatsen",
 * "med hjälp av", "rutiner") count only when no method is named, so data names the method.
 */
const METHOD = /självskattning|intern(?:a)? kontroll(?:er)?|intern(?:a)? test(?:ning|er)?|utvärderingsmetod|tillgänglighetsexpert(?:er)?|funka|etu ab|siteimprove|oberoende (?:tillgänglighets)?granskning(?:ar)?|tillgänglighetskonsult(?:er)?|egna tester|oberoende experter|checklist(?:a|or)|automatiserade|automatisk|maskinell|kontrollverktyg|tillgänglighetskontroll|granskning av extern part|extern part|tredje part/iu;
const LOOSE_METHOD = /hur vi testat webbplats(?:en)?|vi testat webbplatsen|med hjälp av|intervjuer|rutiner|utbildningar/iu;

export function evaluationMethod(text: string): string | null {
  return (METHOD.exec(text) ?? LOOSE_METHOD.exec(text))?.[0] ?? null;
}

// ---- List of inaccessible content ----

const LIST_CUE = /inneh[åa]ll som (?:inte|ej) är tillgängligt|kända brister|brister|bristande tillgänglighet|problem med tillgänglighet|tillgänglighetsproblem|avvikelser|inte (?:är )?tillgängligt|följande (?:inneh[åa]ll|brister|problem|fel)/iu;
/** "Rapportera brister i webbplatsens tillgänglighet" is the feedback section, not the list. */
const NOT_LIST = /rapportera|anmäl|meddela|påtala|kontakta|tillsyn/iu;
/** WCAG success criteria (1.1.1 … 4.1.3), which a list of shortcomings usually names. */
const CRITERION = /(?<![\d.])[1-4]\.\d{1,2}\.\d{1,2}(?![\d])/g;

export interface InaccessibleContent {
  found: boolean;
  /** The heading (or paragraph) that introduces the list. */
  heading: string | null;
  /** List items in its section. */
  items: number;
  /** WCAG success criteria the page names. */
  wcag_criteria: string[];
}

export function inaccessibleContent(blocks: readonly Block[], text: string): InaccessibleContent {
  const criteria = [...new Set(text.match(CRITERION) ?? [])];
  for (const [at, b] of blocks.entries()) {
    if (!LIST_CUE.test(b.text) || NOT_LIST.test(b.text) || b.kind === 'item') continue;
    let items = 0;
    let chars = 0;
    for (let i = at + 1; i < blocks.length; i++) {
      const next = blocks[i];
      if (next.kind === 'heading' && (b.kind !== 'heading' || next.level <= b.level)) break;
      if (next.kind === 'item') items++;
      else if (b.kind !== 'heading' && items === 0) break; // after a paragraph, only a list right after it counts
      chars += next.text.length;
    }
    if (items > 0 || (b.kind === 'heading' && chars >= 40)) return { found: true, heading: b.text, items, wcag_criteria: criteria };
  }
  return { found: criteria.length > 0, heading: null, items: 0, wcag_criteria: criteria };
}

// ---- Feedback function (meddelandefunktion, 13 § andra stycket) ----

const FEEDBACK_TEXT = /rapportera|meddela oss|påtala|kontakta oss|kontakt|synpunkt|tyck till|felanmäl|tillgängligt format|alternativt format|formulär|feedback|skicka (?:ett )?meddelande|hör av dig/iu;
const FEEDBACK_HREF = /kontakt|feedback|synpunkt|rapportera|felanmal|tyck-?till|formular/i;
/** Starts where a run of address characters starts, so that a long word is tried once, not from each of its letters. */
const EMAIL = /(?<![\p{L}\p{N}._%+-])[\p{L}\p{N}._%+-]+@[\p{L}\p{N}.-]+\.[\p{L}]{2,}/u;
const TEXT_CUE = /meddela oss|kontakta oss|rapportera|e-?post|mejla|maila|skriv till|ring oss|ring\s+\d|telefon/iu;

export interface FeedbackFunction {
  kind: 'form' | 'link' | 'email' | 'phone' | 'email-in-text';
  href: string | null;
  text: string;
}

/**
 * The statement's own way to report shortcomings or ask for content: a form, a link that says so,
 * an e-mail or phone link, or an address written in the text next to a cue. Links are read from
 * the whole body (script and link text included), but site-wide navigation, header and footer do
 * not count: a "Kontakt" link on every page is not the statement's feedback function.
 */
export function feedbackFunction(page: Page): FeedbackFunction | null {
  const content = page.links.filter((l) => !l.inChrome && l.url && !/(^|\.)digg\.se$/i.test(l.url.hostname));
  const form = page.forms[0];
  if (form) return { kind: 'form', href: form.action || null, text: form.text.slice(0, 120) };
  const link = content.find((l) => (l.url!.protocol === 'http:' || l.url!.protocol === 'https:') && (FEEDBACK_TEXT.test(l.text) || FEEDBACK_HREF.test(l.url!.pathname)));
  if (link) return { kind: 'link', href: link.url!.href, text: link.text };
  const mail = content.find((l) => l.url!.protocol === 'mailto:');
  if (mail) return { kind: 'email', href: mail.href, text: mail.text };
  const phone = content.find((l) => l.url!.protocol === 'tel:');
  if (phone) return { kind: 'phone', href: phone.href, text: phone.text };
  const written = page.blocks.find((b) => EMAIL.test(b.text) && TEXT_CUE.test(b.text));
  if (written) return { kind: 'email-in-text', href: null, text: EMAIL.exec(written.text)![0] };
  return null;
}

// ---- Is this page a statement, and about what? ----

export interface Recognition {
  statement: boolean;
  /** strong: h1 or title names "tillgänglighetsredogörelse"; weak: "tillgänglighet" and a legal signal. */
  signal: 'strong' | 'weak' | null;
}

export function recognise(page: Page): Recognition {
  const headings = [page.title, ...page.h1];
  if (headings.some((h) => STATEMENT_WORD.test(h))) return { statement: true, signal: 'strong' };
  if (headings.some((h) => ACCESSIBILITY_WORD.test(h))) {
    const legal = compliance(page.statementText) !== null || findDiggLink(page.links) !== null || burdenClaim(page.statementText, page.blocks) !== null;
    if (legal) return { statement: true, signal: 'weak' };
  }
  return { statement: false, signal: null };
}

export type About = 'website' | 'other-service';

/** The subject before "är … förenlig": "Den här webbplatsen är delvis förenlig", "E-tjänsten är inte förenlig". */
const SUBJECT = new RegExp(`(?<![\\p{L}-])(\\p{L}[\\p{L}-]*)\\s+(?:är|uppfyller)\\s+${LEVEL}\\s+(?:förenlig|(?:alla\\s+)?(?:lag)?kraven)`, 'iu');
/** "Den här tillgänglighetsredogörelsen gäller e-tjänsten Bygglov". */
const APPLIES_TO = /redogörelse\p{L}{0,10}\s+(?:gäller|avser|omfattar|beskriver)\s+(.{0,80})/iu;

/**
 * Whether a statement is the website's own or another service's (an e-service, an app), from its
 * h1 and title, the subject of its compliance sentence, what it says it applies to, and the link
 * that led to it (upstream #912 stops at the first statement, whichever it is).
 */
export function aboutOf(page: Page, linkText: string): { about: About; reason: string } {
  const heading = page.h1.find((h) => ACCESSIBILITY_WORD.test(h)) ?? page.h1[0] ?? '';
  for (const [where, text] of [['h1', heading], ['title', page.title]] as const) {
    if (/webbplats/i.test(text)) return { about: 'website', reason: `${where}: ${text}` };
    if (OTHER_SERVICE.test(text)) return { about: 'other-service', reason: `${where}: ${text}` };
  }
  const subject = SUBJECT.exec(page.statementText);
  if (subject && /webbplats/i.test(subject[1])) return { about: 'website', reason: `compliance: ${subject[0]}` };
  if (subject && OTHER_SERVICE.test(subject[1])) return { about: 'other-service', reason: `compliance: ${subject[0]}` };
  const applies = APPLIES_TO.exec(page.statementText);
  if (applies && /webbplats/i.test(applies[1])) return { about: 'website', reason: `applies to: ${applies[0]}` };
  if (applies && OTHER_SERVICE.test(applies[1])) return { about: 'other-service', reason: `applies to: ${applies[0]}` };
  if (OTHER_SERVICE.test(linkText)) return { about: 'other-service', reason: `link: ${linkText}` };
  return { about: 'website', reason: 'no other service named' };
}
