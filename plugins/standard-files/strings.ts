/** User-facing strings of the Standard files plugin (type 9). */
import type { FetchFailure, ReportText } from '../../core/plugin-api.js';
import { fetchFailureText, notFetchedText } from '../../core/net/fetch-failure.js';

const answered = (status: number, type: string, failure?: FetchFailure): ReportText =>
  status === 0
    ? { sv: `gick inte att hämta (${fetchFailureText(failure).sv})`, en: `could not be fetched (${fetchFailureText(failure).en})` }
    : { sv: `svarade ${status}${type ? ` med ${type}` : ''}`, en: `answered ${status}${type ? ` with ${type}` : ''}` };

export const STRINGS = {
  robotsMissing: (status: number, type: string, failure?: FetchFailure): ReportText => ({
    sv: `robots.txt saknas: adressen ${answered(status, type, failure).sv}, inte 200 med text/plain.`,
    en: `robots.txt is missing: the address ${answered(status, type, failure).en}, not 200 with text/plain.`,
  }),
  robotsDisallows: {
    sv: 'robots.txt hindrar alla sökrobotar (User-agent: *) från startsidan.',
    en: 'robots.txt keeps every crawler (User-agent: *) away from the start page.',
  } satisfies ReportText,
  sitemapMissing: {
    sv: 'Ingen webbplatskarta: robots.txt anger ingen och varken /sitemap.xml eller /sitemap_index.xml finns.',
    en: 'No sitemap: robots.txt lists none and neither /sitemap.xml nor /sitemap_index.xml exists.',
  } satisfies ReportText,
  sitemapUnreachable: (url: string, status: number, failure?: FetchFailure): ReportText => ({
    sv: `En webbplatskarta som robots.txt eller ett kartindex anger går inte att hämta (${status === 0 ? fetchFailureText(failure).sv : `adressen svarade ${status} utan någon karta`}), t.ex. ${url}`,
    en: `A sitemap listed in robots.txt or a sitemap index cannot be fetched (${status === 0 ? fetchFailureText(failure).en : `the address answered ${status} without a sitemap`}), e.g. ${url}`,
  }),
  sitemapUnreadable: (url: string, problem: 'too-large' | 'bad-gzip' | 'not-read' | string): ReportText => {
    const why: Record<string, ReportText> = {
      'too-large': { sv: 'den är större än vad som läses', en: 'it is larger than what is read' },
      'bad-gzip': { sv: 'den ser gzippad ut men är ingen giltig gzip-fil', en: 'it looks gzipped but is no valid gzip file' },
      'not-read': { sv: 'fler kartor eller djupare index än vad som läses', en: 'more sitemaps or deeper indexes than what is read' },
    };
    const reason = why[problem] ?? { sv: problem, en: problem };
    return {
      sv: `En webbplatskarta kunde inte läsas (${reason.sv}), t.ex. ${url}`,
      en: `A sitemap could not be read (${reason.en}), e.g. ${url}`,
    };
  },
  sitemapMalformed: (url: string): ReportText => ({
    sv: `Webbplatskartan är inte välformad XML med <urlset> eller <sitemapindex>, t.ex. ${url}`,
    en: `The sitemap is not well-formed XML with <urlset> or <sitemapindex>, e.g. ${url}`,
  }),
  sitemapEmpty: (url: string): ReportText => ({
    sv: `Webbplatskartan innehåller inga adresser (<loc>), t.ex. ${url}`,
    en: `The sitemap lists no addresses (<loc>), e.g. ${url}`,
  }),
  securityTxtMissing: {
    sv: 'security.txt saknas på /.well-known/security.txt (RFC 9116): den talar om hur man rapporterar säkerhetsproblem.',
    en: 'security.txt is missing at /.well-known/security.txt (RFC 9116): it tells how to report security problems.',
  } satisfies ReportText,
  securityTxtContactMissing: {
    sv: 'security.txt saknar fältet Contact, som är obligatoriskt.',
    en: 'security.txt lacks the required Contact field.',
  } satisfies ReportText,
  securityTxtExpiresMissing: {
    sv: 'security.txt saknar fältet Expires, som är obligatoriskt.',
    en: 'security.txt lacks the required Expires field.',
  } satisfies ReportText,
  securityTxtExpiresInvalid: (value: string): ReportText => ({
    sv: `security.txt har ett ogiltigt Expires (ett enda datum enligt RFC 3339 krävs): ${value}`,
    en: `security.txt has an invalid Expires (one RFC 3339 date-time is required): ${value}`,
  }),
  securityTxtExpired: (value: string): ReportText => ({
    sv: `security.txt har gått ut (Expires: ${value}); uppgifterna i den ska inte längre litas på.`,
    en: `security.txt has expired (Expires: ${value}); its contents should no longer be trusted.`,
  }),
  securityTxtExpiresTooFar: (value: string): ReportText => ({
    sv: `security.txt gäller mer än ett år framåt (Expires: ${value}); RFC 9116 rekommenderar under ett år.`,
    en: `security.txt is valid for more than a year ahead (Expires: ${value}); RFC 9116 recommends less than a year.`,
  }),
  feedMissing: {
    sv: 'Sidan länkar inte till något RSS- eller Atom-flöde (<link rel="alternate">).',
    en: 'The page links to no RSS or Atom feed (<link rel="alternate">).',
  } satisfies ReportText,
  feedBroken: (url: string, status: number, failure?: FetchFailure): ReportText => ({
    sv: `Flödet som sidan länkar till svarar inte med ett RSS- eller Atom-dokument, t.ex. ${url} (${status === 0 ? notFetchedText(failure).sv : `status ${status}`}).`,
    en: `A feed the page links to does not answer with an RSS or Atom document, e.g. ${url} (${status === 0 ? notFetchedText(failure).en : `status ${status}`}).`,
  }),
  summary: (p: { robots: boolean; sitemapEntries: number | null; securityTxt: boolean; feeds: number }): ReportText => ({
    sv: `robots.txt: ${p.robots ? 'finns' : 'saknas'}. Adresser i webbplatskartor: ${p.sitemapEntries ?? 'ingen läsbar karta'}. security.txt: ${p.securityTxt ? 'finns' : 'saknas'}. Fungerande flöden: ${p.feeds}.`,
    en: `robots.txt: ${p.robots ? 'found' : 'missing'}. Sitemap addresses: ${p.sitemapEntries ?? 'no readable sitemap'}. security.txt: ${p.securityTxt ? 'found' : 'missing'}. Working feeds: ${p.feeds}.`,
  }),
};
