/**
 * A body's text in the encoding it is served in, decoded as a browser decodes it (the WHATWG
 * encoding sniffing, without the guessing step): a byte-order mark, else the charset of the
 * Content-Type header, else, for HTML (or a body without a type), a `<meta charset>` or http-equiv
 * in the first 1024 bytes, else UTF-8. Labels are the WHATWG encoding labels of TextDecoder:
 * "iso-8859-1" reads as windows-1252, as browsers read it. Read as UTF-8 regardless, "förenlig"
 * served as ISO-8859-1 would become "f�renlig". The probes (probes.ts) decode every body so.
 */

const BOMS: [number[], string][] = [[[0xef, 0xbb, 0xbf], 'utf-8'], [[0xfe, 0xff], 'utf-16be'], [[0xff, 0xfe], 'utf-16le']];
const HEADER_CHARSET = /charset\s*=\s*["']?([^"';\s]+)/i;
/** The meta prescan, on the first 1024 bytes read as Latin-1 (bounded: no page makes it slow). */
const META_CHARSET = /<meta\b[^>]*?charset\s*=\s*["']?\s*([^"'\s/>;]+)/i;

/** The encoding a label names; null for a label TextDecoder does not know. */
function encodingNamed(label: string | null | undefined): string | null {
  if (!label) return null;
  try {
    return new TextDecoder(label.trim()).encoding;
  } catch {
    return null;
  }
}

/** Whether a browser would prescan the body for a `<meta charset>`: HTML, or no type at all. */
function mayBeHtml(contentType: string | undefined): boolean {
  const type = contentType?.split(';')[0].trim().toLowerCase();
  return !type || type === 'text/html' || type === 'application/xhtml+xml';
}

/** The encoding a body's bytes are decoded with, by the order the HTML standard gives. */
export function encodingOf(bytes: Uint8Array, contentType: string | undefined): string {
  const bom = BOMS.find(([mark]) => mark.every((b, i) => bytes[i] === b));
  if (bom) return bom[1];
  const header = encodingNamed(HEADER_CHARSET.exec(contentType ?? '')?.[1]);
  if (header) return header;
  if (!mayBeHtml(contentType)) return 'utf-8';
  const meta = encodingNamed(META_CHARSET.exec(Buffer.from(bytes.subarray(0, 1024)).toString('latin1'))?.[1]);
  // A meta naming UTF-16 in a document the prescan read as ASCII is UTF-8 (the HTML standard).
  return !meta || meta.startsWith('utf-16') ? 'utf-8' : meta;
}

/** The body's text (without a byte-order mark). */
export function decodeBody(bytes: Uint8Array, contentType: string | undefined): string {
  return new TextDecoder(encodingOf(bytes, contentType)).decode(bytes);
}
