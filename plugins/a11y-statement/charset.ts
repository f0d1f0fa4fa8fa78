/**
 * A crawled page's text in the encoding it is served in. The probe's `body` is its bytes read as
 * UTF-8, which turns "förenlig" served as ISO-8859-1 into "f�renlig"; the bytes ride beside the
 * answer (probeBody), and are decoded here as a browser would: a byte-order mark, else the
 * charset of the Content-Type header, else a `<meta charset>` (or http-equiv) in the first
 * 1024 bytes, else UTF-8 (the WHATWG encoding labels of TextDecoder: "iso-8859-1" reads as
 * windows-1252, as browsers read it).
 */
import { probeBody } from '../../core/net/probes.js';
import type { ProbeResponse } from '../../core/plugin-api.js';

const BOMS: [number[], string][] = [[[0xef, 0xbb, 0xbf], 'utf-8'], [[0xfe, 0xff], 'utf-16be'], [[0xff, 0xfe], 'utf-16le']];
const HEADER_CHARSET = /charset\s*=\s*["']?([^"';\s]+)/i;
/** The meta prescan, on the first 1024 bytes read as Latin-1 (bounded: no page makes it slow). */
const META_CHARSET = /<meta\b[^>]*?charset\s*=\s*["']?\s*([^"'\s/>;]+)/i;

function decoderFor(label: string | null | undefined): TextDecoder | null {
  if (!label) return null;
  try {
    const decoder = new TextDecoder(label.trim());
    // A meta naming UTF-16 in a document the prescan read as ASCII is UTF-8 (the HTML standard).
    return decoder.encoding.startsWith('utf-16') ? new TextDecoder('utf-8') : decoder;
  } catch {
    return null; // a label TextDecoder does not know
  }
}

/** The encoding a page's bytes are decoded with, by the order the HTML standard gives. */
export function encodingOf(bytes: Uint8Array, contentType: string | undefined): string {
  const bom = BOMS.find(([mark]) => mark.every((b, i) => bytes[i] === b));
  if (bom) return bom[1];
  const header = decoderFor(HEADER_CHARSET.exec(contentType ?? '')?.[1]);
  if (header) return header.encoding;
  const head = Buffer.from(bytes.subarray(0, 1024)).toString('latin1');
  return decoderFor(META_CHARSET.exec(head)?.[1])?.encoding ?? 'utf-8';
}

/** The page's text, decoded from its bytes; the probe's UTF-8 text when the bytes are not known (a test's own probes). */
export function pageText(answer: ProbeResponse): { text: string; encoding: string } {
  const raw = probeBody(answer);
  if (!raw) return { text: answer.body, encoding: 'utf-8' };
  const encoding = encodingOf(raw.bytes, answer.headers['content-type']);
  if (encoding === 'utf-8') return { text: answer.body, encoding };
  return { text: new TextDecoder(encoding).decode(raw.bytes), encoding };
}
