/**
 * The plugin contract: what a test-type plugin declares, what it receives and what it returns.
 *
 * Glossary
 * - gather: the one page load (Chromium + Lighthouse) that collects the shared artifacts.
 * - artifacts: what the gather step collected; every plugin reads the same object.
 * - probe: a cheap, guarded HTTP request beside the page load (robots.txt, a 404 URL, TLS...);
 *   memoised per run, so two plugins asking for the same URL cost one request.
 * - finding: one thing a plugin noticed, with a severity; reports and issue-based ratings are
 *   derived from findings by core (rating.ts, report.ts).
 * - rating: 1.0 (worst) to 5.0 (best); NOT_RATED (-1) when the plugin could not judge.
 * - page load failure: the site refused the test (a bot check), answered an error status, never
 *   completed TLS or has a certificate the browser refuses; every plugin's outcome then says so,
 *   not rated, and run() is not called (save for meta.judgesFromProbes on a certificate failure).
 *
 * A plugin depends on this file (and the helpers core exports) only; it never opens a browser.
 */
import type { Localized, Lang, ReportText } from './i18n/langs.js';
import type { FetchFailure } from './net/fetch-failure.js';

export type { Lang, Localized, ReportText };
export type { FetchFailure };

/** The rating categories, as in the API's scores object. */
export const CATEGORIES = ['a11y', 'pagespeed', 'infosec', 'webstandard'] as const;
export type Category = (typeof CATEGORIES)[number];

/** Rating meaning "not rated"; averages skip it. */
export const NOT_RATED = -1;

export type Severity = 'critical' | 'error' | 'warning' | 'info' | 'resolved';

/** One request of the page load. Header names are lower-case. */
export interface NetworkRecord {
  url: string;
  method: string;
  status: number;
  resourceType: string;
  mimeType: string;
  /** IP address Chromium connected to ('' when unknown, e.g. served from cache). */
  remoteAddress: string;
  protocol: string;
  requestHeaders: Record<string, string>;
  responseHeaders: Record<string, string>;
  /** Every Set-Cookie header line of the response. */
  setCookies: string[];
  transferSize: number;
  /** Bytes of the body after decoding (what a HAR calls content.size); 0 when none arrived. */
  resourceSize: number;
  failed: boolean;
  /**
   * Chromium's mixed-content verdict on a request an https page made to an http URL: 'blockable'
   * (a script, stylesheet or frame, which it refuses) or 'optionally-blockable' (an image or media,
   * which it upgrades to https). Absent on any other request.
   */
  mixedContent?: 'blockable' | 'optionally-blockable';
  /** Why Chromium refused the request itself (e.g. 'mixed-content'), as its protocol says; absent when it did not. */
  blockedReason?: string;
  /** The TLS version the response came over, as Chromium names it ('TLS 1.3'); absent without TLS. */
  tlsProtocol?: string;
}

/** A cookie present in the browser after the page load. */
export interface CookieRecord {
  name: string;
  value: string;
  domain: string;
  path: string;
  /** Seconds since the epoch; -1 for a session cookie. */
  expires: number;
  secure: boolean;
  httpOnly: boolean;
  sameSite: 'Strict' | 'Lax' | 'None' | '';
  /** Set by the page's own site (registrable domain of the tested URL). */
  firstParty: boolean;
}

/** One axe-core rule result, trimmed to what plugins need. */
export interface AxeRuleResult {
  id: string;
  impact: 'minor' | 'moderate' | 'serious' | 'critical' | null;
  tags: string[];
  help: string;
  helpUrl: string;
  /**
   * `target`: axe's selectors, those of the frames leading to the element first, then its own
   * (a path through shadow roots joined by ' >>> '). `frame`: the frame part alone, when the
   * element sits in an embedded frame.
   */
  nodes: { target: string[]; html: string; frame?: string[] }[];
}

export interface AxeArtifact {
  version: string;
  violations: AxeRuleResult[];
  passes: number;
  incomplete: number;
  /** The embedded frames axe ran in besides the page: path of frame selectors from the top, and URL. */
  frames?: { path: string[]; url: string }[];
}

/** The Lighthouse result, trimmed: categories and audits. */
export interface LighthouseArtifact {
  version: string;
  categories: Record<string, { id: string; title: string; score: number | null }>;
  audits: Record<
    string,
    {
      id: string;
      /** The audit's title in the report languages. */
      title: ReportText;
      score: number | null;
      scoreDisplayMode: string;
      numericValue?: number;
      /** What numericValue counts: 'millisecond', 'byte', 'unitless', 'element'… (Lighthouse's numericUnit). */
      numericUnit?: string;
      /** Lighthouse's display value in the report languages. */
      displayValue?: ReportText;
    }
  >;
  /** Audit ids per category, with weights (from categories[].auditRefs). */
  auditRefs: Record<string, { id: string; weight: number }[]>;
}

/** A script or stylesheet the rendered page links to, with its Subresource Integrity attribute. */
export interface SubresourceLink {
  kind: 'script' | 'stylesheet';
  /** The src or href resolved against the document's base URL. */
  url: string;
  /** The integrity attribute as written; null when the element has none. */
  integrity: string | null;
}

export interface TextResource {
  url: string;
  content: string;
}

/** What the one page load collected, shared by every plugin. */
export interface Artifacts {
  /** The URL asked for. */
  requestedUrl: string;
  /** The URL after redirects. */
  finalUrl: string;
  mainDocument: { url: string; status: number; headers: Record<string, string>; html: string };
  network: NetworkRecord[];
  cookies: CookieRecord[];
  /** document.body.innerText of the rendered page. */
  renderedText: string;
  /** Rendered text of the main content: nav, header, footer, aside and hidden elements left out. */
  mainText: string;
  /** The document's lang attribute ('' when missing). */
  htmlLang: string;
  consoleErrors: string[];
  axe: AxeArtifact | null;
  lighthouse: LighthouseArtifact | null;
  /** Every stylesheet the page used (external and inline), with its text. */
  stylesheets: TextResource[];
  /** Every script the page ran (external and inline), with its text. */
  scripts: TextResource[];
  /** `<script src>` and `<link rel=stylesheet href>` elements of the rendered page, in document order. */
  subresourceLinks: SubresourceLink[];
  /** The content of every `<meta name="referrer">` of the rendered page, in document order. */
  referrerMetas: string[];
}

export interface ProbeResponse {
  /** The URL finally answered (after redirects, when followed). */
  url: string;
  status: number;
  headers: Record<string, string>;
  /**
   * The body's text, decoded as a browser decodes it (core/net/charset.ts): a byte-order mark, the
   * Content-Type charset, a `<meta charset>` in an HTML body, else UTF-8.
   */
  body: string;
  /** Every URL visited, the first one included. */
  chain: string[];
  /** Set when the request failed (DNS, refused, blocked by the target guard...). */
  error?: string;
  /** Why, as a kind a finding can say in both languages (fetchFailureText); set with `error`. */
  failure?: FetchFailure;
}

export interface TlsProbe {
  /** Protocol versions the server accepted, e.g. ['TLSv1.2', 'TLSv1.3']. */
  versions: string[];
  /** Null when the server does not speak TLS on the port. */
  certificate: {
    subject: string;
    issuer: string;
    validFrom: string;
    validTo: string;
    daysToExpiry: number;
    /** The chain verified against the trust store used by the service. */
    trusted: boolean;
    verifyError: string | null;
  } | null;
  alpn: string | null;
  error?: string;
}

/** The DNS record types the dns probe asks. */
/** DS and DNSKEY records are given in their presentation form (RFC 4034 sections 2.2 and 5.3). */
export type DnsRecordType = 'A' | 'AAAA' | 'CNAME' | 'MX' | 'NS' | 'TXT' | 'DS' | 'DNSKEY';

/** One DNS question's answer, as the service's resolver gave it. */
export interface DnsAnswer {
  name: string;
  type: DnsRecordType;
  /**
   * 'ok': the name exists (records may be empty: no record of this type, NODATA); 'nxdomain': no
   * such name; 'error': no usable answer (timeout, SERVFAIL, refused, no resolver).
   */
  status: 'ok' | 'nxdomain' | 'error';
  /**
   * A, AAAA: addresses; CNAME, NS: names; TXT: each record's strings joined (RFC 7208 section 3.3);
   * MX: the exchanges' names, lowest priority value first (the root, a null MX of RFC 7505, as '.').
   */
  records: string[];
  /** MX only: each exchange with its priority, as answered. */
  mx?: { exchange: string; priority: number }[];
  /**
   * DNSSEC as the resolver reported it (asked with the EDNS DO bit): true when it set the AD flag
   * (it validated the answer, or the proof that there is none); false when it did not and the answer
   * carried no signatures (an unsigned zone); null when that cannot be told: the resolver passed
   * signatures on without validating them, the answer is an 'error', or it had to be read again
   * over TCP and the flag was clear. Meaningful only when the resolver validates, as the public
   * resolvers do. Absent from answers not made by the service's resolver (a test's own).
   */
  authenticated?: boolean | null;
  /** Why the answer is 'error'. */
  error?: string;
}

/** Guarded HTTP probes beside the page load; memoised per run. */
export interface Probes {
  fetch(url: string, options?: { method?: 'GET' | 'HEAD'; followRedirects?: boolean; maxBytes?: number }): Promise<ProbeResponse>;
  tls(host: string, port?: number): Promise<TlsProbe>;
  /**
   * A DNS lookup through the service's resolver (WEBPERF_DNS_SERVERS, else the system's servers);
   * memoised per run. Names only: nothing is connected to. `checkingDisabled`: the CD bit, so that
   * a validating resolver answers for a zone whose signatures fail (without the AD flag).
   */
  dns(name: string, type: DnsRecordType, options?: { checkingDisabled?: boolean }): Promise<DnsAnswer>;
  /**
   * Whether the target guard lets the service (or a tool it runs, such as Zonemaster) connect to
   * this IP address: private, loopback and other internal ranges are refused unless the operator
   * allowlisted them. For a plugin that hands addresses to a program of its own.
   */
  isAllowedAddress(address: string): boolean;
}

export interface PluginContext {
  probes: Probes;
  /** Aborted when the plugin's time is up or the job's time limit is reached; stop work then. */
  signal: AbortSignal;
  /** The time of the run: judge ages (a statement's date, a certificate) against this, not the clock. */
  now: Date;
}

/** A finding; text is readable in the report languages. */
export interface Finding {
  /** Stable rule id, e.g. 'hsts-missing' or an axe/html-validate rule id. */
  rule: string;
  category: Category;
  severity: Severity;
  text: ReportText;
  /** How many places (elements, requests...) the finding concerns; reports add " (N)" when N > 1 and the text does not already state N. */
  count?: number;
  /**
   * What the finding points at, for a rule that can fire more than once in one result (a header's
   * name, a cookie's, a DNS name, a URL): with the category and the rule, the finding's identity
   * from run to run (core/changes.ts). Leave it out when the rule fires at most once.
   */
  locator?: string;
  /**
   * The measured figure behind the finding, when the rule measures one (a timing in ms, a size in
   * bytes): a later run's finding whose value is within the tolerance of this one's is the same
   * (core/changes.ts), whatever side of a threshold it fell on.
   */
  value?: number;
  /** What `value` counts ('millisecond', 'byte', 'unitless'…): its jitter allowance depends on it. */
  unit?: string;
}

/** What a plugin returns. */
export interface PluginResult {
  /** Overall rating 1.0..5.0 or NOT_RATED. */
  rating: number;
  /** Ratings per category the plugin rates. */
  ratings: Partial<Record<Category, number>>;
  /** Findings; reports are rendered from them. */
  findings: Finding[];
  /** One-line summary for check_report, in the report languages (findings follow it). */
  summary: ReportText;
  /** Structured data stored as json_check_data. */
  data: Record<string, unknown>;
}

/** Static declaration of a plugin (Lighthouse's `meta`). */
export interface PluginMeta {
  /** The numeric type_of_test. */
  id: number;
  names: Localized;
  descriptions: Localized;
  active: boolean;
  /** Categories the plugin rates (may be empty: rated on overall only); rating another is an error result. */
  categories: Category[];
  /**
   * Artifacts the plugin reads. The pipeline checks them before run(): when one is null or
   * missing, the plugin is not run and its outcome is an error naming the artifact.
   */
  requiredArtifacts: (keyof Artifacts)[];
  /**
   * The plugin can judge a page from the probes alone. When the browser refuses a page only for
   * its certificate, such a plugin still runs, on artifacts the probes read: mainDocument as a
   * probe fetched it (certificates not checked), no network log, nothing the browser reads
   * (cookies, texts, axe, Lighthouse, stylesheets, scripts empty or null). The others' outcome is
   * that the page could not be loaded, not rated.
   */
  judgesFromProbes?: boolean;
  /**
   * false: the plugin judges something other than the page (the site's domain in DNS) and needs no
   * page load. A run of only such plugins loads no page (no browser is used); when the page of a
   * run with others cannot be loaded, these are still run (on artifacts holding only the address)
   * while the others' outcome says why the page could not be loaded. Default true.
   */
  needsPage?: boolean;
  /** Time limit for run(), default 30 s. */
  timeoutMs?: number;
  /**
   * Programs the type needs besides Node and Chromium (an optional component: Zonemaster's
   * `zonemaster-cli` for type 32). A runner without one reports the type as not available (its
   * run() throws ComponentUnavailable): not rated, and a re-test is not charged for it.
   * /v1/tests lists them.
   */
  requires?: OptionalComponent[];
}

/** A program a test type needs that a runner may lack. */
export interface OptionalComponent {
  /** The program's name, e.g. `zonemaster-cli`. */
  component: string;
  /** How an operator installs it, e.g. `apt-get install zonemaster-cli` (Debian). */
  install: string;
}

/**
 * Thrown by run() when a component the type needs (meta.requires) is missing on this runner: the
 * outcome is "not available on this runner", not rated, with this reason in the report languages;
 * the order is not charged for the type.
 */
export class ComponentUnavailable extends Error {
  constructor(
    readonly component: string,
    message: string,
  ) {
    super(message);
    this.name = 'ComponentUnavailable';
  }
}

/** A test-type plugin: a static meta and one run(). */
export interface TestPlugin {
  meta: PluginMeta;
  run(artifacts: Artifacts, context: PluginContext): Promise<PluginResult> | PluginResult;
}

/** Helper for plugin authors: identity function that checks the shape. */
export function definePlugin(plugin: TestPlugin): TestPlugin {
  return plugin;
}
