/**
 * One served HTML page read with parse5, as the statement rules need it: title, h1, the link list,
 * forms, the statement text (body text without script, nav, form, input, button and links, as
 * upstream reads it) and the page as a list of blocks (headings, list items, paragraphs).
 *
 * Text is read as upstream's textContent reads it: content hidden with `hidden` or
 * `aria-hidden="true"` (a collapsed accordion section) counts; only what is never content
 * (script, style, template, svg...) is left out. Text is joined across inline elements
 * (`<span>delvis</span> förenlig` reads "delvis förenlig", upstream #1038); block elements are
 * joined with a space, so that "förenlig</p><p>Vi" does not read "förenligVi" as textContent would.
 *
 * Bounded work on any page the probe returns (2 MB): the tree is walked without recursion, the
 * text of every element is a slice of one text read once, and the text judged is cut at
 * MAX_TEXT characters (the statement text, and the blocks together); a heading, a link or a form
 * is read up to MAX_SHORT_TEXT characters, and the first MAX_H1 h1 elements.
 */
import { parse, type DefaultTreeAdapterTypes } from 'parse5';

type Node = DefaultTreeAdapterTypes.Node;
type Element = DefaultTreeAdapterTypes.Element;
type ParentNode = DefaultTreeAdapterTypes.ParentNode;

/** Characters of a page's text judged at most: its statement text, and its blocks together. */
export const MAX_TEXT = 200_000;
/** Characters read of one heading, link or form: longer is not a heading or a link's name. */
const MAX_SHORT_TEXT = 1_000;
/** h1 elements read at most. */
const MAX_H1 = 100;

const INVISIBLE = /[\u00AD\u200B\u200C\u200D\u2060\uFEFF]/g;

/** Soft hyphens, zero-width spaces and joiners removed, whitespace collapsed. */
export function clean(text: string): string {
  return text.replace(INVISIBLE, '').replace(/\s+/g, ' ').trim();
}

const BLOCKS = new Set([
  'address', 'article', 'aside', 'blockquote', 'br', 'caption', 'dd', 'details', 'dialog', 'div', 'dl', 'dt',
  'fieldset', 'figcaption', 'figure', 'footer', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header', 'hgroup', 'hr',
  'li', 'main', 'nav', 'ol', 'p', 'pre', 'section', 'summary', 'table', 'tbody', 'td', 'tfoot', 'th', 'thead',
  'tr', 'ul',
]);
/** Never text a reader sees. */
const HIDDEN = new Set(['script', 'style', 'template', 'noscript', 'head', 'title', 'svg', 'iframe', 'object']);
/** Left out of the statement text, as upstream's getMinifiedBodyText does (style and the like besides). */
const NOT_STATEMENT_TEXT = new Set([...HIDDEN, 'nav', 'form', 'input', 'button', 'a', 'select', 'textarea']);
const SECTIONING = new Set(['main', 'article', 'section', 'aside']);
const HEADING = /^h([1-6])$/;
const TEXT_BLOCKS = new Set(['p', 'dt', 'dd', 'td', 'th', 'blockquote', 'pre', 'caption', 'figcaption', 'summary', 'address']);

const isElement = (n: Node): n is Element => 'tagName' in n;
const children = (n: Node): Node[] => ('childNodes' in n ? (n as ParentNode).childNodes : []);
const textValue = (n: Node): string => (n as DefaultTreeAdapterTypes.TextNode).value;

/** A URL's path, percent-decoded where it can be. */
export function decodedPath(url: URL): string {
  try {
    return decodeURIComponent(url.pathname);
  } catch {
    return url.pathname;
  }
}

export function attr(el: Element, name: string): string | null {
  return el.attrs.find((a) => a.name === name)?.value ?? null;
}

/** The elements under `root` in document order, without recursion (a page may nest thousands deep). */
function* elements(root: Node): Generator<Element> {
  const stack = [...children(root)].reverse();
  while (stack.length) {
    const node = stack.pop()!;
    if (!isElement(node)) continue;
    yield node;
    for (let i = node.childNodes.length - 1; i >= 0; i--) stack.push(node.childNodes[i]);
  }
}

/** Text appended piece by piece, cleaned as it comes (no run of whitespace, no leading one). */
class CleanText {
  private parts: string[] = [];
  length = 0;
  private endsInSpace = true;

  add(raw: string): void {
    let piece = raw.replace(INVISIBLE, '').replace(/\s+/g, ' ');
    if (this.endsInSpace && piece.startsWith(' ')) piece = piece.slice(1);
    if (!piece) return;
    this.parts.push(piece);
    this.length += piece.length;
    this.endsInSpace = piece.endsWith(' ');
  }

  toString(): string {
    return this.parts.join('');
  }
}

/** A link of the page. */
export interface PageLink {
  /** The href as written. */
  href: string;
  /** Resolved against the page (and its <base>); null when it is no URL. */
  url: URL | null;
  /** Its text (else aria-label, title or an image's alt). */
  text: string;
  /** In the page's footer (a footer or role=contentinfo outside main/article/section/aside). */
  inFooter: boolean;
  /** In the page's navigation, header or footer: site-wide chrome, not the page's own content. */
  inChrome: boolean;
}

/** A heading, list item or paragraph of the page, in document order. */
export type Block = { kind: 'heading'; level: number; text: string } | { kind: 'item' | 'text'; text: string };

export interface Page {
  url: string;
  title: string;
  h1: string[];
  links: PageLink[];
  /** Forms of the page's content that are not a search. */
  forms: { action: string; text: string }[];
  /** Body text without script, nav, form, input, button and a (upstream's "minified body text"), at most MAX_TEXT characters. */
  statementText: string;
  /** The length of the statement text before it was cut at MAX_TEXT. */
  textChars: number;
  blocks: Block[];
}

function resolve(href: string, base: string): URL | null {
  try {
    return new URL(href.trim(), base);
  } catch {
    return null;
  }
}

/** What an element inherits from the elements around it. */
interface Context {
  /** Inside an element whose text is never read (script, style, svg...). */
  noText: boolean;
  /** Inside an element left out of the statement text (nav, a, form...). */
  noStatement: boolean;
  inSection: boolean;
  inFooter: boolean;
  inChrome: boolean;
}

/** Where an element's text lies in the body's text; where it lies in document order. */
interface Place {
  start: number;
  end: number;
  order: number;
  lastDescendant: number;
}

interface BodyRead {
  /** The body's text as textContent reads it (script and the like left out), cleaned. */
  text: string;
  statementText: string;
  places: Map<Element, Place>;
  /** Links, forms and h1 elements in document order, with the chrome they sit in. */
  links: { el: Element; inFooter: boolean; inChrome: boolean }[];
  forms: { el: Element; inChrome: boolean; fields: Element[] }[];
  h1: Element[];
  /** Document-order numbers of the images with an alt text, ascending. */
  images: { order: number; alt: string }[];
}

/**
 * One walk of the body: the two texts, each element's place in them, and what the page's links,
 * forms and headings are. A header or footer inside main, article, section or aside belongs to
 * that content, not to the page's chrome.
 */
function readBody(body: Element): BodyRead {
  const text = new CleanText();
  const statement = new CleanText();
  const places = new Map<Element, Place>();
  const links: BodyRead['links'] = [];
  const forms: BodyRead['forms'] = [];
  const openForms: BodyRead['forms'][number][] = [];
  const h1: Element[] = [];
  const images: BodyRead['images'] = [];
  let order = 0;

  type Frame = { node: Node; ctx: Context } | { leave: Element; ctx: Context; block: boolean; form: boolean };
  const top: Context = { noText: false, noStatement: false, inSection: false, inFooter: false, inChrome: false };
  const stack: Frame[] = [{ node: body, ctx: top }];
  while (stack.length) {
    const frame = stack.pop()!;
    if ('leave' in frame) {
      const { leave, ctx, block } = frame;
      if (block && !ctx.noText) text.add(' ');
      if (block && !ctx.noStatement) statement.add(' ');
      const place = places.get(leave)!;
      place.end = text.length;
      place.lastDescendant = order - 1;
      if (frame.form) openForms.pop();
      continue;
    }
    const { node, ctx: outer } = frame;
    if (node.nodeName === '#text') {
      if (!outer.noText) text.add(textValue(node));
      if (!outer.noStatement) statement.add(textValue(node));
      continue;
    }
    if (!isElement(node)) continue;
    const tag = node.tagName;
    const role = attr(node, 'role');
    const pageFooter = (tag === 'footer' && !outer.inSection) || role === 'contentinfo';
    const pageChrome = pageFooter || tag === 'nav' || role === 'navigation' || (tag === 'header' && !outer.inSection) || role === 'banner';
    const ctx: Context = {
      noText: outer.noText || HIDDEN.has(tag),
      noStatement: outer.noStatement || NOT_STATEMENT_TEXT.has(tag),
      inSection: outer.inSection || SECTIONING.has(tag),
      inFooter: outer.inFooter || pageFooter,
      inChrome: outer.inChrome || pageChrome,
    };
    const block = BLOCKS.has(tag);
    if (block && !ctx.noText) text.add(' ');
    if (block && !ctx.noStatement) statement.add(' ');
    places.set(node, { start: text.length, end: text.length, order: order++, lastDescendant: 0 });

    // What the page's own chrome around the element is (its ancestors', not its own).
    if (tag === 'a' && attr(node, 'href') !== null) links.push({ el: node, inFooter: outer.inFooter, inChrome: outer.inChrome });
    if (tag === 'h1' && h1.length < MAX_H1) h1.push(node);
    if (tag === 'img' && attr(node, 'alt')) images.push({ order: order - 1, alt: attr(node, 'alt')! });
    if ((tag === 'input' || tag === 'textarea') && openForms.length) openForms[openForms.length - 1].fields.push(node);
    const form = tag === 'form';
    if (form) {
      const entry: BodyRead['forms'][number] = { el: node, inChrome: outer.inChrome, fields: [] };
      forms.push(entry);
      openForms.push(entry);
    }

    stack.push({ leave: node, ctx, block, form });
    for (let i = node.childNodes.length - 1; i >= 0; i--) stack.push({ node: node.childNodes[i], ctx });
  }
  return { text: text.toString(), statementText: statement.toString().trim(), places, links, forms, h1, images };
}

/** The cleaned text of an element, at most `max` characters. */
function textIn(read: BodyRead, el: Element, max = MAX_SHORT_TEXT): string {
  const place = read.places.get(el);
  if (!place) return '';
  return read.text.slice(place.start, Math.min(place.end, place.start + max + 1)).trim().slice(0, max);
}

/** The first image with an alt text inside an element (binary search over document order). */
function imageAltIn(read: BodyRead, el: Element): string | null {
  const place = read.places.get(el)!;
  let lo = 0;
  let hi = read.images.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (read.images[mid].order <= place.order) lo = mid + 1;
    else hi = mid;
  }
  const img = read.images[lo];
  return img && img.order <= place.lastDescendant ? img.alt : null;
}

function linkText(read: BodyRead, a: Element): string {
  const text = textIn(read, a);
  if (text) return text;
  return clean(attr(a, 'aria-label') ?? attr(a, 'title') ?? imageAltIn(read, a) ?? '').slice(0, MAX_SHORT_TEXT);
}

/**
 * The page's blocks in document order: headings, list items (a list item holding a list: its
 * items count too) and text blocks, with the loose text between them; nav is left out. Their text
 * together stops at MAX_TEXT characters.
 */
function blocksOf(body: Element, read: BodyRead): Block[] {
  const out: Block[] = [];
  let room = MAX_TEXT;
  let loose: string[] = [];
  const push = (kind: Block['kind'], text: string, level = 0) => {
    const cut = text.slice(0, room);
    if (!cut) return;
    room -= cut.length;
    out.push(kind === 'heading' ? { kind, level, text: cut } : { kind, text: cut });
  };
  const flush = () => {
    const text = clean(loose.join(''));
    loose = [];
    if (text) push('text', text);
  };
  const FLUSH = null;
  const stack: (Node | typeof FLUSH)[] = [body];
  while (stack.length && room > 0) {
    const node = stack.pop() as Node | typeof FLUSH;
    if (node === FLUSH) {
      flush();
      continue;
    }
    if (node.nodeName === '#text') {
      loose.push(textValue(node));
      continue;
    }
    if (!isElement(node) || HIDDEN.has(node.tagName) || node.tagName === 'nav') continue;
    const heading = HEADING.exec(node.tagName);
    const kind = heading ? 'heading' : node.tagName === 'li' ? 'item' : TEXT_BLOCKS.has(node.tagName) ? 'text' : null;
    if (kind) {
      flush();
      push(kind, textIn(read, node, room), heading ? Number(heading[1]) : 0);
      if (kind === 'item') {
        const lists = node.childNodes.filter((c) => isElement(c) && (c.tagName === 'ul' || c.tagName === 'ol'));
        for (let i = lists.length - 1; i >= 0; i--) stack.push(lists[i]);
      }
      continue;
    }
    if (BLOCKS.has(node.tagName)) {
      flush();
      stack.push(FLUSH);
    }
    for (let i = node.childNodes.length - 1; i >= 0; i--) stack.push(node.childNodes[i]);
  }
  if (room > 0) flush();
  return out;
}

/** Reads a served HTML page; `url` is the address it was answered from (after redirects). */
export function readPage(html: string, url: string): Page {
  const doc = parse(html);
  let body: Element | undefined;
  let titleEl: Element | undefined;
  let baseEl: Element | undefined;
  for (const e of elements(doc)) {
    if (!body && e.tagName === 'body') body = e;
    if (!titleEl && e.tagName === 'title') titleEl = e;
    if (!baseEl && e.tagName === 'base' && attr(e, 'href')) baseEl = e;
    if (body && titleEl && baseEl) break;
  }
  const base = (baseEl && resolve(attr(baseEl, 'href')!, url)?.href) || url;
  const title = titleEl ? clean(titleEl.childNodes.filter((c) => c.nodeName === '#text').map(textValue).join('').slice(0, MAX_SHORT_TEXT)) : '';
  if (!body) return { url, title, h1: [], links: [], forms: [], statementText: '', textChars: 0, blocks: [] };

  const read = readBody(body);
  const links: PageLink[] = read.links.map(({ el, inFooter, inChrome }) => ({
    href: attr(el, 'href')!,
    url: resolve(attr(el, 'href')!, base),
    text: linkText(read, el),
    inFooter,
    inChrome,
  }));
  const forms = read.forms
    .filter((f) => !f.inChrome)
    .filter(({ el, fields }) => {
      // A search box is no feedback function.
      const search = attr(el, 'role') === 'search' || fields.some((e) => attr(e, 'type') === 'search' || /^(q|query|search|s|sok|sök)$/i.test(attr(e, 'name') ?? ''));
      return !search && fields.some((e) => e.tagName === 'textarea' || !['hidden', 'submit', 'button'].includes(attr(e, 'type') ?? 'text'));
    })
    .map(({ el }) => ({ action: resolve(attr(el, 'action') ?? '', base)?.href ?? '', text: textIn(read, el) }));

  return {
    url,
    title,
    h1: read.h1.map((h) => textIn(read, h)).filter(Boolean),
    links,
    forms,
    statementText: read.statementText.slice(0, MAX_TEXT),
    textChars: read.statementText.length,
    blocks: blocksOf(body, read),
  };
}
