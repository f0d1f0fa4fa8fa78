/**
 * MTA-STS (RFC 8461): the `_mta-sts` TXT record (section 3.1), the policy file (section 3.2) and
 * whether the policy's mx patterns cover the domain's MX hosts (section 4.1). Unknown fields are
 * ignored, as the RFC says (upstream calls a policy with one invalid); of a field other than mx
 * written twice the first counts. Lines and fields are split and trimmed by hand (syntax.ts), not
 * by patterns that backtrack on long runs of spaces.
 */
import { trimWsp } from './syntax.js';

/** A TXT record is an MTA-STS record when it begins with "v=STSv1" and a field separator (section 3.1). */
export function isMtaStsRecord(txt: string): boolean {
  return /^v=STSv1[ \t]*(;|$)/.test(txt);
}

export interface ParsedMtaStsRecord {
  valid: boolean;
  id: string | null;
  /** Extension fields, ignored. */
  extensions: string[];
  problems: ('id-missing' | 'id-invalid' | 'field-invalid')[];
}

/**
 * Parses an MTA-STS TXT record (one that isMtaStsRecord accepts) by section 3.1's grammar: fields
 * after the version, split by ";" with optional spaces around it and one ";" allowed at the end;
 * each `name *WSP "=" *WSP value`. The id is 1-32 letters and digits; an extension's name is a
 * letter or digit then up to 31 of those, "_", "-" or "."; its value one or more printable
 * characters other than ";" and "=". A record that breaks any of it is invalid: the domain does
 * not support MTA-STS (section 3.1: "discovery stops"), whatever policy file it serves.
 */
export function parseMtaStsRecord(txt: string): ParsedMtaStsRecord {
  const out: ParsedMtaStsRecord = { valid: false, id: null, extensions: [], problems: [] };
  const problem = (p: ParsedMtaStsRecord['problems'][number]) => void (out.problems.includes(p) || out.problems.push(p));
  const fields = txt.split(';').map(trimWsp);
  if (fields.length > 1 && fields[fields.length - 1] === '') fields.pop();
  for (const field of fields.slice(1)) {
    const eq = field.indexOf('=');
    const name = eq < 0 ? field : trimWsp(field.slice(0, eq));
    const value = eq < 0 ? '' : trimWsp(field.slice(eq + 1));
    if (name === 'id') {
      if (out.id !== null) continue;
      if (/^[A-Za-z0-9]{1,32}$/.test(value)) out.id = value;
      else problem('id-invalid');
    } else if (eq < 0 || !/^[A-Za-z0-9][A-Za-z0-9_.-]{0,31}$/.test(name) || !/^[\x21-\x3a\x3c\x3e-\x7e]+$/.test(value)) {
      problem('field-invalid');
    } else out.extensions.push(name);
  }
  if (out.id === null && !out.problems.includes('id-invalid')) out.problems.push('id-missing');
  out.valid = out.problems.length === 0;
  return out;
}

export type MtaStsMode = 'enforce' | 'testing' | 'none';
export type MtaStsPolicyProblem =
  | 'line-invalid'
  | 'version-missing'
  | 'version-invalid'
  | 'mode-missing'
  | 'mode-invalid'
  | 'max-age-missing'
  | 'max-age-invalid'
  | 'mx-missing'
  | 'mx-invalid'
  /** The file is longer than 64 KiB (set by the plugin, which reads no more of it). */
  | 'too-large';

export interface ParsedMtaStsPolicy {
  valid: boolean;
  version: string | null;
  /** The mode as written (problems say when it is none of enforce, testing, none). */
  mode: string | null;
  max_age: number | null;
  mx: string[];
  /** Extension fields, ignored. */
  extensions: string[];
  problems: MtaStsPolicyProblem[];
}

const FIELD_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,31}$/;
const LABEL = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;

/** An mx line's value: a host name of two labels or more, "*." before it allowed, a final dot too. */
function isMxPattern(value: string): boolean {
  const labels = value.replace(/^\*\./, '').replace(/\.$/, '').split('.');
  return labels.length >= 2 && labels.every((l) => LABEL.test(l));
}

/** The longest max_age (section 3.2): a year. */
export const MAX_AGE_LIMIT = 31_557_600;

/** Parses a policy file's text (section 3.2): key: value lines ending in LF or CRLF. */
export function parseMtaStsPolicy(text: string): ParsedMtaStsPolicy {
  const out: ParsedMtaStsPolicy = { valid: false, version: null, mode: null, max_age: null, mx: [], extensions: [], problems: [] };
  const problem = (p: MtaStsPolicyProblem) => void (out.problems.includes(p) || out.problems.push(p));
  let maxAge: string | null = null;
  for (const line of text.split(/\r?\n/)) {
    if (line.trim() === '') continue;
    // key ":" *WSP value *WSP; a line ending other than LF or CRLF is no part of a value.
    const colon = line.indexOf(':');
    const key = line.slice(0, Math.max(colon, 0));
    if (colon < 0 || !FIELD_NAME.test(key) || /[\r\u2028\u2029]/.test(line)) {
      problem('line-invalid');
      continue;
    }
    const value = trimWsp(line.slice(colon + 1));
    switch (key) {
      case 'version':
        out.version ??= value;
        break;
      case 'mode':
        out.mode ??= value;
        break;
      case 'max_age':
        maxAge ??= value;
        break;
      case 'mx':
        if (isMxPattern(value)) out.mx.push(value.toLowerCase().replace(/\.$/, ''));
        else problem('mx-invalid');
        break;
      default:
        out.extensions.push(key);
    }
  }
  if (out.version === null) problem('version-missing');
  else if (out.version !== 'STSv1') problem('version-invalid');
  if (out.mode === null) problem('mode-missing');
  else if (!['enforce', 'testing', 'none'].includes(out.mode)) problem('mode-invalid');
  if (maxAge === null) problem('max-age-missing');
  else if (/^\d{1,10}$/.test(maxAge) && Number(maxAge) <= MAX_AGE_LIMIT) out.max_age = Number(maxAge);
  else problem('max-age-invalid');
  // mx is required at least once, except in mode none.
  if (out.mx.length === 0 && out.mode !== 'none' && !out.problems.includes('mx-invalid')) problem('mx-missing');
  out.valid = out.problems.length === 0;
  return out;
}

/** Whether an MX host matches a policy's mx pattern (section 4.1): equal, or "*." and exactly one label more. */
export function mxMatches(host: string, pattern: string): boolean {
  const h = host.toLowerCase().replace(/\.$/, '');
  const p = pattern.toLowerCase().replace(/\.$/, '');
  if (!p.startsWith('*.')) return h === p;
  const dot = h.indexOf('.');
  return dot > 0 && h.slice(dot + 1) === p.slice(2);
}
