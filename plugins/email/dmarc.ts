/**
 * DMARC (RFC 7489): the policy record at `_dmarc.<domain>`, parsed tag by tag (section 6.3 and the
 * ABNF of 6.4), with the problems upstream reports: invalid values are errors, tags written with
 * their default value are warnings. adkim is parsed (upstream's handler key "adkim:" never
 * matches), fo and rf are colon-separated lists (upstream splits fo on commas), and pct outside
 * 0..100 is an error (upstream's range test can never be true).
 */
import { isMailtoAddress } from './syntax.js';
export type DmarcPolicy = 'none' | 'quarantine' | 'reject';

/** One problem of the record: an error (invalid) or a warning (a default written out, a tag out of place). */
export interface DmarcIssue {
  rule: string;
  tag: string;
  value: string;
}

export interface ParsedDmarc {
  /** Every tag as written, in order (names lower-cased). */
  tags: { name: string; value: string }[];
  p: DmarcPolicy | null;
  sp: DmarcPolicy | null;
  adkim: 'r' | 's' | null;
  aspf: 'r' | 's' | null;
  /** The percentage in force: as written, 100 when absent (the default), null when invalid. */
  pct: number | null;
  fo: string[];
  rf: string[];
  ri: number | null;
  rua: string[];
  ruf: string[];
  /** Tags this version does not define: ignored (section 6.3). */
  unknown: string[];
  errors: DmarcIssue[];
  warnings: DmarcIssue[];
}

/** A TXT record is a DMARC record when it begins with the version tag v=DMARC1 (section 6.6.3; the tag name is case-insensitive, DMARC1 is not). */
export function isDmarcRecord(txt: string): boolean {
  return /^[vV]\s*=\s*DMARC1\s*(;|$)/.test(txt);
}

const POLICIES = new Set(['none', 'quarantine', 'reject']);
const FO = new Set(['0', '1', 'd', 's']);
const RF = new Set(['afrf']);
const KNOWN = new Set(['v', 'p', 'sp', 'adkim', 'aspf', 'pct', 'fo', 'rf', 'ri', 'rua', 'ruf']);

/** A dmarc-uri (section 6.4): a URI, optionally "!" and a size limit; a mailto: must name an address. */
export function isDmarcUri(text: string): boolean {
  const m = /^([^!]+)(?:!\d+[kmgt]?)?$/i.exec(text);
  if (!m) return false;
  const uri = m[1]!;
  if (!/^[a-z][a-z0-9+.-]*:\S+$/i.test(uri)) return false;
  if (/^mailto:/i.test(uri)) return isMailtoAddress(uri);
  try {
    new URL(uri);
    return true;
  } catch {
    return false;
  }
}

/** The domain of a mailto: report address (without any size limit); null for other URIs. */
export function mailtoDomain(text: string): string | null {
  const m = /^mailto:[^@]+@([^!?]+)/i.exec(text);
  return m ? m[1]!.toLowerCase().replace(/\.$/, '') : null;
}

/** Parses a DMARC record (one that isDmarcRecord accepts). */
export function parseDmarc(record: string): ParsedDmarc {
  const out: ParsedDmarc = {
    tags: [], p: null, sp: null, adkim: null, aspf: null, pct: null, fo: [], rf: [], ri: null, rua: [], ruf: [], unknown: [], errors: [], warnings: [],
  };
  const error = (rule: string, tag: string, value: string) => out.errors.push({ rule, tag, value });
  const warning = (rule: string, tag: string, value: string) => out.warnings.push({ rule, tag, value });
  const sections = record.split(';').map((s) => s.trim());
  // One trailing separator is allowed (dmarc-record ends in an optional dmarc-sep).
  if (sections.length > 1 && sections[sections.length - 1] === '') sections.pop();
  const seen = new Set<string>();
  let pct: number | null = 100;
  for (const section of sections) {
    if (section === '') {
      error('dmarc-empty-section', '', '');
      continue;
    }
    const eq = section.indexOf('=');
    if (eq <= 0) {
      error('dmarc-malformed', section, '');
      continue;
    }
    const name = section.slice(0, eq).trim().toLowerCase();
    const value = section.slice(eq + 1).trim();
    out.tags.push({ name, value });
    if (!KNOWN.has(name)) {
      out.unknown.push(name);
      continue;
    }
    if (seen.has(name)) {
      error('dmarc-duplicate-tag', name, value);
      continue;
    }
    seen.add(name);
    const lower = value.toLowerCase();
    switch (name) {
      case 'v':
        break;
      case 'p':
      case 'sp':
        if (POLICIES.has(lower)) out[name] = lower as DmarcPolicy;
        else error(name === 'p' ? 'dmarc-policy-invalid' : 'dmarc-subpolicy-invalid', name, value);
        break;
      case 'adkim':
      case 'aspf':
        if (lower === 's') out[name] = 's';
        else if (lower === 'r') {
          out[name] = 'r';
          warning(`dmarc-${name}-default`, name, value);
        } else error(`dmarc-${name}-invalid`, name, value);
        break;
      case 'pct':
        if (/^\d{1,3}$/.test(value) && Number(value) <= 100) {
          pct = Number(value);
          if (pct === 100) warning('dmarc-pct-default', name, value);
        } else {
          pct = null;
          error('dmarc-pct-invalid', name, value);
        }
        break;
      case 'fo':
      case 'rf': {
        const list = value.split(':').map((s) => s.trim().toLowerCase());
        const allowed = name === 'fo' ? FO : RF;
        if (list.some((item) => !allowed.has(item))) error(`dmarc-${name}-invalid`, name, value);
        else {
          out[name] = list;
          if (list.length === 1 && list[0] === (name === 'fo' ? '0' : 'afrf')) warning(`dmarc-${name}-default`, name, value);
        }
        break;
      }
      case 'ri':
        if (/^\d{1,10}$/.test(value) && Number(value) <= 4_294_967_295) {
          out.ri = Number(value);
          if (out.ri === 86_400) warning('dmarc-ri-default', name, value);
        } else error('dmarc-ri-invalid', name, value);
        break;
      case 'rua':
      case 'ruf': {
        const uris = value.split(',').map((s) => s.trim());
        const bad = uris.filter((u) => !isDmarcUri(u));
        if (bad.length > 0) error(`dmarc-${name}-invalid`, name, value);
        out[name] = uris.filter((u) => isDmarcUri(u));
        break;
      }
    }
  }
  // "v" and "p" MUST appear in that order (section 6.3): receivers read it anyway, so a warning.
  const pIndex = out.tags.findIndex((t) => t.name === 'p');
  if (pIndex > 1) warning('dmarc-policy-not-second', 'p', out.tags[pIndex]!.value);
  if (out.fo.length > 0 && out.ruf.length === 0) error('dmarc-fo-without-ruf', 'fo', out.fo.join(':'));
  if (out.rua.length === 0 && !out.errors.some((e) => e.tag === 'rua')) warning('dmarc-rua-missing', 'rua', '');
  out.pct = pct;
  return out;
}
