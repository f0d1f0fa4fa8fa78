/** User-facing strings of the Tracking and Privacy plugin (type 23), in the report languages. */
import type { ReportText } from '../../core/plugin-api.js';

/** The first names joined, with how many more there are. */
export function names(list: readonly string[], max = 5): string {
  const shown = list.slice(0, max).join(', ');
  return list.length > max ? `${shown} (+${list.length - max})` : shown;
}

const hostsText = (n: number) => ({ sv: n === 1 ? '1 tredjepartsvärd' : `${n} tredjepartsvärdar`, en: n === 1 ? '1 third-party host' : `${n} third-party hosts` });
const requestsText = (n: number) => ({ sv: n === 1 ? '1 anrop' : `${n} anrop`, en: n === 1 ? '1 request' : `${n} requests` });
const cookies = (n: number) => ({ sv: n === 1 ? '1 kaka' : `${n} kakor`, en: n === 1 ? '1 cookie' : `${n} cookies` });

export const STRINGS = {
  summary: (s: { hosts: number; requests: number; cookies: number; thirdPartyCookies: number; analytics: number }): ReportText => ({
    sv: `Spårning och integritet: ${requestsText(s.requests).sv} till ${hostsText(s.hosts).sv}; ${cookies(s.cookies).sv} (${s.thirdPartyCookies} från tredje part, ${s.analytics} för webbanalys).`,
    en: `Tracking and privacy: ${requestsText(s.requests).en} to ${hostsText(s.hosts).en}; ${cookies(s.cookies).en} (${s.thirdPartyCookies} third-party, ${s.analytics} for web analytics).`,
  }),
  thirdPartyRequests: (hosts: readonly string[], requests: number): ReportText => ({
    sv: `Sidan gör ${requestsText(requests).sv} till ${hostsText(hosts.length).sv} (${names(hosts)}); varje anrop lämnar ut besökarens IP-adress och vilken sida som besöks.`,
    en: `The page makes ${requestsText(requests).en} to ${hostsText(hosts.length).en} (${names(hosts)}); each request hands over the visitor's IP address and the page visited.`,
  }),
  thirdPartyCookies: (list: readonly string[]): ReportText => ({
    sv: `${cookies(list.length).sv} från tredje part sätts (${names(list)}); sådana kakor kan följa besökare mellan webbplatser.`,
    en: `${cookies(list.length).en} from third parties ${list.length === 1 ? 'is' : 'are'} set (${names(list)}); such cookies can follow visitors across sites.`,
  }),
  notSecure: (list: readonly string[]): ReportText => ({
    sv: `${cookies(list.length).sv} saknar flaggan Secure och kan skickas okrypterat: ${names(list)}.`,
    en: `${cookies(list.length).en} lack${list.length === 1 ? 's' : ''} the Secure flag and can be sent unencrypted: ${names(list)}.`,
  }),
  notHttpOnly: (list: readonly string[]): ReportText => ({
    sv: `${cookies(list.length).sv} saknar flaggan HttpOnly och kan läsas av skript på sidan: ${names(list)}.`,
    en: `${cookies(list.length).en} lack${list.length === 1 ? 's' : ''} the HttpOnly flag and can be read by scripts on the page: ${names(list)}.`,
  }),
  sameSiteMissing: (list: readonly string[]): ReportText => ({
    sv: `${cookies(list.length).sv} saknar SameSite (ange Lax eller Strict): ${names(list)}.`,
    en: `${cookies(list.length).en} lack${list.length === 1 ? 's' : ''} SameSite (set Lax or Strict): ${names(list)}.`,
  }),
  sameSiteNone: (list: readonly string[]): ReportText => ({
    sv: `${cookies(list.length).sv} har SameSite=None och skickas även med anrop från andra webbplatser: ${names(list)}.`,
    en: `${cookies(list.length).en} ${list.length === 1 ? 'has' : 'have'} SameSite=None and ${list.length === 1 ? 'is' : 'are'} sent with requests from other sites too: ${names(list)}.`,
  }),
  longLifetime: (list: readonly { name: string; days: number }[]): ReportText => ({
    sv: `${cookies(list.length).sv} lever längre än ett år: ${names(list.map((c) => `${c.name} (${c.days} dagar)`))}.`,
    en: `${cookies(list.length).en} live${list.length === 1 ? 's' : ''} longer than a year: ${names(list.map((c) => `${c.name} (${c.days} days)`))}.`,
  }),
  analyticsWithoutConsent: (list: readonly string[]): ReportText => ({
    sv: `Kakor för webbanalys sätts innan besökaren har samtyckt: ${names(list)}. Vänta med dem tills samtycke har getts.`,
    en: `Web-analytics cookies are set before the visitor has consented: ${names(list)}. Wait with them until consent is given.`,
  }),
};
