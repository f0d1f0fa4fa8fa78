/**
 * Small text checks the e-mail records share, written as loops rather than regular expressions:
 * patterns such as /[ \t]+$/ or /[^@]+\.[^@]+$/ backtrack quadratically on a long run of the
 * characters they repeat, and a record or policy file is text any domain may make 64 KiB long.
 */

const isWsp = (c: string | undefined) => c === ' ' || c === '\t';

/** The text without leading and trailing spaces and tabs (WSP of RFC 5234). */
export function trimWsp(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && isWsp(text[start])) start++;
  while (end > start && isWsp(text[end - 1])) end--;
  return text.slice(start, end);
}

/** A mailto: URI naming one address, local@domain with a dot inside the domain, no space, comma or semicolon. */
export function isMailtoAddress(uri: string): boolean {
  if (!/^mailto:/i.test(uri)) return false;
  const address = uri.slice('mailto:'.length);
  if (/[\s,;]/.test(address)) return false;
  const at = address.indexOf('@');
  if (at <= 0 || address.includes('@', at + 1)) return false;
  // A dot with at least one character on either side.
  return address.slice(at + 2, -1).includes('.');
}
