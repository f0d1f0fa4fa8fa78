/**
 * User-facing strings of the DNS plugin (type 32), in the report languages. The bands and the
 * summary's phrases are upstream's (locales/sv/LC_MESSAGES/zonemaster_dns.po on its branch), in
 * whole sentences; the messages and test-case names are Zonemaster's own (its translator).
 */
import type { ReportText } from '../../core/plugin-api.js';
import type { Counts } from './rating.js';
import type { Level } from './zonemaster.js';

/** The overall rating's band, as upstream words it (5.0, ≥ 3.5, ≥ 2.5, ≥ 1.5, below). */
export function band(rating: number): ReportText {
  if (rating >= 5) return { sv: 'DNS-uppsättningen är mycket bra!', en: 'The DNS setup is very good!' };
  if (rating >= 3.5) return { sv: 'DNS-uppsättningen är bra, med mindre anmärkningar.', en: 'The DNS setup is good, with minor remarks.' };
  if (rating >= 2.5) return { sv: 'Genomsnittlig DNS-uppsättning, men bör förbättras.', en: 'An average DNS setup, but it should be improved.' };
  if (rating >= 1.5) return { sv: 'Ganska svag DNS-uppsättning.', en: 'A rather weak DNS setup.' };
  return { sv: 'Mycket svag DNS-uppsättning!', en: 'A very weak DNS setup!' };
}

export const LEVEL_NAMES: Record<Level, ReportText> = {
  CRITICAL: { sv: 'kritiskt', en: 'critical' },
  ERROR: { sv: 'fel', en: 'error' },
  WARNING: { sv: 'varning', en: 'warning' },
  NOTICE: { sv: 'notis', en: 'notice' },
  INFO: { sv: 'info', en: 'info' },
  DEBUG: { sv: 'debug', en: 'debug' },
};

/** Module names as Zonemaster's documentation writes them. */
export function moduleName(module: string): string {
  return module === 'DNSSEC' ? 'DNSSEC' : module.charAt(0) + module.slice(1).toLowerCase();
}

/** A message cut to 100 characters, as upstream cuts it. */
export const cut = (text: string, max = 100) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

export const STRINGS = {
  summary: (zone: string, rating: number, counts: Counts): ReportText => {
    const b = band(rating);
    const notices = counts.notices === 0 ? null : {
      sv: `${counts.notices} ${counts.notices === 1 ? 'notis' : 'notiser'} (påverkar inte betyget).`,
      en: `${counts.notices} ${counts.notices === 1 ? 'notice' : 'notices'} (not rated).`,
    };
    const broken = counts.critical > 0 ? { sv: 'Trasig delegering: domänen kan inte slås upp tillförlitligt.', en: 'Broken delegation: the domain cannot be looked up reliably.' } : null;
    const line = (lang: 'sv' | 'en') =>
      [
        `${zone}: ${b[lang]}`,
        lang === 'sv' ? `${counts.ok} av ${counts.total} kriterier utan anmärkning.` : `${counts.ok} of ${counts.total} criteria without remark.`,
        notices?.[lang],
        broken?.[lang],
      ].filter(Boolean).join(' ');
    return { sv: line('sv'), en: line('en') };
  },
  /** One test case's remark: "Module [level] Test case name: message (+n more)". */
  remark: (module: string, level: Level, name: ReportText, message: ReportText, more: number): ReportText => {
    const line = (lang: 'sv' | 'en') =>
      `${moduleName(module)} [${LEVEL_NAMES[level][lang]}] ${name[lang]}: ${cut(message[lang])}${more > 0 ? (lang === 'sv' ? ` (+${more} till)` : ` (+${more} more)`) : ''}`;
    return { sv: line('sv'), en: line('en') };
  },
  noCriteria: (zone: string): ReportText => ({
    sv: `${zone}: Inga DNS-testfall kunde köras.`,
    en: `${zone}: No DNS test case could be run.`,
  }),
  noSuchDomain: (zone: string): ReportText => ({
    sv: `${zone}: domänen finns inte i DNS (NXDOMAIN), så den kunde inte testas.`,
    en: `${zone}: the domain does not exist in DNS (NXDOMAIN), so it could not be tested.`,
  }),
  noNameServers: (zone: string): ReportText => ({
    sv: `${zone}: domänen har inga namnservrar (inga NS-poster), så den kunde inte testas.`,
    en: `${zone}: the domain has no name servers (no NS records), so it could not be tested.`,
  }),
  lookupFailed: (zone: string, error: string): ReportText => ({
    sv: `${zone}: namnservrarna kunde inte slås upp via tjänstens resolver (${error}), så det gick inte att kontrollera att de får testas. Domänen testades inte.`,
    en: `${zone}: its name servers could not be looked up through the service's resolver (${error}), so they could not be checked as allowed targets. The domain was not tested.`,
  }),
  refused: (zone: string, servers: string): ReportText => ({
    sv: `${zone}: namnservrarna har adresser som inte får testas (privata, loopback eller andra interna adresser): ${servers}. Domänen testades inte.`,
    en: `${zone}: its name servers have addresses that are not allowed as test targets (private, loopback or other internal addresses): ${servers}. The domain was not tested.`,
  }),
};
