/**
 * The network log read from Chromium's DevTools protocol events (core/gather/network.ts): a
 * redirect, a request announced twice, sizes, Set-Cookie from the extra-info event, a failure.
 * The events are written out as Chromium sends them (the shapes of the protocol's Network domain).
 */
import t from 'tap';
import { networkFromDevtoolsLog } from '../../core/gather/network.js';

const request = (requestId: string, url: string, extra: Record<string, unknown> = {}) => ({
  method: 'Network.requestWillBeSent',
  params: { requestId, type: 'Document', request: { url, method: 'GET', headers: { Accept: 'text/html' } }, ...extra },
});
const response = (requestId: string, status: number, headers: Record<string, string>) => ({
  method: 'Network.responseReceived',
  params: { requestId, type: 'Document', response: { status, mimeType: 'text/html', remoteIPAddress: '[::1]', protocol: 'h2', headers } },
});

t.test('a redirect is two records; a request announced again without a redirect stays one; sizes, cookies and failures', async (t) => {
  const records = networkFromDevtoolsLog([
    request('1', 'http://kommun.test/'),
    request('1', 'https://kommun.test/', {
      redirectResponse: { status: 301, mimeType: '', remoteIPAddress: '127.0.0.1', protocol: 'http/1.1', headers: { Location: 'https://kommun.test/' } },
    }),
    request('1', 'https://kommun.test/'),
    { method: 'Network.responseReceivedExtraInfo', params: { requestId: '1', headers: { 'set-cookie': 'a=1; Secure\nb=2; HttpOnly' } } },
    response('1', 200, { 'Content-Type': 'text/html', 'content-type': 'charset=utf-8' }),
    { method: 'Network.dataReceived', params: { requestId: '1', dataLength: 1000 } },
    { method: 'Network.dataReceived', params: { requestId: '1', dataLength: 234 } },
    { method: 'Network.loadingFinished', params: { requestId: '1', encodedDataLength: 700 } },
    request('2', 'https://cdn.kommun.test/app.js', { type: 'Script' }),
    { method: 'Network.loadingFailed', params: { requestId: '2', errorText: 'net::ERR_CONNECTION_RESET' } },
  ]);
  t.same(
    records.map((r) => [r.url, r.status, r.failed, r.transferSize, r.resourceSize, r.setCookies]),
    [
      ['http://kommun.test/', 301, false, 0, 0, []],
      ['https://kommun.test/', 200, false, 700, 1234, ['a=1; Secure', 'b=2; HttpOnly']],
      ['https://cdn.kommun.test/app.js', 0, true, 0, 0, []],
    ],
  );
  t.equal(records[1].remoteAddress, '::1');
  t.equal(records[1].responseHeaders['content-type'], 'text/html\ncharset=utf-8', 'a header sent under two spellings keeps both values');
  t.same(records[0].responseHeaders, { location: 'https://kommun.test/' });
});

t.test("Chromium's mixed-content verdict, its own refusal and the TLS version are kept; absent where Chromium says nothing", async (t) => {
  const records = networkFromDevtoolsLog([
    request('1', 'https://kommun.test/'),
    { method: 'Network.responseReceived', params: { requestId: '1', type: 'Document', response: { status: 200, mimeType: 'text/html', headers: {}, securityDetails: { protocol: 'TLS 1.3' } } } },
    { method: 'Network.requestWillBeSent', params: { requestId: '2', type: 'Script', request: { url: 'http://cdn.kommun.test/a.js', method: 'GET', headers: {}, mixedContentType: 'blockable' } } },
    { method: 'Network.loadingFailed', params: { requestId: '2', errorText: 'net::ERR_BLOCKED_BY_CLIENT', blockedReason: 'mixed-content' } },
    { method: 'Network.requestWillBeSent', params: { requestId: '3', type: 'Image', request: { url: 'https://cdn.kommun.test/a.png', method: 'GET', headers: {}, mixedContentType: 'none' } } },
  ]);
  t.strictSame(records.map((r) => [r.url, r.tlsProtocol, r.mixedContent, r.blockedReason, r.failed]), [
    ['https://kommun.test/', 'TLS 1.3', undefined, undefined, false],
    ['http://cdn.kommun.test/a.js', undefined, 'blockable', 'mixed-content', true],
    ['https://cdn.kommun.test/a.png', undefined, undefined, undefined, false],
  ]);
  t.notOk('mixedContent' in records[2], "'none' leaves the field out");
});
