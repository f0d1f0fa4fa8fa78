/**
 * The one way untrusted XML (sitemaps, feeds) is parsed: namespace prefixes and attributes
 * dropped, and no entity expansion in the parser (a DOCTYPE could define a billion laughs).
 */
import { XMLParser } from 'fast-xml-parser';

/** A parser for untrusted XML; the named elements always parse as arrays. */
export function untrustedXmlParser(arrayElements: readonly string[]): XMLParser {
  return new XMLParser({
    removeNSPrefix: true,
    ignoreAttributes: true,
    ignoreDeclaration: true,
    ignorePiTags: true,
    processEntities: false,
    isArray: (name) => arrayElements.includes(name),
  });
}
