/**
 * Reading probe answers. Many sites answer every unknown path with 200 and an HTML page (a soft
 * 404), so "found" means more than status 200: the body must not be an HTML page.
 */
import { XMLValidator } from 'fast-xml-parser';
import { untrustedXmlParser } from '../../core/net/xml.js';
import type { ProbeResponse } from '../../core/plugin-api.js';

/** The media type of an answer, lower-case, without parameters ('' when missing). */
export function mediaType(res: ProbeResponse): string {
  return (res.headers['content-type'] ?? '').split(';', 1)[0].trim().toLowerCase();
}

/** An HTML page: by content type or by how the body starts. */
export function isHtml(res: ProbeResponse): boolean {
  return mediaType(res) === 'text/html' || /^\s*(?:<!--[\s\S]*?-->\s*)*<(?:!doctype\s+html|html)[\s>]/i.test(res.body);
}

/** Answered 200 with something that is not an HTML page. */
export function isFile(res: ProbeResponse): boolean {
  return res.status === 200 && !isHtml(res);
}

const parser = untrustedXmlParser(['url', 'sitemap', 'item', 'entry']);

/** A well-formed XML document: its root element's name (namespace prefix removed) and content. */
export function parseXml(text: string): { root: string; content: any } | null {
  if (!text.trim() || XMLValidator.validate(text) !== true) return null;
  try {
    const doc = parser.parse(text) as Record<string, unknown>;
    const root = Object.keys(doc).find((k) => !k.startsWith('?') && !k.startsWith('#'));
    return root ? { root, content: doc[root] } : null;
  } catch {
    return null;
  }
}
