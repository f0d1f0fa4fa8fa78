/**
 * Reading a fetched HTML page as text, without a browser: title, first heading, visible text of
 * the body and the lang attribute. Enough for judging a not-found page, not a general parser.
 */

const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

function decode(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, ref: string) => {
    if (ref[0] === '#') {
      const code = ref[1].toLowerCase() === 'x' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return NAMED[ref.toLowerCase()] ?? whole;
  });
}

/** Tags removed, entities decoded, whitespace collapsed. */
function textOf(html: string): string {
  return decode(html.replace(/<[^>]*>/g, ' ')).replace(/\s+/g, ' ').trim();
}

const withoutComments = (html: string) => html.replace(/<!--[\s\S]*?-->/g, '');

/** What a not-found page is judged on. */
export interface PageFacts {
  title: string;
  heading: string;
  /** Characters (code points) of visible body text. */
  textLength: number;
  lang: string;
}

export function readPage(source: string): PageFacts {
  const html = withoutComments(source);
  const title = textOf(/<title\b[^>]*>([\s\S]*?)<\/title\s*>/i.exec(html)?.[1] ?? '');
  const headingOf = (tags: string) => {
    const m = new RegExp(`<(${tags})\\b[^>]*>([\\s\\S]*?)<\\/\\1\\s*>`, 'i').exec(html);
    return m ? textOf(m[2]) : '';
  };
  const heading = headingOf('h1') || headingOf('h2|h3|h4|h5|h6');
  const body = /<body\b[^>]*>([\s\S]*)/i.exec(html)?.[1] ?? html.replace(/<head\b[\s\S]*?<\/head\s*>/i, '');
  const visible = body.replace(/<(script|style|template|noscript|svg)\b[\s\S]*?<\/\1\s*>/gi, ' ');
  const lang = /<html\b[^>]*?\slang\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/i.exec(html);
  return {
    title,
    heading,
    textLength: Array.from(textOf(visible)).length,
    lang: (lang?.[1] ?? lang?.[2] ?? lang?.[3] ?? '').trim(),
  };
}

/** Primary language subtag, lower-case: 'sv-SE' → 'sv'. */
export function primaryLang(tag: string): string {
  return tag.trim().toLowerCase().split(/[-_]/, 1)[0];
}
