/**
 * One served HTML page read with parse5, as the statement rules need it: title, h1, the link list,
 * forms, the statement text (body text without script, nav, form, input, button and links, as
 * upstream reads it) and the page as a list of blocks (headings, list items, paragraphs).
 *
 * Text is joined across inline elements (`<span>delvis</span> förenlig` reads "delvis förenlig",
 * upstream #1038); block elements are joined with a space, so that "förenlig</p><p>Vi" does not
 * read "förenligVi" as textContent would.
 */
import { parse, type DefaultTreeAdapterTypes } from 'parse5';

type Node = DefaultTreeAdapterTypes.Node;
type Element = DefaultTreeAdapterTypes.Element;
type ParentNode = DefaultTreeAdapterTypes.ParentNode;

/** Soft hyphens, zero-width spaces and joiners removed, whitespace collapsed. */
export function clean(text: string): string {
  return text.replace(/[\u00AD\u200B\u200C\u200D\u2060\uFEFF]/g, '').replace(/\s+/g, ' ').trim();
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

const isElement = (n: Node): n is Element => 'tagName' in n;
const children = (n: Node): Node[] => ('childNodes' in n ? (n as ParentNode).childNodes : []);

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

/** Text of a node, inline elements joined as they are, blocks separated by a space. */
function textOf(node: Node, skip: ReadonlySet<string>): string {
  if (node.nodeName === '#text') return (node as DefaultTreeAdapterTypes.TextNode).value;
  if (isElement(node)) {
    if (skip.has(node.tagName)) return '';
    if (attr(node, 'hidden') !== null || attr(node, 'aria-hidden') === 'true') return '';
  }
  const inner = children(node).map((c) => textOf(c, skip)).join('');
  return isElement(node) && BLOCKS.has(node.tagName) ? ` ${inner} ` : inner;
}

function* walk(node: Node): Generator<Element> {
  for (const c of children(node)) {
    if (!isElement(c)) continue;
    yield c;
    yield* walk(c);
  }
}

function ancestors(el: Element): Element[] {
  const out: Element[] = [];
  for (let p = el.parentNode; p && isElement(p as Node); p = (p as Element).parentNode) out.push(p as Element);
  return out;
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
  /** Body text without script, nav, form, input, button and a (upstream's "minified body text"). */
  statementText: string;
  blocks: Block[];
}

const SECTIONING = new Set(['main', 'article', 'section', 'aside']);

function chromeOf(el: Element): { inFooter: boolean; inChrome: boolean } {
  const up = ancestors(el);
  let inFooter = false;
  let inChrome = false;
  for (const [i, a] of up.entries()) {
    const role = attr(a, 'role');
    // A header or footer inside main, article, section or aside belongs to that content.
    const pageLevel = !up.slice(i + 1).some((b) => SECTIONING.has(b.tagName));
    if (a.tagName === 'nav' || role === 'navigation') inChrome = true;
    if ((a.tagName === 'footer' && pageLevel) || role === 'contentinfo') inFooter = inChrome = true;
    if ((a.tagName === 'header' && pageLevel) || role === 'banner') inChrome = true;
  }
  return { inFooter, inChrome };
}

function linkText(a: Element): string {
  const text = clean(textOf(a, HIDDEN));
  if (text) return text;
  const img = [...walk(a)].find((e) => e.tagName === 'img' && attr(e, 'alt'));
  return clean(attr(a, 'aria-label') ?? attr(a, 'title') ?? (img ? attr(img, 'alt')! : ''));
}

function resolve(href: string, base: string): URL | null {
  try {
    return new URL(href.trim(), base);
  } catch {
    return null;
  }
}

const HEADING = /^h([1-6])$/;
const TEXT_BLOCKS = new Set(['p', 'dt', 'dd', 'td', 'th', 'blockquote', 'pre', 'caption', 'figcaption', 'summary', 'address']);

function blocksOf(root: Node): Block[] {
  const out: Block[] = [];
  let loose = '';
  const flush = () => {
    const text = clean(loose);
    if (text) out.push({ kind: 'text', text });
    loose = '';
  };
  const visit = (node: Node) => {
    if (node.nodeName === '#text') return void (loose += (node as DefaultTreeAdapterTypes.TextNode).value);
    if (!isElement(node)) return;
    if (HIDDEN.has(node.tagName) || node.tagName === 'nav' || attr(node, 'hidden') !== null) return;
    const heading = HEADING.exec(node.tagName);
    const kind = heading ? 'heading' : node.tagName === 'li' ? 'item' : TEXT_BLOCKS.has(node.tagName) ? 'text' : null;
    if (kind) {
      flush();
      const text = clean(textOf(node, HIDDEN));
      if (text) out.push(kind === 'heading' ? { kind, level: Number(heading![1]), text } : { kind, text });
      // A list item holding a list: its items count too.
      if (kind === 'item') for (const c of children(node)) if (isElement(c) && (c.tagName === 'ul' || c.tagName === 'ol')) visit(c);
      return;
    }
    if (BLOCKS.has(node.tagName)) flush();
    for (const c of children(node)) visit(c);
    if (BLOCKS.has(node.tagName)) flush();
  };
  visit(root);
  flush();
  return out;
}

/** Reads a served HTML page; `url` is the address it was answered from (after redirects). */
export function readPage(html: string, url: string): Page {
  const doc = parse(html);
  const all = [...walk(doc)];
  const body = all.find((e) => e.tagName === 'body');
  const titleEl = all.find((e) => e.tagName === 'title');
  const baseHref = all.find((e) => e.tagName === 'base' && attr(e, 'href'));
  const base = (baseHref && resolve(attr(baseHref, 'href')!, url)?.href) || url;
  const inBody = body ? [...walk(body)] : [];

  const links: PageLink[] = inBody
    .filter((e) => e.tagName === 'a' && attr(e, 'href') !== null)
    .map((a) => ({ href: attr(a, 'href')!, url: resolve(attr(a, 'href')!, base), text: linkText(a), ...chromeOf(a) }));
  const forms = inBody
    .filter((f) => f.tagName === 'form' && !chromeOf(f).inChrome)
    .filter((f) => {
      // A search box is no feedback function.
      const fields = [...walk(f)].filter((e) => e.tagName === 'input' || e.tagName === 'textarea');
      const search = attr(f, 'role') === 'search' || fields.some((e) => attr(e, 'type') === 'search' || /^(q|query|search|s|sok|sök)$/i.test(attr(e, 'name') ?? ''));
      return !search && fields.some((e) => e.tagName === 'textarea' || !['hidden', 'submit', 'button'].includes(attr(e, 'type') ?? 'text'));
    })
    .map((f) => ({ action: resolve(attr(f, 'action') ?? '', base)?.href ?? '', text: clean(textOf(f, HIDDEN)) }));

  return {
    url,
    title: titleEl ? clean(textOf(titleEl, new Set())) : '',
    h1: inBody.filter((e) => e.tagName === 'h1').map((h) => clean(textOf(h, HIDDEN))).filter(Boolean),
    links,
    forms,
    statementText: body ? clean(textOf(body, NOT_STATEMENT_TEXT)) : '',
    blocks: body ? blocksOf(body) : [],
  };
}
