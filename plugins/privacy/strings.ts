/**
 * User-facing strings of the Privacy plugin (type 31), in the report languages. The Swedish texts
 * are webperf_core's (locales/sv/LC_MESSAGES/privacy.po), the English ones its en locale's, put
 * in whole sentences with the section first and the numbers in singular or plural.
 */
import type { ReportText } from '../../core/plugin-api.js';

/** The six sections, in upstream's order. */
export const SECTIONS = ['https', 'referrer_policy', 'cookies', 'third_parties', 'headers', 'sri'] as const;
export type Section = (typeof SECTIONS)[number];

export const SECTION_NAMES: Record<Section, ReportText> = {
  https: { sv: 'HTTPS', en: 'HTTPS' },
  referrer_policy: { sv: 'Referrer-Policy', en: 'Referrer-Policy' },
  cookies: { sv: 'Kakor', en: 'Cookies' },
  third_parties: { sv: 'Tredje part', en: 'Third parties' },
  headers: { sv: 'HTTP-headers', en: 'HTTP headers' },
  sri: { sv: 'SRI', en: 'SRI' },
};

/** The overall rating's band, as upstream words it (≥ 5, ≥ 4, ≥ 3, ≥ 2, below). */
export function band(rating: number): ReportText {
  if (rating >= 5) return { sv: 'Webbplatsen är riktigt bra på integritet!', en: 'The website is great on privacy!' };
  if (rating >= 4) return { sv: 'Webbplatsen kan bli bättre, men är helt ok.', en: 'The website could be better, but is pretty good.' };
  if (rating >= 3) return { sv: 'Ok integritet men borde nog bli bättre.', en: 'About average privacy, but it should get better.' };
  if (rating >= 2) return { sv: 'Dålig integritet.', en: 'Rather poor on user privacy.' };
  return { sv: 'Riktigt dålig integritet för användarna!', en: 'Very bad privacy for the users!' };
}

const n = (count: number, one: string, many: string) => (count === 1 ? `1 ${one}` : `${count} ${many}`);
const cookiesSv = (c: number) => n(c, 'kaka', 'kakor');
const cookiesEn = (c: number) => n(c, 'cookie', 'cookies');
const is = (c: number) => (c === 1 ? 'is' : 'are');

/** A section's text: "Section: text." */
const in_ = (section: Section, sv: string, en: string): ReportText => ({ sv: `${SECTION_NAMES[section].sv}: ${sv}.`, en: `${SECTION_NAMES[section].en}: ${en}.` });

export const STRINGS = {
  summary: (rating: number, sections: Record<Section, number>): ReportText => {
    const list = (lang: 'sv' | 'en') => SECTIONS.map((s) => `${SECTION_NAMES[s][lang]} ${sections[s].toFixed(2)}`).join(', ');
    const b = band(rating);
    return { sv: `${b.sv} Delbetyg: ${list('sv')}.`, en: `${b.en} Sections: ${list('en')}.` };
  },
  noHttps: in_('https', 'webbplatsen använder inte HTTPS', 'the website does not use HTTPS'),
  mixedContent: (count: number): ReportText =>
    in_('https', `${count} ${count === 1 ? 'resurs' : 'resurser'} laddas över osäker HTTP (mixed content)`, `${n(count, 'resource', 'resources')} ${is(count)} loaded over insecure HTTP (mixed content)`),
  oldTls: (protocol: string): ReportText => in_('https', `en föråldrad TLS-version används (${protocol})`, `an outdated TLS version is used (${protocol})`),
  referrerMissing: in_('referrer_policy', 'ingen referrer-policy är satt, webbläsare kan läcka besökta adresser till andra webbplatser', 'no referrer policy is set, browsers may leak visited addresses to other websites'),
  referrerLeaky: (policy: string): ReportText =>
    in_('referrer_policy', `referrer-policyn (${policy}) kan läcka besökta adresser till andra webbplatser`, `the referrer policy (${policy}) may leak visited addresses to other websites`),
  thirdPartyCookies: (count: number): ReportText =>
    in_('cookies', `${n(count, 'tredjepartskaka', 'tredjepartskakor')}, besökare kan spåras mellan webbplatser`, `${n(count, 'third-party cookie', 'third-party cookies')}, visitors may be tracked across websites`),
  longLived: (count: number): ReportText =>
    in_('cookies', `${cookiesSv(count)} lever längre än ett år`, `${cookiesEn(count)} live${count === 1 ? 's' : ''} longer than a year`),
  notSecure: (count: number): ReportText =>
    in_('cookies', `${cookiesSv(count)} saknar attributet Secure`, `${cookiesEn(count)} ${count === 1 ? 'is' : 'are'} missing the Secure attribute`),
  notHttpOnly: (count: number): ReportText =>
    in_('cookies', `${cookiesSv(count)} saknar attributet HttpOnly`, `${cookiesEn(count)} ${count === 1 ? 'is' : 'are'} missing the HttpOnly attribute`),
  weakSameSite: (count: number): ReportText =>
    in_('cookies', `${cookiesSv(count)} saknar ett starkt SameSite-attribut (Lax eller Strict)`, `${cookiesEn(count)} ${count === 1 ? 'is' : 'are'} missing a strong SameSite attribute (Lax or Strict)`),
  thirdPartyHosts: (hosts: readonly string[]): ReportText =>
    in_('third_parties', `anrop görs till ${n(hosts.length, 'tredjepartsdomän', 'tredjepartsdomäner')} (${names(hosts)})`, `requests are made to ${n(hosts.length, 'third-party domain', 'third-party domains')} (${names(hosts)})`),
  trackers: (hosts: readonly string[]): ReportText =>
    in_('third_parties', `${n(hosts.length, 'känd spårningsdomän', 'kända spårningsdomäner')} kontaktas (${names(hosts)})`, `${n(hosts.length, 'known tracker domain', 'known tracker domains')} ${hosts.length === 1 ? 'is' : 'are'} contacted (${names(hosts)})`),
  hstsMissing: in_('headers', 'headern Strict-Transport-Security (HSTS) saknas', 'the Strict-Transport-Security (HSTS) header is missing'),
  hstsShort: (maxAge: number): ReportText => in_('headers', `HSTS max-age är kortare än 6 månader (${maxAge} s)`, `HSTS max-age is shorter than 6 months (${maxAge} s)`),
  hstsNoSubdomains: in_('headers', 'HSTS omfattar inte underdomäner (includeSubDomains)', 'HSTS does not cover subdomains (includeSubDomains)'),
  hstsNoPreload: in_('headers', 'HSTS är inte förberedd för preloading (preload)', 'HSTS is not ready for preloading (preload)'),
  xctoMissing: in_('headers', 'headern X-Content-Type-Options saknas eller är felaktig', 'the X-Content-Type-Options header is missing or invalid'),
  framingMissing: in_('headers', 'skydd saknas mot att webbplatsen bäddas in på andra webbplatser (X-Frame-Options eller frame-ancestors)', 'there is no protection against the website being embedded on other websites (X-Frame-Options or frame-ancestors)'),
  sriMissing: (count: number): ReportText =>
    in_('sri', `${count} ${count === 1 ? 'skript eller stilmall' : 'skript eller stilmallar'} från tredje part läses in utan Subresource Integrity (SRI)`, `${n(count, 'third-party script or stylesheet', 'third-party scripts or stylesheets')} ${is(count)} loaded without Subresource Integrity (SRI)`),
};

/** The first names joined, with how many more there are. */
export function names(list: readonly string[], max = 5): string {
  const shown = list.slice(0, max).join(', ');
  return list.length > max ? `${shown} (+${list.length - max})` : shown;
}
