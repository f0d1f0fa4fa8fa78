/**
 * Turns a Chrome DevTools protocol log (Lighthouse's DevtoolsLog) into NetworkRecords.
 */
import type { NetworkRecord } from '../plugin-api.js';

interface RawEvent {
  method: string;
  params: any;
}

/**
 * Header names lower-cased. Chromium joins the values of a header sent twice under one name with a
 * newline, but keeps names that differ in case apart (an HTTP/1.1 server's `X-Frame-Options` and
 * `x-frame-options`): those are joined the same way, so that no value of a repeated header is lost.
 */
function lower(headers: Record<string, unknown> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers ?? {})) {
    const name = k.toLowerCase();
    out[name] = name in out ? `${out[name]}\n${String(v)}` : String(v);
  }
  return out;
}

function splitSetCookie(headers: Record<string, unknown> | undefined): string[] {
  for (const [k, v] of Object.entries(headers ?? {})) {
    if (k.toLowerCase() === 'set-cookie') return String(v).split('\n').map((s) => s.trim()).filter(Boolean);
  }
  return [];
}

export function networkFromDevtoolsLog(log: readonly RawEvent[]): NetworkRecord[] {
  const byId = new Map<string, NetworkRecord>();
  const records: NetworkRecord[] = [];
  const extra = new Map<string, { headers: Record<string, unknown> }>();

  const create = (requestId: string, p: any): NetworkRecord => {
    const rec: NetworkRecord = {
      url: p.request.url,
      method: p.request.method,
      status: 0,
      resourceType: p.type ?? 'Other',
      mimeType: '',
      remoteAddress: '',
      protocol: '',
      requestHeaders: lower(p.request.headers),
      responseHeaders: {},
      setCookies: [],
      transferSize: 0,
      resourceSize: 0,
      failed: false,
    };
    const mixed = p.request.mixedContentType;
    if (mixed === 'blockable' || mixed === 'optionally-blockable') rec.mixedContent = mixed;
    byId.set(requestId, rec);
    records.push(rec);
    return rec;
  };

  const applyResponse = (rec: NetworkRecord, response: any) => {
    rec.status = response.status ?? 0;
    rec.mimeType = response.mimeType ?? '';
    rec.remoteAddress = (response.remoteIPAddress ?? '').replace(/^\[|\]$/g, '');
    rec.protocol = response.protocol ?? '';
    rec.responseHeaders = lower(response.headers);
    if (rec.setCookies.length === 0) rec.setCookies = splitSetCookie(response.headers);
    if (typeof response.securityDetails?.protocol === 'string') rec.tlsProtocol = response.securityDetails.protocol;
  };

  for (const event of log) {
    const p = event.params;
    switch (event.method) {
      case 'Network.requestWillBeSent': {
        const previous = byId.get(p.requestId);
        // The same request announced again without a redirect (Chromium does so, e.g. for a request
        // its network service restarts) is still the one request, as Lighthouse's recorder reads it.
        if (previous && !p.redirectResponse) break;
        if (previous) {
          applyResponse(previous, p.redirectResponse);
          const info = extra.get(p.requestId);
          if (info) previous.setCookies = splitSetCookie(info.headers);
          extra.delete(p.requestId);
        }
        create(p.requestId, p);
        break;
      }
      case 'Network.responseReceived': {
        const rec = byId.get(p.requestId);
        if (rec) {
          applyResponse(rec, p.response);
          rec.resourceType = p.type ?? rec.resourceType;
        }
        break;
      }
      case 'Network.responseReceivedExtraInfo': {
        // Raw headers (Set-Cookie included) arrive here, before or after responseReceived.
        extra.set(p.requestId, { headers: p.headers });
        break;
      }
      case 'Network.dataReceived': {
        const rec = byId.get(p.requestId);
        if (rec) rec.resourceSize += p.dataLength ?? 0;
        break;
      }
      case 'Network.loadingFinished': {
        const rec = byId.get(p.requestId);
        if (rec) rec.transferSize = p.encodedDataLength ?? 0;
        break;
      }
      case 'Network.loadingFailed': {
        const rec = byId.get(p.requestId);
        if (rec) {
          rec.failed = true;
          if (typeof p.blockedReason === 'string') rec.blockedReason = p.blockedReason;
        }
        break;
      }
    }
  }
  for (const [requestId, info] of extra) {
    const rec = byId.get(requestId);
    if (rec && rec.setCookies.length === 0) rec.setCookies = splitSetCookie(info.headers);
  }
  return records;
}
