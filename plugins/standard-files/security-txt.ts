/**
 * security.txt (RFC 9116) at /.well-known/security.txt: served as text/plain, with at least one
 * Contact and exactly one Expires, a valid RFC 3339 date-time that has not passed. The RFC
 * recommends Expires less than a year ahead, so a later date is a warning.
 * Findings here rate infosec.
 */
import type { Finding, Probes } from '../../core/plugin-api.js';
import { isFile, mediaType } from './answers.js';
import { STRINGS } from './strings.js';

/** json_check_data.security_txt (the URL is left out of what is stored). */
export interface SecurityTxtData {
  url: string;
  status: number;
  found: boolean;
  contact: string[];
  expires: string | null;
  /** Null when there is no valid Expires to judge. */
  expired: boolean | null;
}

const YEAR_MS = 365 * 86_400_000;
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})$/;

/** The signed content of an OpenPGP cleartext-signed file, else the text itself. */
function unsigned(text: string): string {
  const m = /-----BEGIN PGP SIGNED MESSAGE-----\r?\n(?:[^\r\n]+\r?\n)*\r?\n([\s\S]*?)\r?\n-----BEGIN PGP SIGNATURE-----/.exec(text);
  return m ? m[1].replace(/^- /gm, '') : text;
}

/** Field name (lower-case) to values, comments and blank lines left out. */
export function parseSecurityTxt(text: string): Map<string, string[]> {
  const fields = new Map<string, string[]>();
  for (const raw of unsigned(text).split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const m = /^([A-Za-z0-9-]+)\s*:\s*(.*)$/.exec(line);
    if (!m) continue;
    const name = m[1].toLowerCase();
    fields.set(name, [...(fields.get(name) ?? []), m[2].trim()]);
  }
  return fields;
}

export async function checkSecurityTxt(probes: Probes, origin: string, now = Date.now()): Promise<{ data: SecurityTxtData; findings: Finding[] }> {
  const url = `${origin}/.well-known/security.txt`;
  const res = await probes.fetch(url);
  const found = isFile(res) && mediaType(res) === 'text/plain';
  const data: SecurityTxtData = { url, status: res.status, found, contact: [], expires: null, expired: null };
  const findings: Finding[] = [];
  const add = (rule: string, severity: 'error' | 'warning', text: (typeof STRINGS)['securityTxtMissing']) =>
    findings.push({ rule, category: 'infosec', severity, text });
  if (!found) {
    add('security-txt-missing', 'warning', STRINGS.securityTxtMissing);
    return { data, findings };
  }
  const fields = parseSecurityTxt(res.body);
  data.contact = fields.get('contact') ?? [];
  const expires = fields.get('expires') ?? [];
  data.expires = expires[0] ?? null;
  if (data.contact.length === 0) add('security-txt-contact-missing', 'error', STRINGS.securityTxtContactMissing);
  if (expires.length === 0) {
    add('security-txt-expires-missing', 'error', STRINGS.securityTxtExpiresMissing);
  } else if (expires.length > 1 || !RFC3339.test(expires[0]) || Number.isNaN(Date.parse(expires[0]))) {
    add('security-txt-expires-invalid', 'error', STRINGS.securityTxtExpiresInvalid(expires.join(', ')));
  } else {
    const at = Date.parse(expires[0]);
    data.expired = at < now;
    if (data.expired) add('security-txt-expired', 'error', STRINGS.securityTxtExpired(expires[0]));
    else if (at - now > YEAR_MS) add('security-txt-expires-too-far', 'warning', STRINGS.securityTxtExpiresTooFar(expires[0]));
  }
  return { data, findings };
}
