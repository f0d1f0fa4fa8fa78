/**
 * SPF (RFC 7208): the record's syntax (section 12's ABNF), and what evaluating it would cost,
 * found by walking it and every record it names (include, redirect) through the dns probe, without
 * a sender address: the DNS lookups of section 4.6.4 (include, a, mx, ptr, exists and redirect
 * count; more than 10 is a permerror), the void lookups (more than 2 is a permerror), an mx with
 * more than 10 exchangers, ptr, and the `all` that ends the evaluation. Past either limit nothing
 * more is asked (checkSpf): at most 10 lookup terms reach DNS, whatever the records hold.
 */
import net from 'node:net';
import type { DnsAnswer, DnsRecordType } from '../../core/plugin-api.js';

export type SpfQualifier = '+' | '-' | '~' | '?';
export type SpfMechanismName = 'all' | 'include' | 'a' | 'mx' | 'ptr' | 'ip4' | 'ip6' | 'exists';

export interface SpfMechanism {
  term: string;
  qualifier: SpfQualifier;
  mechanism: SpfMechanismName;
  /** The domain-spec (include, a, mx, ptr, exists) or the network (ip4, ip6); null when none is written. */
  target: string | null;
  cidr4: number | null;
  cidr6: number | null;
}

export interface SpfModifier {
  term: string;
  name: string;
  value: string;
}

export type SpfSyntaxReason = 'unknown-mechanism' | 'syntax' | 'duplicate-modifier';

export interface ParsedSpf {
  /** Every mechanism, in order (those after `all` included; they are never evaluated). */
  mechanisms: SpfMechanism[];
  /** Every modifier, known or not (unknown ones are ignored, section 6). */
  modifiers: SpfModifier[];
  redirect: string | null;
  exp: string | null;
  /** The qualifier of the first `all`; null when the record has none. */
  all: SpfQualifier | null;
  /** Mechanisms after the first `all`: never evaluated (section 5.1). */
  afterAll: string[];
  problems: { term: string; reason: SpfSyntaxReason }[];
  /** Terms separated by more than one space: allowed (terms = *( 1*SP ...)), noted only. */
  multipleSpaces: boolean;
}

/** A TXT record is an SPF record when it begins with exactly "v=spf1", then a space or its end (section 4.5). */
export function isSpfRecord(txt: string): boolean {
  return /^v=spf1( |$)/i.test(txt);
}

const MACRO = /%\{([slodiphcrtv])(\d*)(r?)([.\-+,/_=]*)\}|%%|%_|%-/gi;
const TOPLABEL = /^(?=.*[a-z])[a-z0-9]+(?:-+[a-z0-9]+)*$|^[a-z0-9]+-[a-z0-9-]*[a-z0-9]$/i;

/**
 * Whether every % of a macro-string opens a macro-expand (section 7.1) that may stand there: a
 * digit transformer is non-zero (7.3), and c, r and t are exp text only (7.2), so they are taken
 * in an exp= modifier (`exp`) and nowhere else. `endsInMacro`: the string ends in a macro-expand.
 */
function scanMacros(text: string, exp: boolean): { valid: boolean; endsInMacro: boolean } {
  let valid = true;
  let endsInMacro = false;
  const literal = text.replace(MACRO, (whole: string, letter: string | undefined, digits: string | undefined, _r: string, _d: string, offset: number) => {
    if (letter && !exp && /[crt]/i.test(letter)) valid = false;
    if (digits && Number(digits) === 0) valid = false;
    if (offset + whole.length === text.length) endsInMacro = true;
    return '';
  });
  return { valid: valid && !literal.includes('%'), endsInMacro };
}

/** A domain-spec (section 7.1): a macro-string ending in a top label or a macro; `exp`: an exp= modifier's value. */
export function isDomainSpec(spec: string, options: { exp?: boolean } = {}): boolean {
  if (spec === '' || /[^\x21-\x7e]/.test(spec)) return false;
  const macros = scanMacros(spec, options.exp ?? false);
  if (!macros.valid) return false;
  if (macros.endsInMacro) return true;
  const labels = spec.replace(/\.$/, '').split('.');
  if (labels.length < 2) return false;
  return TOPLABEL.test(labels[labels.length - 1]!);
}

/**
 * The name a domain-spec stands for, evaluated for the domain `d`: only %{d} (with its
 * transformers and delimiters), %%, %_ and %- can be known without a message; null otherwise.
 */
export function expandDomainSpec(spec: string, d: string): string | null {
  let unknown = false;
  const out = spec.replace(MACRO, (whole, letter?: string, digits?: string, reverse?: string, delimiters?: string) => {
    if (whole === '%%') return '%';
    if (whole === '%_') return ' ';
    if (whole === '%-') return '%20';
    if (letter?.toLowerCase() !== 'd') {
      unknown = true;
      return '';
    }
    let parts = d.split(new RegExp(`[${(delimiters || '.').replace(/[-\\\]^]/g, '\\$&')}]`));
    if (reverse) parts = parts.reverse();
    if (digits) parts = parts.slice(-Math.max(1, Number(digits)));
    return parts.join('.');
  });
  if (unknown || /[\s%]/.test(out)) return null;
  return out.toLowerCase().replace(/\.$/, '');
}

const CIDR = /^(.*?)(?:\/(\d{1,3}))?(?:\/\/(\d{1,3}))?$/;

function parseCidr(rest: string): { spec: string; cidr4: number | null; cidr6: number | null } | null {
  const m = CIDR.exec(rest)!;
  const cidr4 = m[2] === undefined ? null : Number(m[2]);
  const cidr6 = m[3] === undefined ? null : Number(m[3]);
  if ((m[2] && /^0\d/.test(m[2])) || (m[3] && /^0\d/.test(m[3]))) return null;
  if ((cidr4 !== null && cidr4 > 32) || (cidr6 !== null && cidr6 > 128)) return null;
  return { spec: m[1]!, cidr4, cidr6 };
}

/** Parses one mechanism term; null when it is not a well-formed mechanism. */
function parseMechanism(term: string): SpfMechanism | { unknown: true } | null {
  const m = /^([+\-~?]?)([a-z][a-z0-9]*)(.*)$/i.exec(term);
  if (!m) return null;
  const qualifier = (m[1] || '+') as SpfQualifier;
  const name = m[2]!.toLowerCase();
  const rest = m[3]!;
  const mech = (mechanism: SpfMechanismName, target: string | null, cidr4: number | null = null, cidr6: number | null = null): SpfMechanism =>
    ({ term, qualifier, mechanism, target, cidr4, cidr6 });
  switch (name) {
    case 'all':
      return rest === '' ? mech('all', null) : null;
    case 'include':
    case 'exists': {
      const spec = rest.startsWith(':') ? rest.slice(1) : null;
      return spec !== null && isDomainSpec(spec) ? mech(name, spec) : null;
    }
    case 'ptr': {
      if (rest === '') return mech('ptr', null);
      const spec = rest.startsWith(':') ? rest.slice(1) : null;
      return spec !== null && isDomainSpec(spec) ? mech('ptr', spec) : null;
    }
    case 'a':
    case 'mx': {
      if (rest !== '' && !rest.startsWith(':') && !rest.startsWith('/')) return null;
      const parsed = parseCidr(rest);
      if (!parsed) return null;
      const spec = parsed.spec === '' ? null : parsed.spec.startsWith(':') ? parsed.spec.slice(1) : undefined;
      if (spec === undefined || (spec !== null && !isDomainSpec(spec))) return null;
      return mech(name, spec, parsed.cidr4, parsed.cidr6);
    }
    case 'ip4': {
      const v = /^:([0-9.]+)(?:\/(0|[1-9]\d?))?$/.exec(rest);
      if (!v || !net.isIPv4(v[1]!) || (v[2] !== undefined && Number(v[2]) > 32)) return null;
      return mech('ip4', v[1]!, v[2] === undefined ? null : Number(v[2]));
    }
    case 'ip6': {
      const v = /^:([0-9a-f:.]+)(?:\/(0|[1-9]\d{0,2}))?$/i.exec(rest);
      if (!v || !net.isIPv6(v[1]!) || (v[2] !== undefined && Number(v[2]) > 128)) return null;
      return mech('ip6', v[1]!, null, v[2] === undefined ? null : Number(v[2]));
    }
    default:
      return { unknown: true };
  }
}

/** Parses an SPF record (one that isSpfRecord accepts). */
export function parseSpf(record: string): ParsedSpf {
  const out: ParsedSpf = { mechanisms: [], modifiers: [], redirect: null, exp: null, all: null, afterAll: [], problems: [], multipleSpaces: false };
  const rest = record.slice('v=spf1'.length);
  out.multipleSpaces = / {2,}/.test(rest.trim());
  for (const term of rest.split(' ').filter(Boolean)) {
    const modifier = /^([a-z][a-z0-9_.-]*)=(.*)$/i.exec(term);
    if (modifier) {
      const name = modifier[1]!.toLowerCase();
      const value = modifier[2]!;
      out.modifiers.push({ term, name, value });
      if (name === 'redirect' || name === 'exp') {
        if (!isDomainSpec(value, { exp: name === 'exp' })) out.problems.push({ term, reason: 'syntax' });
        else if (out[name] !== null) out.problems.push({ term, reason: 'duplicate-modifier' });
        else out[name] = value;
      } else if (/[^\x21-\x7e]/.test(value) || !scanMacros(value, false).valid) {
        out.problems.push({ term, reason: 'syntax' });
      }
      continue;
    }
    const parsed = parseMechanism(term);
    if (parsed === null) out.problems.push({ term, reason: 'syntax' });
    else if ('unknown' in parsed) out.problems.push({ term, reason: 'unknown-mechanism' });
    else {
      if (out.all !== null) out.afterAll.push(term);
      else if (parsed.mechanism === 'all') out.all = parsed.qualifier;
      out.mechanisms.push(parsed);
    }
  }
  return out;
}

export type DnsAsk = (name: string, type: DnsRecordType) => Promise<DnsAnswer>;

export type SpfProblemReason =
  | SpfSyntaxReason
  | 'include-no-record'
  | 'include-multiple-records'
  | 'redirect-no-record'
  | 'redirect-multiple-records'
  | 'mx-too-many'
  | 'loop';

export interface SpfProblem {
  /** The domain whose record holds the term. */
  domain: string;
  term: string;
  reason: SpfProblemReason;
}

export interface SpfCheck {
  status: 'found' | 'missing' | 'multiple' | 'error';
  /** The domain's SPF record (the first, when there are several). */
  record: string | null;
  records: string[];
  /** The `all` that ends an evaluation: the record's own, or its redirect target's. */
  all: SpfQualifier | null;
  /** Where that `all` is written. */
  all_from: string | null;
  /** DNS lookups an evaluation makes at most (section 4.6.4): more than 10 is a permerror. */
  dns_lookups: number;
  /** Lookups that would find nothing (NXDOMAIN or no record): more than 2 is a permerror. */
  void_lookups: number;
  /**
   * The limit at which an evaluation ends in permerror, when one is passed: the terms after it
   * were counted without asking DNS, includes and redirects after it not followed.
   */
  stopped: 'dns-lookup-limit' | 'void-lookup-limit' | null;
  ptr: boolean;
  /** Domains whose records the evaluation reads (include and redirect targets), in order. */
  followed: string[];
  problems: SpfProblem[];
  /** Terms whose targets depend on the message (macros other than %{d}): counted, not followed. */
  unexpanded: string[];
  /** Names whose lookups failed (a temperror in an evaluation): not counted as void. */
  lookup_failures: string[];
  ip4: string[];
  ip6: string[];
  multiple_spaces: boolean;
  error?: string;
}

/** Lookup terms past this many end an evaluation in permerror (section 4.6.4). */
export const SPF_LOOKUP_LIMIT = 10;
/** Void lookups past this many end an evaluation in permerror (section 4.6.4). */
export const SPF_VOID_LIMIT = 2;

/** What a followed record (include or redirect target, with all it names) adds to an evaluation. */
interface Subtree {
  lookups: number;
  voids: number;
  all: SpfQualifier | null;
  allFrom: string | null;
}

const NO_ALL = { all: null, allFrom: null } as const;

const isVoid = (a: DnsAnswer) => a.status === 'nxdomain' || (a.status === 'ok' && a.records.length === 0);

/**
 * Checks the SPF record of `domain`, given its TXT answer (already asked). The walk asks one
 * question after another, in evaluation order; once the lookup terms pass 10, or the void lookups
 * pass 2, an evaluation has ended in permerror: the terms after are counted without asking DNS
 * (an include or redirect then is not followed, so dns_lookups is at least what it says), and no
 * more voids are found. It stops when `ask` rejects (the plugin's does once its signal aborts).
 */
export async function checkSpf(domain: string, txt: DnsAnswer, ask: DnsAsk): Promise<SpfCheck> {
  const out: SpfCheck = {
    status: 'missing', record: null, records: [], all: null, all_from: null, dns_lookups: 0, void_lookups: 0, stopped: null, ptr: false,
    followed: [], problems: [], unexpanded: [], lookup_failures: [], ip4: [], ip6: [], multiple_spaces: false,
  };
  if (txt.status === 'error') return { ...out, status: 'error', error: txt.error ?? 'lookup failed' };
  out.records = txt.records.filter(isSpfRecord);
  if (out.records.length === 0) return out;
  out.record = out.records[0]!;
  if (out.records.length > 1) return { ...out, status: 'multiple' };
  out.status = 'found';

  const problem = (p: SpfProblem) => {
    if (!out.problems.some((q) => q.domain === p.domain && q.term === p.term && q.reason === p.reason)) out.problems.push(p);
  };
  // Counted over the whole evaluation, in its order: they decide when asking stops.
  const count = { lookups: 0, voids: 0 };
  /** Whether the evaluation has ended at a limit (and so nothing more is asked). */
  const stopped = () => {
    if (out.stopped === null && count.lookups > SPF_LOOKUP_LIMIT) out.stopped = 'dns-lookup-limit';
    if (out.stopped === null && count.voids > SPF_VOID_LIMIT) out.stopped = 'void-lookup-limit';
    return out.stopped !== null;
  };
  const walked = new Map<string, Subtree>();

  async function walk(name: string, spf: ParsedSpf, path: readonly string[]): Promise<Pick<Subtree, 'all' | 'allFrom'>> {
    for (const p of spf.problems) problem({ domain: name, ...p });
    if (spf.multipleSpaces) out.multiple_spaces = true;
    for (const m of spf.mechanisms) {
      if (m.mechanism === 'all') break;
      if (m.mechanism === 'ip4' || m.mechanism === 'ip6') {
        const network = m.term.replace(/^[+\-~?]?ip[46]:/i, '');
        if (!out[m.mechanism].includes(network)) out[m.mechanism].push(network);
        continue;
      }
      // include, a, mx, ptr and exists: each a lookup term.
      count.lookups++;
      if (m.mechanism === 'ptr') {
        out.ptr = true;
        continue;
      }
      const target = m.target === null ? name : expandDomainSpec(m.target, name);
      if (target === null) {
        out.unexpanded.push(m.term);
        continue;
      }
      if (stopped()) continue;
      switch (m.mechanism) {
        case 'include':
          await follow(target, 'include', name, m.term, path);
          break;
        case 'a':
        case 'exists': {
          // a: void only when the name has neither family (a sender of either could be asked about).
          const types: DnsRecordType[] = m.mechanism === 'a' ? ['A', 'AAAA'] : ['A'];
          const answers = await Promise.all(types.map((t) => ask(target, t)));
          const failed = answers.find((a) => a.status === 'error');
          if (failed) out.lookup_failures.push(`${target} ${failed.type}`);
          else if (answers.every(isVoid)) count.voids++;
          break;
        }
        case 'mx': {
          const mx = await ask(target, 'MX');
          if (mx.status === 'error') out.lookup_failures.push(`${target} MX`);
          else if (isVoid(mx)) count.voids++;
          else if (mx.records.length > 10) problem({ domain: name, term: m.term, reason: 'mx-too-many' });
          break;
        }
      }
    }
    // redirect is ignored when the record has an all (section 6.1).
    if (spf.redirect === null || spf.all !== null) return { all: spf.all, allFrom: spf.all === null ? null : name };
    count.lookups++;
    const target = expandDomainSpec(spf.redirect, name);
    if (target === null) out.unexpanded.push(`redirect=${spf.redirect}`);
    else if (!stopped()) return follow(target, 'redirect', name, `redirect=${spf.redirect}`, path);
    return NO_ALL;
  }

  /** Reads and walks the record of `target` (its TXT lookup counted by the caller); a record read before is counted again, not asked. */
  async function follow(target: string, via: 'include' | 'redirect', from: string, term: string, path: readonly string[]): Promise<Pick<Subtree, 'all' | 'allFrom'>> {
    if (path.includes(target)) {
      problem({ domain: from, term, reason: 'loop' });
      return NO_ALL;
    }
    const before = walked.get(target);
    if (before) {
      count.lookups += before.lookups;
      count.voids += before.voids;
      return before;
    }
    if (!out.followed.includes(target)) out.followed.push(target);
    const start = { ...count };
    const ends = await (async () => {
      const answer = await ask(target, 'TXT');
      if (answer.status === 'error') {
        out.lookup_failures.push(`${target} TXT`);
        return NO_ALL;
      }
      const records = answer.records.filter(isSpfRecord);
      if (records.length !== 1) {
        problem({ domain: from, term, reason: records.length === 0 ? `${via}-no-record` : `${via}-multiple-records` });
        if (isVoid(answer)) count.voids++;
        return NO_ALL;
      }
      return walk(target, parseSpf(records[0]!), [...path, target]);
    })();
    walked.set(target, { ...ends, lookups: count.lookups - start.lookups, voids: count.voids - start.voids });
    return ends;
  }

  const top = await walk(domain, parseSpf(out.record), [domain]);
  stopped();
  out.dns_lookups = count.lookups;
  out.void_lookups = count.voids;
  out.all = top.all;
  out.all_from = top.allFrom;
  return out;
}
