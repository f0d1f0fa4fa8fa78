/**
 * A redirect route followed the way the MDN HTTP Observatory's retriever follows one: from a URL,
 * each redirect (301, 302, 303, 307 or 308 with a Location) taken by hand, at most ten, every
 * answer kept. Its `verified` becomes: every https origin on the route has a trusted certificate
 * (the probes read through a bad certificate, the TLS probe judges it).
 */
import type { Probes } from '../../core/plugin-api.js';
import { observatoryHeaders, type Headers } from './observatory.js';

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 10;

/** One answer on the route. */
export interface RouteAnswer {
  url: string;
  status: number;
  location: string | null;
  headers: Headers;
}

export interface Route {
  start: string;
  /** Every answer, the last one included. */
  hops: RouteAnswer[];
  /** Why a hop gave no answer (then the route has no last answer), else null. */
  error: string | null;
  /** The URL that gave no answer. */
  failedUrl: string | null;
  /** https origins on the route whose certificate is not trusted. */
  untrusted: string[];
}

export async function followRoute(probes: Probes, start: string): Promise<Route> {
  const hops: RouteAnswer[] = [];
  let url = start;
  let error: string | null = null;
  let failedUrl: string | null = null;
  for (;;) {
    const res = await probes.fetch(url, { followRedirects: false, maxBytes: 65_536 });
    if (res.error || res.status === 0) {
      error = res.error ?? 'no answer';
      failedUrl = url;
      break;
    }
    const headers = observatoryHeaders(res.headers);
    const location = headers.location ?? null;
    hops.push({ url, status: res.status, location, headers });
    if (!REDIRECTS.has(res.status) || location === null || hops.length > MAX_REDIRECTS) break;
    try {
      url = new URL(location, url).href;
    } catch {
      error = 'the Location header is not a URL';
      failedUrl = location;
      break;
    }
  }
  const origins = [...new Set(hops.map((h) => new URL(h.url)).filter((u) => u.protocol === 'https:').map((u) => u.origin))];
  const verdicts = await Promise.all(origins.map(async (origin) => {
    const u = new URL(origin);
    const tls = await probes.tls(u.hostname, u.port ? Number(u.port) : 443);
    // No certificate seen by the TLS probe is no evidence of a bad one.
    return { origin, trusted: tls.certificate ? tls.certificate.trusted : true };
  }));
  return { start, hops, error, failedUrl, untrusted: verdicts.filter((v) => !v.trusted).map((v) => v.origin) };
}
