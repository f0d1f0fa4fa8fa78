/**
 * Content-Security-Policy: parse the policies a page is served with and judge what they allow,
 * with the MDN HTTP Observatory's CSP result as the yardstick (see index.ts for the mapping).
 *
 * Several policies (several headers, or a header plus a <meta>) are all enforced, so something
 * is allowed only when every policy allows it: a weakness counts when every policy has it.
 */
import type { Severity } from '../../core/plugin-api.js';
import { check, type Check, type Modifier } from './check.js';
import { STRINGS } from './strings.js';

/** One policy: directive name → its source list (keywords and schemes lower-cased). */
export type CspPolicy = Map<string, string[]>;

const KNOWN_DIRECTIVES = new Set([
  'default-src', 'script-src', 'script-src-elem', 'script-src-attr', 'style-src', 'style-src-elem', 'style-src-attr',
  'img-src', 'media-src', 'font-src', 'connect-src', 'frame-src', 'child-src', 'worker-src', 'manifest-src',
  'object-src', 'prefetch-src', 'fenced-frame-src', 'base-uri', 'form-action', 'frame-ancestors', 'sandbox',
  'report-uri', 'report-to', 'upgrade-insecure-requests', 'block-all-mixed-content', 'require-trusted-types-for',
  'trusted-types', 'plugin-types', 'navigate-to', 'webrtc',
]);
/** Directives whose sources fall back to default-src. */
const FETCH_DIRECTIVES = [...KNOWN_DIRECTIVES].filter((d) => d.endsWith('-src') && d !== 'default-src');
/** Sources that let a script (or plugin) come from almost anywhere. */
const BROAD_SOURCES = new Set(['*', 'http:', 'https:', 'data:']);
/** Mixed content that browsers merely upgrade or show rather than block (the Observatory's "passive"). */
const PASSIVE_DIRECTIVES = new Set(['img-src', 'media-src']);

/** Parses one serialized policy; the first occurrence of a directive wins (as in browsers). */
export function parseCspPolicy(text: string): CspPolicy {
  const policy: CspPolicy = new Map();
  for (const part of text.split(';')) {
    const tokens = part.trim().split(/\s+/).filter(Boolean);
    if (tokens.length === 0) continue;
    const name = tokens[0].toLowerCase();
    if (!KNOWN_DIRECTIVES.has(name) || policy.has(name)) continue;
    policy.set(name, tokens.slice(1).map(normalizeSource));
  }
  return policy;
}

/** Several policies joined into one header value (by ", " or a newline). */
export function parseCsp(header: string): CspPolicy[] {
  return header.split(/[,\n]/).map((p) => p.trim()).filter(Boolean).map(parseCspPolicy);
}

function normalizeSource(token: string): string {
  // Keywords ('self', 'nonce-…') and schemes are case-insensitive; nonce and hash values are not.
  if (/^'(nonce|sha256|sha384|sha512)-/i.test(token)) return token.replace(/^'[a-z0-9]+-/i, (m) => m.toLowerCase());
  if (token.startsWith("'") || /^[a-z][a-z0-9+.-]*:$/i.test(token)) return token.toLowerCase();
  return token;
}

/** The sources a fetch directive ends up with (its own, else default-src), and which directive that is. */
function effective(policy: CspPolicy, directive: string): { name: string; sources: string[] } | null {
  const own = policy.get(directive);
  if (own) return { name: directive, sources: own };
  const fallback = policy.get('default-src');
  return fallback ? { name: 'default-src', sources: fallback } : null;
}

const hasNonceOrHash = (sources: readonly string[]) => sources.some((s) => /^'(nonce|sha256|sha384|sha512)-/.test(s));
const isInsecure = (s: string) => s === 'http:' || s.toLowerCase().startsWith('http://');

interface PolicyVerdict {
  checks: Map<string, Check>;
  styleUnsafe: boolean;
  defaultNone: boolean;
}

function judgePolicy(policy: CspPolicy, https: boolean): PolicyVerdict {
  const checks = new Map<string, Check>();
  const add = (rule: string, severity: Severity, text: Check['text'], details: Record<string, unknown>) =>
    checks.set(rule, check(rule, 'infosec', severity, text, details));

  const script = effective(policy, 'script-src');
  if (!script) {
    add('csp-script-src-missing', 'error', STRINGS.cspScriptMissing, {});
  } else {
    const nonceOrHash = hasNonceOrHash(script.sources);
    const strictDynamic = script.sources.includes("'strict-dynamic'");
    // With a nonce or hash, browsers ignore 'unsafe-inline'; with 'strict-dynamic' too, host and scheme sources.
    if (script.sources.includes("'unsafe-inline'") && !nonceOrHash) {
      add('csp-unsafe-inline', 'error', STRINGS.cspUnsafeInline(script.name), { directive: script.name });
    }
    if (script.sources.includes("'unsafe-eval'")) {
      add('csp-unsafe-eval', 'warning', STRINGS.cspUnsafeEval(script.name), { directive: script.name });
    }
    const broad = script.sources.filter((s) => BROAD_SOURCES.has(s));
    if (broad.length > 0 && !(strictDynamic && nonceOrHash)) {
      add('csp-script-broad-source', 'error', STRINGS.cspScriptBroad(script.name, broad), { directive: script.name, sources: broad });
    }
  }

  const object = effective(policy, 'object-src');
  const objectBroad = object?.sources.filter((s) => BROAD_SOURCES.has(s)) ?? [];
  if (!object || objectBroad.length > 0) {
    add('csp-object-src-unsafe', 'error', STRINGS.cspObjectUnsafe(object ? objectBroad : null), { sources: object?.sources ?? null });
  } else if (!(object.sources.length === 1 && object.sources[0] === "'none'")) {
    add('csp-object-src-not-none', 'warning', STRINGS.cspObjectNotNone(object.sources), { sources: object.sources });
  }

  if (!policy.has('base-uri')) add('csp-base-uri-missing', 'warning', STRINGS.cspBaseUriMissing, {});

  if (https) {
    const insecure = ['default-src', ...FETCH_DIRECTIVES].filter((d) => policy.get(d)?.some(isInsecure));
    if (insecure.length > 0) {
      const active = insecure.some((d) => !PASSIVE_DIRECTIVES.has(d));
      add('csp-insecure-scheme', active ? 'error' : 'warning', STRINGS.cspInsecureScheme(insecure), { directives: insecure, active });
    }
  }

  const style = effective(policy, 'style-src');
  const styleUnsafe = !style || style.sources.some((s) => s === "'unsafe-inline'" || BROAD_SOURCES.has(s));
  const defaultSrc = policy.get('default-src');
  const defaultNone = defaultSrc !== undefined && defaultSrc.length === 1 && defaultSrc[0] === "'none'";
  return { checks, styleUnsafe, defaultNone };
}

export interface CspInput {
  /** The Content-Security-Policy header value(s), if any. */
  header?: string;
  /** The Content-Security-Policy-Report-Only header, if any (it does not protect). */
  reportOnly?: string;
  /** The content of <meta http-equiv="Content-Security-Policy"> elements, if any. */
  meta?: string[];
  /** The page is served over HTTPS (http: sources are then mixed content). */
  https: boolean;
}

export interface CspJudgement {
  checks: Check[];
  /** The Observatory CSP result this policy gets (one per site). */
  modifier: Modifier;
  source: 'header' | 'meta' | 'header+meta' | null;
  policies: Record<string, string[]>[];
  /** frame-ancestors of the header policies that restrict framing; null when none does. */
  frameAncestors: string[] | null;
}

/** Judges the page's CSP: exact findings, and the Observatory result with its modifier. */
export function judgeCsp(input: CspInput): CspJudgement {
  const headerPolicies = input.header ? parseCsp(input.header) : [];
  // A <meta> policy cannot set frame-ancestors, report-uri or sandbox.
  const metaPolicies = (input.meta ?? []).map(parseCspPolicy).map((p) => {
    for (const d of ['frame-ancestors', 'report-uri', 'sandbox']) p.delete(d);
    return p;
  });
  const policies = [...headerPolicies, ...metaPolicies].filter((p) => p.size > 0);
  const source = headerPolicies.length && metaPolicies.length ? 'header+meta' : headerPolicies.length ? 'header' : metaPolicies.length ? 'meta' : null;
  const serialized = policies.map((p) => Object.fromEntries(p));

  if (policies.length === 0) {
    const present = Boolean(input.header?.trim()) || (input.meta ?? []).some((m) => m.trim());
    if (present) {
      const value = input.header?.trim() || (input.meta ?? []).join(' ');
      return {
        checks: [check('csp-invalid', 'infosec', 'error', STRINGS.cspInvalid(value), { value })],
        modifier: { test: 'csp-header-invalid', modifier: -25 },
        source, policies: serialized, frameAncestors: null,
      };
    }
    const text = input.reportOnly ? STRINGS.cspReportOnly : STRINGS.cspMissing;
    return {
      checks: [check('csp-missing', 'infosec', 'error', text, { report_only: input.reportOnly ?? null })],
      modifier: { test: 'csp-not-implemented', modifier: -25 },
      source, policies: serialized, frameAncestors: null,
    };
  }

  const verdicts = policies.map((p) => judgePolicy(p, input.https));
  // A weakness counts when every enforced policy has it; the milder wording and severity wins.
  const checks: Check[] = [];
  for (const [rule, first] of verdicts[0].checks) {
    const all = verdicts.map((v) => v.checks.get(rule));
    if (all.every(Boolean)) {
      const mildest = all.reduce((a, b) => (SEVERITY_ORDER[b!.severity] < SEVERITY_ORDER[a!.severity] ? b : a), first)!;
      checks.push(mildest);
    }
  }
  const rules = new Map(checks.map((c) => [c.rule, c]));
  let modifier: Modifier;
  if (['csp-unsafe-inline', 'csp-script-src-missing', 'csp-script-broad-source', 'csp-object-src-unsafe'].some((r) => rules.has(r))) {
    modifier = { test: 'csp-implemented-with-unsafe-inline', modifier: -20 };
  } else if (rules.get('csp-insecure-scheme')?.severity === 'error') {
    modifier = { test: 'csp-implemented-with-insecure-scheme', modifier: -20 };
  } else if (rules.has('csp-insecure-scheme')) {
    modifier = { test: 'csp-implemented-with-insecure-scheme-in-passive-content-only', modifier: -10 };
  } else if (rules.has('csp-unsafe-eval')) {
    modifier = { test: 'csp-implemented-with-unsafe-eval', modifier: -10 };
  } else if (verdicts.every((v) => v.styleUnsafe)) {
    modifier = { test: 'csp-implemented-with-unsafe-inline-in-style-src-only', modifier: 0 };
  } else if (verdicts.some((v) => v.defaultNone)) {
    modifier = { test: 'csp-implemented-with-no-unsafe-default-src-none', modifier: 10 };
  } else {
    modifier = { test: 'csp-implemented-with-no-unsafe', modifier: 5 };
  }

  const ancestors = headerPolicies
    .map((p) => p.get('frame-ancestors'))
    .find((s): s is string[] => s !== undefined && !s.some((x) => x === '*' || x === 'http:' || x === 'https:'));
  return { checks, modifier, source, policies: serialized, frameAncestors: ancestors ?? null };
}

const SEVERITY_ORDER: Record<Severity, number> = { resolved: 0, info: 1, warning: 2, error: 3, critical: 4 };

/** The content of every <meta http-equiv="Content-Security-Policy"> in the HTML. */
export function metaCsp(html: string): string[] {
  const out: string[] = [];
  for (const [tag] of html.matchAll(/<meta\b[^>]*>/gi)) {
    if (!/http-equiv\s*=\s*["']?content-security-policy["'\s/>]/i.test(tag)) continue;
    const content = /content\s*=\s*(?:"([^"]*)"|'([^']*)')/i.exec(tag);
    if (content) out.push((content[1] ?? content[2] ?? '').replaceAll('&#39;', "'").replaceAll('&quot;', '"').replaceAll('&amp;', '&'));
  }
  return out;
}
