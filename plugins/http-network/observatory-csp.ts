/**
 * The MDN HTTP Observatory's (1.4.8) Content-Security-Policy test, as it reads policies: the
 * header (a repeated header is one string, "a, b") and the <meta> policies are merged into one
 * set of directives, a source surviving the merge only when every policy has it; a directive
 * repeated within a policy, a policy shorter than six characters and 'strict-dynamic' without a
 * nonce or hash make the policy invalid. This is the yardstick for the score; the findings
 * (csp.ts) judge each policy as browsers enforce it.
 */

/** A merged policy: directive → sources (lower-cased). */
export type Directives = Map<string, Set<string>>;

export interface ObservatoryCsp {
  result: string;
  /** The merged directives, when the test read the policy through (the X-Frame-Options test looks at them). */
  directives: Directives | null;
  /** Why the policy is invalid to the Observatory, when it is. */
  invalid: InvalidReason | null;
}

export type InvalidReason =
  | { kind: 'too-short'; policy: string }
  | { kind: 'repeated-directive'; directive: string }
  | { kind: 'strict-dynamic-without-nonce' }
  | { kind: 'unreadable'; detail: string };

export interface ObservatoryCspInput {
  https: boolean;
  header?: string;
  reportOnly?: string;
  meta: readonly string[];
}

/** Its floor for a policy's length: 'img-src' less one. */
const SHORTEST_POLICY = 6;
const REPEATABLE = new Set(['report-uri', 'report-to']);
const NOT_IN_META = ['frame-ancestors', 'report-uri', 'sandbox'];
/** Sources that allow (nearly) anything. */
const BROAD = ['ftp:', 'http:', 'https:', '*', 'http://*', 'http://*.*', 'https://*', 'https://*.*'];
const BROAD_SET = new Set(BROAD);
/** Broad, or inline code. */
const UNSAFE = new Set([...BROAD, "'unsafe-inline'", 'data:']);
const PASSIVE = ['img-src', 'media-src'];
const NONCE_OR_HASH = /^'(sha256|sha384|sha512|nonce)-/;
const collate = new Intl.Collator('en').compare;

class InvalidPolicy extends Error {
  constructor(readonly reason: InvalidReason) {
    super(reason.kind);
  }
}

interface Source {
  value: string;
  policy: number;
  keep: boolean;
}

/** Path parts equal (a prefix ending in "/" matches what lies under it): the test for "in both policies". */
function samePath(a: string, b: string): boolean {
  if (a === '') return true;
  if (a === '/' && b === '') return true;
  const underPrefix = a.endsWith('/');
  const aParts = a.split('/');
  const bParts = b.split('/');
  if (aParts.length > bParts.length) return false;
  if (!underPrefix && aParts.length !== bParts.length) return false;
  if (underPrefix) aParts.pop();
  // A malformed escape throws, and the whole policy is then invalid, as with the Observatory.
  return aParts.every((part, i) => decodeURIComponent(part) === decodeURIComponent(bParts[i]));
}

/**
 * The policies merged. Within one policy, sources are de-duplicated (one that starts with another
 * is dropped); across policies, a directive keeps the sources the earlier policies' merge and
 * this policy share.
 */
export function mergePolicies(policies: readonly string[]): { directives: Directives; repeatedReporting: boolean } {
  const texts = policies.map((p) => p.replace(/[\r\n]/g, '').trim());
  const merged = new Map<string, Source[]>();
  let repeatedReporting = false;
  for (const text of texts) {
    if (text.length < SHORTEST_POLICY) throw new InvalidPolicy({ kind: 'too-short', policy: text });
  }
  texts.forEach((text, index) => {
    const seen = new Set<string>();
    for (const entry of text.split(';')) {
      const [name, ...values] = entry.trim().split(/\s+/);
      if (!name) continue;
      const directive = name.toLowerCase();
      if (seen.has(directive)) {
        if (!REPEATABLE.has(directive)) throw new InvalidPolicy({ kind: 'repeated-directive', directive });
        repeatedReporting = true;
      }
      seen.add(directive);
      const first = index === 0;
      const own: Source[] = values.map((v) => ({ value: v.trim().toLocaleLowerCase(), policy: index, keep: first }));
      // An empty source list is 'none'.
      if (own.length === 0 && directive.endsWith('-src')) own.push({ value: "'none'", policy: index, keep: first });
      const sources = (first ? own : [...(merged.get(directive) ?? []), ...own]).sort((a, b) => collate(a.value, b.value));
      for (let i = 1; i < sources.length; i++) {
        const [prev, cur] = [sources[i - 1], sources[i]];
        if (cur.policy === prev.policy && cur.value.startsWith(prev.value)) cur.keep = false;
        if (cur.policy !== prev.policy && samePath(prev.value, cur.value)) cur.keep = true;
      }
      const kept = sources.filter((s) => s.keep);
      merged.set(directive, kept);
      // With more policies to come, the first one's sources stay only where a later one shares them.
      if (first && texts.length > 1) for (const s of kept) s.keep = false;
    }
  });
  const directives: Directives = new Map();
  for (const [directive, sources] of merged) {
    directives.set(directive, new Set(sources.length ? sources.map((s) => s.value) : ["'none'"]));
  }
  return { directives, repeatedReporting };
}

function tryMerge(policies: readonly string[]): Directives {
  try {
    return mergePolicies(policies).directives;
  } catch {
    return new Map();
  }
}

const hasNonceOrHash = (sources: Set<string>) => [...sources].some((s) => NONCE_OR_HASH.test(s));
const insecure = (s: string) => s.startsWith('http:') || s.startsWith('ftp:');
/** Results that pass, after which repeated report-uri/report-to are pointed out. */
const PASSING = new Set([
  'csp-implemented-with-no-unsafe', 'csp-implemented-with-no-unsafe-default-src-none',
  'csp-implemented-with-unsafe-inline-in-style-src-only', 'csp-implemented-with-insecure-scheme-in-passive-content-only',
]);

/** The Observatory's CSP result for a page. */
export function observatoryCsp(input: ObservatoryCspInput): ObservatoryCsp {
  const header = input.header === undefined ? [] : [input.header];
  let all: ReturnType<typeof mergePolicies>;
  try {
    all = mergePolicies([...header, ...input.meta]);
  } catch (err) {
    const invalid = err instanceof InvalidPolicy ? err.reason : { kind: 'unreadable' as const, detail: (err as Error).message };
    return { result: 'csp-header-invalid', directives: null, invalid };
  }
  const metaOnly = tryMerge(input.meta);
  for (const d of NOT_IN_META) metaOnly.delete(d);
  if (tryMerge(header).size + metaOnly.size === 0) {
    return { result: input.reportOnly ? 'csp-not-implemented-but-reporting-enabled' : 'csp-not-implemented', directives: null, invalid: null };
  }

  const csp = all.directives;
  const fallback = (directive: string) => csp.get(directive) ?? csp.get('default-src') ?? new Set(['*']);
  // Script, style and object sources may be one and the same default-src set: changing one changes
  // the others, as in the Observatory.
  const objectSrc = fallback('object-src');
  const scriptSrc = fallback('script-src');
  const styleSrc = fallback('style-src');
  for (const sources of [scriptSrc, styleSrc]) {
    if (hasNonceOrHash(sources)) sources.delete("'unsafe-inline'");
  }

  let result: string | null = null;
  let invalid: InvalidReason | null = null;
  if (hasNonceOrHash(scriptSrc) && scriptSrc.has("'strict-dynamic'")) {
    for (const s of [...scriptSrc]) {
      if (BROAD.some((b) => s.startsWith(b)) || s === "'self'" || s === "'unsafe-inline'") scriptSrc.delete(s);
    }
  } else if (scriptSrc.has("'strict-dynamic'")) {
    result = 'csp-header-invalid';
    invalid = { kind: 'strict-dynamic-without-nonce' };
  }

  const active = [...csp].filter(([d]) => !PASSIVE.includes(d) && d !== 'script-src').flatMap(([, s]) => [...s]);
  active.push(...scriptSrc);
  const passive = PASSIVE.flatMap((d) => [...(csp.get(d) ?? csp.get('default-src') ?? [])]);

  if ([...scriptSrc].some((s) => UNSAFE.has(s)) || [...objectSrc].some((s) => BROAD_SET.has(s))) {
    result ??= 'csp-implemented-with-unsafe-inline';
  }
  if (input.https && active.some(insecure)) result ??= 'csp-implemented-with-insecure-scheme';
  if (scriptSrc.has("'unsafe-eval'") || styleSrc.has("'unsafe-eval'")) result ??= 'csp-implemented-with-unsafe-eval';
  if (input.https && passive.some(insecure)) result ??= 'csp-implemented-with-insecure-scheme-in-passive-content-only';
  if ([...styleSrc].some((s) => UNSAFE.has(s))) result ??= 'csp-implemented-with-unsafe-inline-in-style-src-only';
  const defaultSrc = csp.get('default-src');
  if (defaultSrc?.has("'none'") && defaultSrc.size === 1) result ??= 'csp-implemented-with-no-unsafe-default-src-none';
  result ??= 'csp-implemented-with-no-unsafe';
  if (PASSING.has(result) && all.repeatedReporting) result = 'csp-implemented-but-duplicate-directives';
  return { result, directives: csp, invalid };
}
