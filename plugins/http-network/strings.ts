/** User-facing strings of the HTTP & Network plugin (type 21), in the report languages. */
import type { ReportText } from '../../core/plugin-api.js';
import { listOf } from './check.js';

const ONE_YEAR = 31_536_000;
const quoted = (sources: readonly string[]) => listOf(sources, 6);

export const STRINGS = {
  summary: (s: { https: boolean; versions: string[]; protocol: string; score: number }): ReportText => ({
    sv: `HTTP & nätverk: ${s.https ? 'HTTPS' : 'endast HTTP'}, TLS ${s.versions.length ? s.versions.join(', ') : 'saknas'}, protokoll ${s.protocol || 'okänt'}; Observatory-liknande poäng ${s.score}.`,
    en: `HTTP & Network: ${s.https ? 'HTTPS' : 'HTTP only'}, TLS ${s.versions.length ? s.versions.join(', ') : 'none'}, protocol ${s.protocol || 'unknown'}; Observatory-like score ${s.score}.`,
  }),

  // Transport: HTTPS, redirect, TLS, HTTP/2
  httpsMissing: (host: string, port: number): ReportText => ({
    sv: `Webbplatsen svarar inte med HTTPS (TLS) på ${host}:${port}: all trafik går okrypterad. Aktivera HTTPS med ett betrott certifikat och omdirigera HTTP dit.`,
    en: `The site does not answer HTTPS (TLS) on ${host}:${port}: all traffic is unencrypted. Enable HTTPS with a trusted certificate and redirect HTTP to it.`,
  }),
  httpNotRedirected: (url: string, status: number, error?: string): ReportText => ({
    sv: `${url} omdirigerar inte till HTTPS (${error ? `fel: ${error}` : `svarade ${status}`}); använd en permanent omdirigering (301 eller 308) till https:// på samma värd.`,
    en: `${url} does not redirect to HTTPS (${error ? `error: ${error}` : `answered ${status}`}); use a permanent redirect (301 or 308) to https:// on the same host.`,
  }),
  httpRedirectNotHttps: (url: string, last: string): ReportText => ({
    sv: `Omdirigeringarna från ${url} slutar på ${last}, som inte är HTTPS; omdirigera till https:// på samma värd.`,
    en: `The redirects from ${url} end at ${last}, which is not HTTPS; redirect to https:// on the same host.`,
  }),
  httpRedirectFirstNotHttps: (url: string, location: string): ReportText => ({
    sv: `${url} omdirigerar först till ${location}, som inte är HTTPS, och når HTTPS först senare; den första omdirigeringen bör gå direkt till https:// på samma värd.`,
    en: `${url} first redirects to ${location}, which is not HTTPS, and reaches HTTPS only later; the first redirect should go straight to https:// on the same host.`,
  }),
  httpRedirectBroken: (url: string, failed: string, error: string): ReportText => ({
    sv: `Omdirigeringen från ${url} leder till ${failed}, som inte svarar (${error}); den som skriver adressen utan https:// får ett fel.`,
    en: `The redirect from ${url} leads to ${failed}, which does not answer (${error}); visitors typing the address without https:// get an error.`,
  }),
  httpRedirectOffHost: (url: string, location: string): ReportText => ({
    sv: `${url} omdirigerar till HTTPS på en annan värd (${location}); omdirigera först till https:// på samma värd så att HSTS kan sättas för den.`,
    en: `${url} redirects to HTTPS on another host (${location}); redirect to https:// on the same host first so that HSTS can be set for it.`,
  }),
  tlsOldVersions: (versions: readonly string[]): ReportText => ({
    sv: `Servern accepterar föråldrade TLS-versioner (${versions.join(', ')}); stäng av TLS 1.0 och 1.1 och erbjud bara TLS 1.2 och 1.3.`,
    en: `The server accepts outdated TLS versions (${versions.join(', ')}); turn off TLS 1.0 and 1.1 and offer only TLS 1.2 and 1.3.`,
  }),
  tlsUntrusted: (error: string): ReportText => ({
    sv: `Certifikatet är inte betrott (${error}); webbläsare varnar besökarna eller stoppar sidan. Använd ett certifikat från en betrodd utfärdare och skicka hela kedjan.`,
    en: `The certificate is not trusted (${error}); browsers warn visitors or refuse the page. Use a certificate from a trusted authority and send the whole chain.`,
  }),
  tlsRouteUntrusted: (url: string, origins: readonly string[]): ReportText => ({
    sv: `Omdirigeringen från ${url} går via ${listOf(origins, 3)}, vars certifikat inte är betrott; webbläsare varnar besökarna eller stoppar där.`,
    en: `The redirect from ${url} passes ${listOf(origins, 3)}, whose certificate is not trusted; browsers warn visitors or stop there.`,
  }),
  tlsExpired: (days: number, date: string): ReportText => ({
    sv: `Certifikatet gick ut ${date} (för ${-days} dagar sedan); förnya det.`,
    en: `The certificate expired on ${date} (${-days} days ago); renew it.`,
  }),
  tlsExpiring: (days: number, date: string): ReportText => ({
    sv: `Certifikatet går ut om ${days} dagar (${date}); förnya det i god tid, gärna automatiskt.`,
    en: `The certificate expires in ${days} days (${date}); renew it in good time, preferably automatically.`,
  }),
  http2Missing: (protocol: string, https: boolean): ReportText => ({
    sv: `Sidan levereras inte över HTTP/2 eller HTTP/3 (protokoll: ${protocol || 'okänt'})${https ? '' : '; webbläsare använder HTTP/2 bara över HTTPS'}.`,
    en: `The page is not delivered over HTTP/2 or HTTP/3 (protocol: ${protocol || 'unknown'})${https ? '' : '; browsers use HTTP/2 only over HTTPS'}.`,
  }),

  // HSTS
  hstsMissing: {
    sv: 'HSTS-huvudet (Strict-Transport-Security) saknas; webbläsare kan då fortfarande nå sidan över okrypterad HTTP.',
    en: 'The HSTS header (Strict-Transport-Security) is missing; browsers may still reach the page over unencrypted HTTP.',
  } satisfies ReportText,
  hstsZero: {
    sv: 'HSTS-huvudet har max-age=0, vilket stänger av HSTS; sätt max-age till minst ett år (31536000).',
    en: 'The HSTS header has max-age=0, which turns HSTS off; set max-age to at least one year (31536000).',
  } satisfies ReportText,
  hstsInvalid: (value: string): ReportText => ({
    sv: `HSTS-huvudet går inte att tolka ("${value}"); det måste innehålla max-age=<sekunder>.`,
    en: `The HSTS header cannot be parsed ("${value}"); it must contain max-age=<seconds>.`,
  }),
  hstsRepeated: (value: string): ReportText => ({
    sv: `HSTS-huvudet skickas mer än en gång ("${value}"). Webbläsare använder det första (RFC 6797, 8.1), men MDN HTTP Observatory räknar ett upprepat huvud som ogiltigt; skicka det en gång.`,
    en: `The HSTS header is sent more than once ("${value}"). Browsers use the first one (RFC 6797, 8.1), but the MDN HTTP Observatory counts a repeated header as invalid; send it once.`,
  }),
  hstsShort: (maxAge: number): ReportText => {
    const days = Math.floor(maxAge / 86_400);
    return {
      sv: `HSTS max-age är ${maxAge} sekunder${days >= 1 ? ` (${days} dagar)` : ''}; minst ett år (${ONE_YEAR}) rekommenderas.`,
      en: `HSTS max-age is ${maxAge} seconds${days >= 1 ? ` (${days} days)` : ''}; at least one year (${ONE_YEAR}) is recommended.`,
    };
  },
  hstsNoSubdomains: {
    sv: 'HSTS saknar includeSubDomains; underdomäner skyddas inte och domänen kan inte förinläsas (preload).',
    en: 'HSTS lacks includeSubDomains; subdomains are not protected and the domain cannot be preloaded.',
  } satisfies ReportText,
  hstsNoPreload: {
    sv: 'HSTS saknar preload; domänen kan inte läggas in i webbläsarnas förinlästa HSTS-lista.',
    en: 'HSTS lacks preload; the domain cannot be added to the browsers\' HSTS preload list.',
  } satisfies ReportText,

  // Content-Security-Policy
  cspMissing: {
    sv: 'Content-Security-Policy saknas; en policy begränsar vilka skript och resurser sidan får ladda och minskar skadan vid XSS.',
    en: 'Content-Security-Policy is missing; a policy limits which scripts and resources the page may load and reduces the damage of XSS.',
  } satisfies ReportText,
  cspReportOnly: {
    sv: 'Content-Security-Policy finns bara som Content-Security-Policy-Report-Only, som rapporterar men inte skyddar; sätt en verkställd policy.',
    en: 'Content-Security-Policy is only sent as Content-Security-Policy-Report-Only, which reports but does not protect; send an enforced policy.',
  } satisfies ReportText,
  cspInvalid: (value: string): ReportText => ({
    sv: `Content-Security-Policy går inte att tolka ("${value.slice(0, 120)}"); inga kända direktiv hittades.`,
    en: `Content-Security-Policy cannot be parsed ("${value.slice(0, 120)}"); no known directives were found.`,
  }),
  cspRepeatedDirective: (directive: string): ReportText => ({
    sv: `CSP anger ${directive} mer än en gång i samma policy; webbläsare använder den första och bortser från resten, och MDN HTTP Observatory räknar policyn som ogiltig. Samla källorna i ett direktiv.`,
    en: `CSP sets ${directive} more than once in one policy; browsers use the first and ignore the rest, and the MDN HTTP Observatory counts the policy as invalid. Put the sources in one directive.`,
  }),
  cspRepeatedHeader: (joined: string): ReportText => ({
    sv: `Content-Security-Policy skickas mer än en gång. Webbläsare verkställer varje policy, men MDN HTTP Observatory läser dem sammanfogade ("${joined.slice(0, 160)}") som en policy, och den går inte att tolka. Skicka policyn i ett huvud.`,
    en: `Content-Security-Policy is sent more than once. Browsers enforce each policy, but the MDN HTTP Observatory reads them joined ("${joined.slice(0, 160)}") as one policy, which it cannot read. Send the policy in one header.`,
  }),
  cspStrictDynamicAlone: {
    sv: "CSP har 'strict-dynamic' utan nonce eller hash; webbläsare som förstår det tillåter då inga skript alls, och MDN HTTP Observatory räknar policyn som ogiltig. Lägg till en nonce eller hash.",
    en: "CSP has 'strict-dynamic' without a nonce or hash, so browsers that know it allow no script at all, and the MDN HTTP Observatory counts the policy as invalid. Add a nonce or hash.",
  } satisfies ReportText,
  cspUnreadable: (detail: string): ReportText => ({
    sv: `Content-Security-Policy går inte att tolka (${detail}).`,
    en: `Content-Security-Policy cannot be parsed (${detail}).`,
  }),
  cspUnsafeInline: (directive: string): ReportText => ({
    sv: `CSP tillåter 'unsafe-inline' för skript (${directive}) utan nonce eller hash; inskjutna skript körs då. Använd nonce eller hash i stället.`,
    en: `CSP allows 'unsafe-inline' for scripts (${directive}) without a nonce or hash, so injected scripts run. Use nonces or hashes instead.`,
  }),
  cspUnsafeEval: (directive: string): ReportText => ({
    sv: `CSP tillåter 'unsafe-eval' för skript (${directive}); eval() och liknande kan köra text som kod.`,
    en: `CSP allows 'unsafe-eval' for scripts (${directive}); eval() and the like can run text as code.`,
  }),
  cspScriptBroad: (directive: string, sources: readonly string[]): ReportText => ({
    sv: `CSP tillåter skript från alltför breda källor i ${directive}: ${quoted(sources)}; ange de värdar som behövs, eller nonce/hash med 'strict-dynamic'.`,
    en: `CSP allows scripts from overly broad sources in ${directive}: ${quoted(sources)}; list the hosts needed, or use nonces/hashes with 'strict-dynamic'.`,
  }),
  cspScriptMissing: {
    sv: 'CSP begränsar inte skript: varken script-src eller default-src finns.',
    en: 'CSP does not restrict scripts: neither script-src nor default-src is set.',
  } satisfies ReportText,
  cspObjectUnsafe: (sources: readonly string[] | null): ReportText => ({
    sv: `CSP begränsar inte insticksinnehåll (object-src${sources ? `: ${quoted(sources)}` : ' och default-src saknas'}); sätt object-src 'none'.`,
    en: `CSP does not restrict plugin content (object-src${sources ? `: ${quoted(sources)}` : ' and default-src are missing'}); set object-src 'none'.`,
  }),
  cspObjectNotNone: (sources: readonly string[]): ReportText => ({
    sv: `CSP:s object-src är ${quoted(sources)}; object-src 'none' rekommenderas eftersom insticksinnehåll sällan behövs.`,
    en: `CSP's object-src is ${quoted(sources)}; object-src 'none' is recommended because plugin content is rarely needed.`,
  }),
  cspBaseUriMissing: {
    sv: "CSP saknar base-uri; en inskjuten <base>-tagg kan då styra om sidans relativa adresser. Sätt base-uri 'self' eller 'none'.",
    en: "CSP lacks base-uri, so an injected <base> tag can redirect the page's relative URLs. Set base-uri 'self' or 'none'.",
  } satisfies ReportText,
  cspInsecureScheme: (directives: readonly string[]): ReportText => ({
    sv: `CSP tillåter okrypterad http: på en HTTPS-sida (${directives.join(', ')}).`,
    en: `CSP allows unencrypted http: on an HTTPS page (${directives.join(', ')}).`,
  }),

  // Other security headers
  xctoMissing: {
    sv: 'X-Content-Type-Options saknas; sätt den till nosniff så att webbläsaren inte gissar innehållstyp.',
    en: 'X-Content-Type-Options is missing; set it to nosniff so that the browser does not guess content types.',
  } satisfies ReportText,
  xctoInvalid: (value: string): ReportText => ({
    sv: `X-Content-Type-Options är "${value}"; det enda giltiga värdet är nosniff.`,
    en: `X-Content-Type-Options is "${value}"; the only valid value is nosniff.`,
  }),
  xctoRepeated: (value: string): ReportText => ({
    sv: `X-Content-Type-Options skickas mer än en gång ("${value}"); webbläsare läser det första värdet, men MDN HTTP Observatory räknar huvudet som ogiltigt. Skicka nosniff en gång.`,
    en: `X-Content-Type-Options is sent more than once ("${value}"); browsers read the first value, but the MDN HTTP Observatory counts the header as invalid. Send nosniff once.`,
  }),
  referrerMissing: {
    sv: 'Referrer-Policy saknas; sätt till exempel strict-origin-when-cross-origin eller no-referrer så att fullständiga adresser inte lämnas ut till andra webbplatser.',
    en: 'Referrer-Policy is missing; set for example strict-origin-when-cross-origin or no-referrer so that full addresses are not handed to other sites.',
  } satisfies ReportText,
  referrerUnsafe: (value: string): ReportText => ({
    sv: `Referrer-Policy är ${value}, som lämnar ut mer av adressen än nödvändigt till andra webbplatser; använd strict-origin-when-cross-origin, same-origin eller no-referrer.`,
    en: `Referrer-Policy is ${value}, which hands more of the address than needed to other sites; use strict-origin-when-cross-origin, same-origin or no-referrer.`,
  }),
  referrerInvalid: (value: string): ReportText => ({
    sv: `Referrer-Policy "${value}" innehåller inget giltigt värde och ignoreras av webbläsaren.`,
    en: `Referrer-Policy "${value}" has no valid value and is ignored by the browser.`,
  }),
  permissionsMissing: {
    sv: 'Permissions-Policy saknas; med den stänger sidan av funktioner den inte använder (kamera, mikrofon, plats med mera), även för inbäddat innehåll.',
    en: 'Permissions-Policy is missing; with it the page turns off features it does not use (camera, microphone, location and more), embedded content included.',
  } satisfies ReportText,
  xfoRepeated: (value: string): ReportText => ({
    sv: `X-Frame-Options skickas mer än en gång ("${value}"); webbläsare skyddar ändå mot inramning, men MDN HTTP Observatory räknar huvudet som ogiltigt. Skicka DENY eller SAMEORIGIN en gång, eller använd CSP frame-ancestors.`,
    en: `X-Frame-Options is sent more than once ("${value}"); browsers still block framing, but the MDN HTTP Observatory counts the header as invalid. Send DENY or SAMEORIGIN once, or use CSP frame-ancestors.`,
  }),
  framingUnprotected: (xfo: string | undefined): ReportText => ({
    sv: `Sidan saknar skydd mot inramning (clickjacking): varken CSP frame-ancestors eller X-Frame-Options DENY/SAMEORIGIN finns${xfo ? ` (X-Frame-Options är "${xfo}")` : ''}.`,
    en: `The page has no protection against framing (clickjacking): neither CSP frame-ancestors nor X-Frame-Options DENY/SAMEORIGIN is set${xfo ? ` (X-Frame-Options is "${xfo}")` : ''}.`,
  }),

  // Mixed content
  mixedActive: (urls: readonly string[]): ReportText => ({
    sv: `HTTPS-sidan laddar ${urls.length} skript, stilmallar eller andra aktiva resurser över okrypterad HTTP: ${listOf(urls, 3)}.`,
    en: `The HTTPS page loads ${urls.length} scripts, stylesheets or other active resources over unencrypted HTTP: ${listOf(urls, 3)}.`,
  }),
  mixedPassive: (urls: readonly string[]): ReportText => ({
    sv: `HTTPS-sidan laddar ${urls.length} bilder eller media över okrypterad HTTP: ${listOf(urls, 3)}.`,
    en: `The HTTPS page loads ${urls.length} images or media over unencrypted HTTP: ${listOf(urls, 3)}.`,
  }),
};
