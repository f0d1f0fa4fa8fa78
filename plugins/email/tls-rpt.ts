/**
 * SMTP TLS Reporting (RFC 8460): the `_smtp._tls.<domain>` TXT record (section 3), which tells
 * sending servers where to report failed or refused TLS (MTA-STS, DANE) to the domain.
 */
import { isMailtoAddress, trimWsp } from './syntax.js';

/** A TXT record is a TLS-RPT record when it begins with "v=TLSRPTv1" and a field separator (section 3). */
export function isTlsRptRecord(txt: string): boolean {
  return /^v=TLSRPTv1[ \t]*(;|$)/.test(txt);
}

export interface ParsedTlsRpt {
  valid: boolean;
  /** The report addresses: mailto: and https: URIs. */
  rua: string[];
  /** Extension fields, ignored. */
  extensions: string[];
  problems: ('rua-missing' | 'rua-invalid' | 'field-invalid')[];
}

/** A tlsrpt-uri: a mailto: with an address or an https: URL. */
export function isTlsRptUri(uri: string): boolean {
  if (/^mailto:/i.test(uri)) return isMailtoAddress(uri);
  if (!/^https:\/\//i.test(uri)) return false;
  try {
    return new URL(uri).hostname !== '';
  } catch {
    return false;
  }
}

/** Parses a TLS-RPT record (one that isTlsRptRecord accepts). */
export function parseTlsRpt(txt: string): ParsedTlsRpt {
  const out: ParsedTlsRpt = { valid: false, rua: [], extensions: [], problems: [] };
  const problem = (p: ParsedTlsRpt['problems'][number]) => void (out.problems.includes(p) || out.problems.push(p));
  const fields = txt.split(';').map(trimWsp);
  if (fields.length > 1 && fields[fields.length - 1] === '') fields.pop();
  let seenRua = false;
  for (const field of fields.slice(1)) {
    const m = /^([A-Za-z0-9][A-Za-z0-9_.-]{0,31})=(.+)$/.exec(field);
    if (!m) {
      problem('field-invalid');
      continue;
    }
    if (m[1] === 'rua') {
      if (seenRua) continue;
      seenRua = true;
      const uris = m[2]!.split(',').map(trimWsp);
      if (uris.some((u) => !isTlsRptUri(u))) problem('rua-invalid');
      out.rua = uris.filter(isTlsRptUri);
    } else if (/^[\x21-\x3a\x3c\x3e-\x7e]+$/.test(m[2]!)) out.extensions.push(m[1]!);
    else problem('field-invalid');
  }
  if (!seenRua) problem('rua-missing');
  out.valid = out.problems.length === 0;
  return out;
}
