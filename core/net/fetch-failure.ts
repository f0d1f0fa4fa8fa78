/**
 * Why a probe's fetch got no answer, as a kind a finding can say in words (ProbeResponse.failure)
 * rather than the error's message: a plugin's review text tells "the address is not allowed as a
 * test target" from "the host did not answer", in Swedish and English alike.
 */
import { isWebperfError } from '../errors.js';
import type { ReportText } from '../i18n/langs.js';

export type FetchFailure =
  /** The target guard refused it: a private, loopback or internal address, or no http(s) URL. */
  | 'blocked'
  /** The host name does not resolve. */
  | 'unresolved'
  | 'refused'
  | 'reset'
  | 'timeout'
  /** The TLS handshake failed (the certificate is judged apart: probes do not reject it). */
  | 'tls'
  | 'redirects'
  | 'failed';

/** The kind of an error a fetch threw. */
export function fetchFailureOf(err: unknown): FetchFailure {
  // The guard's own: TARGET_BLOCKED (not allowed), TARGET_UNREACHABLE (the name has no address).
  if (isWebperfError(err)) return err.code === 'TARGET_BLOCKED' ? 'blocked' : err.code === 'TARGET_UNREACHABLE' ? 'unresolved' : 'failed';
  const code = (err as { code?: unknown } | null)?.code;
  const message = err instanceof Error ? err.message : String(err);
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'unresolved';
  if (code === 'ECONNREFUSED') return 'refused';
  if (code === 'ECONNRESET' || code === 'EPIPE') return 'reset';
  if (code === 'ETIMEDOUT' || /^Timed out after/.test(message)) return 'timeout';
  if (code === 'EPROTO' || (typeof code === 'string' && code.startsWith('ERR_SSL')) || /SSL|TLS/.test(message)) return 'tls';
  return 'failed';
}

const REASONS: Record<FetchFailure, ReportText> = {
  blocked: { sv: 'adressen är inte tillåten som testmål (en privat, lokal eller intern adress)', en: 'the address is not allowed as a test target (a private, local or internal address)' },
  unresolved: { sv: 'namnet finns inte i DNS', en: 'the name does not resolve in DNS' },
  refused: { sv: 'servern nekade anslutningen', en: 'the server refused the connection' },
  reset: { sv: 'servern bröt anslutningen', en: 'the server reset the connection' },
  timeout: { sv: 'servern svarade inte i tid', en: 'the server did not answer in time' },
  tls: { sv: 'den säkra anslutningen (TLS) kunde inte upprättas', en: 'the secure connection (TLS) could not be set up' },
  redirects: { sv: 'för många omdirigeringar', en: 'too many redirects' },
  failed: { sv: 'hämtningen misslyckades', en: 'the fetch failed' },
};

/** Why, in words, for a review text: "could not be fetched: <this>". */
export function fetchFailureText(failure: FetchFailure | undefined): ReportText {
  return REASONS[failure ?? 'failed'];
}

/** "could not be fetched: <why>", in each report language. */
export function notFetchedText(failure: FetchFailure | undefined): ReportText {
  const why = fetchFailureText(failure);
  return { sv: `gick inte att hämta: ${why.sv}`, en: `could not be fetched: ${why.en}` };
}
