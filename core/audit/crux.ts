/**
 * crux_summary.json: field data from the Chrome UX Report API for the origin and the crawled
 * pages, when the operator has configured a CrUX API key. Never derived from lab runs: without a
 * key, or when CrUX has no record, the file says so and why.
 *
 * The endpoint is the operator's configuration, not a caller's address, so it is not sent through
 * the target guard (a test serves the documented answer from loopback); its name is still resolved
 * by the service's resolver (WEBPERF_DNS_SERVERS) and its certificate verified with the service's
 * trust (WEBPERF_EXTRA_CA_CERTS), as every other connection the service makes.
 */
import http from 'node:http';
import https from 'node:https';
import { lookupVia, type Resolver } from '../net/resolver.js';
import type { TlsTrust } from '../net/trust.js';

export interface CruxSettings {
  apiKey: string | null;
  endpoint: string;
  timeoutMs?: number;
  /** The service's resolver and trust (the guard's); the system's and Node's own when absent. */
  resolver?: Resolver;
  trust?: TlsTrust;
}

/** POSTs JSON; the status and the parsed answer (null when it is not JSON). */
function postJson(settings: CruxSettings, address: URL, body: unknown): Promise<{ status: number; json: unknown }> {
  return new Promise((resolve, reject) => {
    const payload = Buffer.from(JSON.stringify(body));
    const secure = address.protocol === 'https:';
    const req = (secure ? https : http).request(address, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': String(payload.length) },
      signal: AbortSignal.timeout(settings.timeoutMs ?? 15_000),
      ...(settings.resolver ? { lookup: lookupVia(settings.resolver) as any } : {}),
      ...(secure && settings.trust ? { secureContext: settings.trust.secureContext(), agent: settings.trust.httpsAgent } : {}),
    } as https.RequestOptions, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        let json: unknown = null;
        try {
          json = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          json = null;
        }
        resolve({ status: res.statusCode ?? 0, json });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/** One CrUX record, reduced: the 75th percentile and the good/needs-improvement/poor shares per metric. */
export interface CruxRecord {
  available: boolean;
  reason?: string;
  key?: Record<string, unknown>;
  collection_period?: unknown;
  metrics?: Record<string, { p75: number | string | null; histogram: { start: number | string; end?: number | string; density: number }[] }>;
}

async function query(settings: CruxSettings, body: { origin: string } | { url: string }): Promise<CruxRecord> {
  const address = new URL(settings.endpoint);
  address.searchParams.set('key', settings.apiKey!);
  let res: { status: number; json: unknown };
  try {
    res = await postJson(settings, address, body);
  } catch (err) {
    return { available: false, reason: `The CrUX API could not be reached: ${err instanceof Error ? err.message : String(err)}` };
  }
  if (res.status === 404) return { available: false, reason: 'The Chrome UX Report has no field data for this address (not enough real-user visits)' };
  if (res.status < 200 || res.status >= 300) return { available: false, reason: `The CrUX API answered HTTP ${res.status}` };
  const answer = res.json as { record?: { key?: Record<string, unknown>; metrics?: Record<string, any>; collectionPeriod?: unknown } } | null;
  if (!answer?.record) return { available: false, reason: 'The CrUX API answer held no record' };
  const metrics: NonNullable<CruxRecord['metrics']> = {};
  for (const [name, m] of Object.entries(answer.record.metrics ?? {})) {
    metrics[name] = { p75: m?.percentiles?.p75 ?? null, histogram: Array.isArray(m?.histogram) ? m.histogram : [] };
  }
  return { available: true, key: answer.record.key, collection_period: answer.record.collectionPeriod ?? null, metrics };
}

/** The CrUX summary of an audit: origin first, then every page in crawl order. */
export async function cruxSummary(settings: CruxSettings, origin: string, pages: readonly string[]) {
  const base = { format_version: 1, source: 'Chrome UX Report API (field data from real Chrome users, 28-day rolling window)', origin };
  if (!settings.apiKey) {
    return {
      ...base,
      available: false,
      reason: 'Field data is not available: this service has no Chrome UX Report API key configured (WEBPERF_CRUX_API_KEY). Lab results are never passed off as field data.',
      origin_record: null,
      pages: [],
    };
  }
  const originRecord = await query(settings, { origin });
  const pageRecords = [];
  for (const url of pages) pageRecords.push({ url, ...(await query(settings, { url })) });
  return { ...base, available: originRecord.available || pageRecords.some((p) => p.available), origin_record: originRecord, pages: pageRecords };
}
