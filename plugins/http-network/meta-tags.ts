/**
 * The <meta> elements that stand in for headers, read from the page's HTML as the MDN HTTP
 * Observatory reads them (it parses with jsdom; this is a tokeniser that follows the same rules
 * for what counts): every <meta http-equiv="Content-Security-Policy" content="…"> with a
 * non-empty content, and the last <meta name="referrer" content="…">. Comments and the contents
 * of elements whose text is not markup (script, style, textarea, title, template, noscript…) are
 * skipped, attribute names are case-insensitive and the first of a repeated attribute counts.
 */

export interface MetaEquivalents {
  csp: string[];
  referrer: string | null;
}

/** Elements whose contents are not read as elements (noscript: scripting is on, as in jsdom). */
const OPAQUE = ['script', 'style', 'textarea', 'title', 'template', 'noscript', 'xmp', 'iframe', 'noembed', 'noframes'];
const OPAQUE_CONTENT = new RegExp(`<(${OPAQUE.join('|')})\\b[^>]*>[\\s\\S]*?(?:</\\1\\s*>|$)`, 'gi');

const ENTITIES: Record<string, string> = { amp: '&', quot: '"', apos: "'", lt: '<', gt: '>', semi: ';', nbsp: '\u00a0', comma: ',', colon: ':', sol: '/', ast: '*', lowbar: '_' };

function decode(value: string): string {
  return value.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (whole, ref: string) => {
    if (ref[0] === '#') {
      const code = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[ref.toLowerCase()] ?? whole;
  });
}

/** The attributes of a start tag from just after its name; the first of a repeated name counts. */
function attributes(html: string, from: number): Map<string, string> {
  const attrs = new Map<string, string>();
  const pattern = /[\s/]*([^\s/>=][^\s/>=]*)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+)))?|[\s/]*>/y;
  pattern.lastIndex = from;
  for (let m = pattern.exec(html); m && m[1] !== undefined; m = pattern.exec(html)) {
    const name = m[1].toLowerCase();
    if (!attrs.has(name)) attrs.set(name, decode(m[2] ?? m[3] ?? m[4] ?? ''));
  }
  return attrs;
}

export function readMetaTags(html: string): MetaEquivalents {
  const markup = html.replace(/<!--[\s\S]*?(?:-->|$)/g, '').replace(OPAQUE_CONTENT, '');
  const out: MetaEquivalents = { csp: [], referrer: null };
  for (const m of markup.matchAll(/<meta(?=[\s/>])/gi)) {
    const attrs = attributes(markup, m.index + m[0].length);
    const content = attrs.get('content');
    if (attrs.has('http-equiv') && content !== undefined) {
      if (attrs.get('http-equiv')!.trim().toLowerCase() === 'content-security-policy' && content) out.csp.push(content);
    } else if (attrs.get('name')?.trim().toLowerCase() === 'referrer' && content) {
      out.referrer = content;
    }
  }
  return out;
}
