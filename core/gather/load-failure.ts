/**
 * Why a page could not be loaded, in plain words: the website refused the test with a bot check
 * (a firewall's or CAPTCHA service's page), answered an error status, never completed the TLS
 * handshake, or has a certificate the browser refuses. Each is the site's answer, not a fault of
 * the service: the engine reports it as the outcome of every test type and rates none (a type
 * that judges from the probes alone still runs when only the certificate stopped the browser).
 *
 * Lighthouse names some of these (ERRORED_DOCUMENT_REQUEST for a 4xx/5xx, INSECURE_DOCUMENT_REQUEST
 * for a certificate interstitial) and not others (a TLS handshake that never completes is NO_FCP
 * to it): the answer the browser got and, where it got none, one TLS handshake of our own tell.
 */
import { STATUS_CODES } from 'node:http';
import net from 'node:net';
import tls from 'node:tls';
import { WebperfError } from '../errors.js';
import type { NetworkRecord, ReportText } from '../plugin-api.js';
import type { TargetGuard } from '../net/target-guard.js';

const STRINGS = {
  botCheck: (url: string, status: number, title: string): ReportText => ({
    en: `The website refused the test: ${url} answered ${status} with a bot check${title ? ` ("${title}")` : ''}, a page from a firewall or CAPTCHA service that keeps automated visitors out, instead of the page. The site's owner can let the test through.`,
    sv: `Webbplatsen stoppade testet: ${url} svarade ${status} med en robotkontroll${title ? ` (”${title}”)` : ''}, en sida från en brandvägg eller CAPTCHA-tjänst som håller automatiska besökare ute, i stället för sidan. Webbplatsens ägare kan släppa igenom testet.`,
  }),
  serverError: (url: string, status: string): ReportText => ({
    en: `The website could not serve the page: ${url} answered ${status}, a server error.`,
    sv: `Webbplatsen kunde inte visa sidan: ${url} svarade ${status}, ett serverfel.`,
  }),
  errorStatus: (url: string, status: string): ReportText => ({
    en: `The page could not be tested: ${url} answered ${status} instead of the page.`,
    sv: `Sidan kunde inte testas: ${url} svarade ${status} i stället för sidan.`,
  }),
  tlsHung: (host: string, port: number): ReportText => ({
    en: `The secure connection to ${host} (port ${port}) was never set up: the server accepted the connection but did not complete the TLS handshake, so the page could not be loaded.`,
    sv: `Den säkra anslutningen till ${host} (port ${port}) kom aldrig till stånd: servern tog emot anslutningen men slutförde inte TLS-handskakningen, så sidan kunde inte laddas.`,
  }),
  unreachable: (host: string, port: number): ReportText => ({
    en: `The website could not be reached: nothing answered at ${host} (port ${port}), so the page could not be loaded.`,
    sv: `Webbplatsen gick inte att nå: ingenting svarade på ${host} (port ${port}), så sidan kunde inte laddas.`,
  }),
  tlsFailed: (host: string, port: number, reason: string): ReportText => ({
    en: `The secure connection to ${host} (port ${port}) could not be set up: the TLS handshake failed (${reason}), so the page could not be loaded.`,
    sv: `Den säkra anslutningen till ${host} (port ${port}) kunde inte upprättas: TLS-handskakningen misslyckades (${reason}), så sidan kunde inte laddas.`,
  }),
  certificate: (why: ReportText, netError: string): ReportText => ({
    en: `The page could not be loaded because of its certificate: ${why.en} (${netError}). Browsers show visitors a security warning instead of the page.`,
    sv: `Sidan kunde inte laddas på grund av sitt certifikat: ${why.sv} (${netError}). Webbläsare visar besökarna en säkerhetsvarning i stället för sidan.`,
  }),
  certificateWhy: {
    'net::ERR_CERT_AUTHORITY_INVALID': { en: 'it is not issued by an authority the browser trusts', sv: 'det är inte utfärdat av en utfärdare som webbläsaren litar på' },
    'net::ERR_CERT_DATE_INVALID': { en: 'it has expired or is not yet valid', sv: 'det har gått ut eller gäller inte ännu' },
    'net::ERR_CERT_COMMON_NAME_INVALID': { en: 'it is not valid for this host name', sv: 'det gäller inte för det här värdnamnet' },
  } as Record<string, ReportText>,
  certificateRefused: { en: 'the browser does not accept it', sv: 'webbläsaren godtar det inte' },
};

export type LoadFailureCode = 'TARGET_REFUSED' | 'TARGET_SERVER_ERROR' | 'TARGET_ERROR_STATUS' | 'TARGET_TLS_FAILED' | 'TARGET_CERTIFICATE' | 'TARGET_UNREACHABLE';

/** A page the site refused or could not serve: the message (English) and the same in the report languages. */
export class PageLoadFailure extends WebperfError {
  declare readonly code: LoadFailureCode;
  readonly text: ReportText;
  /**
   * Only the browser refused the page (its certificate): the probes still read it, so a plugin
   * that judges from them alone (meta.judgesFromProbes) still runs.
   */
  readonly probesSuffice: boolean;

  constructor(code: LoadFailureCode, text: ReportText, details: Record<string, unknown>, probesSuffice = false) {
    super(code, text.en, details);
    this.name = 'PageLoadFailure';
    this.text = text;
    this.probesSuffice = probesSuffice;
  }
}

/** A response header that only a bot check sends (the vendor's own mark of a challenge). */
const BOT_CHECK_HEADERS: [string, RegExp][] = [
  ['cf-mitigated', /challenge/i], // Cloudflare
  ['x-amzn-waf-action', /captcha|challenge/i], // AWS WAF
  ['x-datadome', /./], // DataDome, on the answer it blocked
];

/** What the pages of firewalls' and CAPTCHA services' checks say (read in an error answer only). */
const BOT_CHECK_MARKERS = [
  /<title>\s*just a moment\.\.\.\s*<\/title>/i,
  /checking (your browser|if the site connection is secure)/i,
  /attention required! \| cloudflare/i,
  /cf-browser-verification|cf_chl_|\/cdn-cgi\/challenge-platform\/|challenges\.cloudflare\.com|cf-turnstile/i,
  // reCAPTCHA, hCaptcha, PerimeterX's px-captcha, DataDome's captcha-delivery.com, any CAPTCHA
  /captcha/i,
  /_incapsula_resource|incapsula incident id/i,
  /pardon our interruption/i,
  /ddos protection by/i,
  /verify(ing)? (that )?you are (a )?human|are you a robot/i,
  /awswaf|aws-waf-token/i,
];

/** Whether an error answer (status 400 and up) is a bot check rather than the site's own error page. */
export function isBotCheck(headers: Record<string, string>, html: string): boolean {
  if (BOT_CHECK_HEADERS.some(([name, value]) => value.test(headers[name] ?? ''))) return true;
  return BOT_CHECK_MARKERS.some((marker) => marker.test(html));
}

/** The page's <title>, in one line of at most 80 characters ('' when none). */
function titleOf(html: string): string {
  const raw = /<title[^>]*>([^<]*)<\/title>/i.exec(html)?.[1] ?? '';
  const text = raw
    .replace(/&nbsp;/g, ' ').replace(/&quot;/g, '"').replace(/&#39;|&apos;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim();
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}

/** The record of the document that answered `url`, its redirects followed. */
export function answeringDocument(network: readonly NetworkRecord[], url: string): NetworkRecord | undefined {
  let index = network.findIndex((r) => r.url === url && r.resourceType === 'Document');
  if (index < 0) index = network.findIndex((r) => r.resourceType === 'Document');
  if (index < 0) return undefined;
  for (let hops = 0; hops < 20; hops++) {
    const rec = network[index];
    const location = rec.responseHeaders.location;
    if (rec.status < 300 || rec.status >= 400 || !location) return rec;
    let next: string;
    try {
      next = new URL(location, rec.url).href;
    } catch {
      return rec;
    }
    const following = network.findIndex((r, i) => i > index && r.url === next && r.resourceType === 'Document');
    if (following < 0) return rec;
    index = following;
  }
  return network[index];
}

type Handshake = 'completed' | 'hung' | 'unreachable' | { error: string };

/**
 * One TLS handshake with host:port, connected as the probes connect (the guard's lookup): whether
 * it completes within `timeoutMs`, hangs after the TCP connection was accepted, or fails.
 */
export function tlsHandshake(guard: TargetGuard, host: string, port: number, timeoutMs: number): Promise<Handshake> {
  return new Promise((resolve) => {
    const bare = host.replace(/^\[|\]$/g, '');
    let connected = false;
    const socket = tls.connect({
      host: bare,
      port,
      ...(net.isIP(bare) ? {} : { servername: bare }),
      rejectUnauthorized: false,
      ALPNProtocols: ['h2', 'http/1.1'],
      lookup: guard.lookupFor(new URL(`https://${net.isIP(bare) === 6 ? `[${bare}]` : bare}:${port}/`)) as any,
    });
    const done = (answer: Handshake) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(answer);
    };
    const timer = setTimeout(() => done(connected ? 'hung' : 'unreachable'), timeoutMs);
    socket.once('connect', () => {
      connected = true;
    });
    socket.once('secureConnect', () => done('completed'));
    // A reset means the TCP connection was there (a refused one is ECONNREFUSED), though one reset
    // at once is reported before 'connect' is.
    socket.once('error', (err: NodeJS.ErrnoException) => done(connected || err.code === 'ECONNRESET' ? { error: err.code ?? err.message } : 'unreachable'));
  });
}

/** How long our own handshake may take to say that the site's never completes. */
export const HANDSHAKE_CHECK_MS = 5_000;

export interface FailedLoad {
  /** The address asked for. */
  url: string;
  /** Lighthouse's runtime error, its message in English. */
  runtimeError: { code: string; message: string };
  /** The page load's requests (Lighthouse's log of the failed load). */
  network: readonly NetworkRecord[];
  /** The HTML the browser shows for the answer ('' for the browser's own error page). */
  readHtml: () => Promise<string>;
  guard: TargetGuard;
}

/**
 * The plain reason a page load failed, when the site's answer is one of those above; null for
 * anything else (an https host that accepts no connection is TARGET_UNREACHABLE; plain http's own
 * errors stay the caller's to raise).
 */
export async function explainLoadFailure(load: FailedLoad): Promise<PageLoadFailure | null> {
  const netError = /net::ERR_[A-Z0-9_]+/.exec(load.runtimeError.message)?.[0] ?? null;
  const lighthouse = { lighthouse_error: load.runtimeError.code, ...(netError ? { net_error: netError } : {}) };
  if (netError?.startsWith('net::ERR_CERT_')) {
    const why = STRINGS.certificateWhy[netError] ?? STRINGS.certificateRefused;
    return new PageLoadFailure('TARGET_CERTIFICATE', STRINGS.certificate(why, netError), { url: load.url, ...lighthouse }, true);
  }
  const answer = answeringDocument(load.network, load.url);
  if (answer && answer.status >= 400) {
    const details = { url: answer.url, status: answer.status, ...lighthouse };
    const status = `${answer.status}${STATUS_CODES[answer.status] ? ` ${STATUS_CODES[answer.status]}` : ''}`;
    const html = await load.readHtml();
    if (isBotCheck(answer.responseHeaders, html)) {
      return new PageLoadFailure('TARGET_REFUSED', STRINGS.botCheck(answer.url, answer.status, titleOf(html)), { ...details, bot_check: true });
    }
    if (answer.status >= 500) return new PageLoadFailure('TARGET_SERVER_ERROR', STRINGS.serverError(answer.url, status), details);
    return new PageLoadFailure('TARGET_ERROR_STATUS', STRINGS.errorStatus(answer.url, status), details);
  }
  const target = new URL(answer?.url ?? load.url);
  if (target.protocol !== 'https:' || (answer && answer.status > 0)) return null;
  // No answer at all over https: did the TLS handshake ever complete? Chromium cannot tell us.
  const port = target.port ? Number(target.port) : 443;
  const handshake = await tlsHandshake(load.guard, target.hostname, port, HANDSHAKE_CHECK_MS);
  const details = { url: target.href, host: target.hostname, port, ...lighthouse };
  if (handshake === 'hung') return new PageLoadFailure('TARGET_TLS_FAILED', STRINGS.tlsHung(target.hostname, port), { ...details, handshake: 'never completed' });
  if (typeof handshake === 'object') {
    return new PageLoadFailure('TARGET_TLS_FAILED', STRINGS.tlsFailed(target.hostname, port, netError ?? handshake.error), { ...details, handshake: handshake.error });
  }
  // Nothing listens (the connection refused or never answered): the site is down or has no web
  // server, which test types that need no page (e-mail) still judge around.
  if (handshake === 'unreachable') return new PageLoadFailure('TARGET_UNREACHABLE', STRINGS.unreachable(target.hostname, port), { ...details, handshake: 'no connection' });
  return null;
}
