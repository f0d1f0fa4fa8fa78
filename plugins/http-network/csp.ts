/**
 * Content-Security-Policy findings: the policies a page is served with, judged as browsers
 * enforce them, with the MDN HTTP Observatory's source classes (observatory-csp.ts gives its
 * result, which scores; index.ts names where the two part ways).
 *
 * Several policies (several headers, or a header plus a <meta>) are all enforced, so something
 * is allowed only when every policy allows it: a weakness counts when every policy has it.
 */
import type { Severity } from '../../core/plugin-api.js';
import { check, type Check } from './check.js';
import type { InvalidReason } from './observatory-csp.js';
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
/** Sources that let a plugin come from almost anywhere (the Observatory's "dangerously broad"). */
const BROAD_SOURCES = new Set(['ftp:', 'http:', 'https:', '*', 'http://*', 'http://*.*', 'https://*', 'https://*.*']);
/** And for scripts, data: too: a script written into a URL is inline script. */
const BROAD_SCRIPT_SOURCES = new Set([...BROAD_SOURCES, 'data:']);
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
/** An unencrypted scheme, as the Observatory counts them (http: and ftp:, with or without a host). */
const isInsecure = (s: string) => /^(http|ftp):/i.test(s);

interface PolicyVerdict {
  checks: Map<string, Check>;
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
    // With a nonce, a hash or 'strict-dynamic', browsers ignore 'unsafe-inline'; with 'strict-dynamic'
    // and a nonce or hash, host and scheme sources too.
    if (script.sources.includes("'unsafe-inline'") && !nonceOrHash && !strictDynamic) {
      add('csp-unsafe-inline', 'error', STRINGS.cspUnsafeInline(script.name), { directive: script.name });
    }
    if (script.sources.includes("'unsafe-eval'")) {
      add('csp-unsafe-eval', 'warning', STRINGS.cspUnsafeEval(script.name), { directive: script.name });
    }
    const broad = script.sources.filter((s) => BROAD_SCRIPT_SOURCES.has(s.toLowerCase()));
    if (broad.length > 0 && !(strictDynamic && nonceOrHash)) {
      add('csp-script-broad-source', 'error', STRINGS.cspScriptBroad(script.name, broad), { directive: script.name, sources: broad });
    }
  }

  const object = effective(policy, 'object-src');
  const objectBroad = object?.sources.filter((s) => BROAD_SOURCES.has(s.toLowerCase())) ?? [];
  if (!object || objectBroad.length > 0) {
    add('csp-object-src-unsafe', 'error', STRINGS.cspObjectUnsafe(object ? objectBroad : null), { sources: object?.sources ?? null });
  } else if (!(object.sources.length === 0 || (object.sources.length === 1 && object.sources[0] === "'none'"))) {
    add('csp-object-src-not-none', 'warning', STRINGS.cspObjectNotNone(object.sources), { sources: object.sources });
  }

  if (!policy.has('base-uri')) add('csp-base-uri-missing', 'warning', STRINGS.cspBaseUriMissing, {});

  if (https) {
    // Every directive, as the Observatory counts them: http: in form-action or report-uri sends data in clear too.
    const insecure = [...policy.keys()].filter((d) => policy.get(d)!.some(isInsecure));
    if (insecure.length > 0) {
      const active = insecure.some((d) => !PASSIVE_DIRECTIVES.has(d));
      add('csp-insecure-scheme', active ? 'error' : 'warning', STRINGS.cspInsecureScheme(insecure), { directives: insecure, active });
    }
  }

  return { checks };
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
  /** Why the Observatory finds the policy invalid, if it does (observatory-csp.ts). */
  observatoryInvalid?: InvalidReason | null;
}

export interface CspJudgement {
  checks: Check[];
  source: 'header' | 'meta' | 'header+meta' | null;
  policies: Record<string, string[]>[];
  /** frame-ancestors of the header policies that restrict framing; null when none does. */
  frameAncestors: string[] | null;
}

/** Judges the page's CSP as browsers enforce it: exact findings. */
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
  const ancestors = headerPolicies
    .map((p) => p.get('frame-ancestors'))
    .find((s): s is string[] => s !== undefined && !s.some((x) => BROAD_SOURCES.has(x.toLowerCase())));
  const judged = (checks: Check[]): CspJudgement => ({ checks, source, policies: serialized, frameAncestors: ancestors ?? null });
  // What the Observatory refuses to read is worth fixing even where browsers cope (they use the
  // first of a repeated directive): the policy may not say what its author meant.
  const invalid = input.observatoryInvalid ? [cspInvalidCheck(input.observatoryInvalid, input.header?.includes(',') ? input.header : null)] : [];

  if (policies.length === 0) {
    const present = input.header !== undefined || (input.meta ?? []).some((m) => m.trim());
    if (invalid.length) return judged(invalid);
    if (present) {
      const value = input.header?.trim() || (input.meta ?? []).join(' ');
      return judged([check('csp-invalid', 'infosec', 'error', STRINGS.cspInvalid(value), { value })]);
    }
    const text = input.reportOnly ? STRINGS.cspReportOnly : STRINGS.cspMissing;
    return judged([check('csp-missing', 'infosec', 'error', text, { report_only: input.reportOnly ?? null })]);
  }

  const verdicts = policies.map((p) => judgePolicy(p, input.https));
  // A weakness counts when every enforced policy has it; the milder wording and severity wins.
  const checks: Check[] = [...invalid];
  for (const [rule, first] of verdicts[0].checks) {
    const all = verdicts.map((v) => v.checks.get(rule));
    if (all.every(Boolean)) {
      const mildest = all.reduce((a, b) => (SEVERITY_ORDER[b!.severity] < SEVERITY_ORDER[a!.severity] ? b : a), first)!;
      checks.push(mildest);
    }
  }
  return judged(checks);
}

/** `joined`: the header as the Observatory read it, when it holds several policies (a header sent more than once). */
function cspInvalidCheck(reason: InvalidReason, joined: string | null): Check {
  const text = joined !== null ? STRINGS.cspRepeatedHeader(joined)
    : reason.kind === 'repeated-directive' ? STRINGS.cspRepeatedDirective(reason.directive)
    : reason.kind === 'too-short' ? STRINGS.cspInvalid(reason.policy)
      : reason.kind === 'strict-dynamic-without-nonce' ? STRINGS.cspStrictDynamicAlone
        : STRINGS.cspUnreadable(reason.detail);
  return check('csp-invalid', 'infosec', 'error', text, {
    reason: reason.kind, repeated_header: joined !== null, ...(reason.kind === 'repeated-directive' ? { directive: reason.directive } : {}),
  });
}

const SEVERITY_ORDER: Record<Severity, number> = { resolved: 0, info: 1, warning: 2, error: 3, critical: 4 };
