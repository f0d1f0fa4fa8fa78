/**
 * User-facing strings of the energy-efficiency plugin (type 22). The Swedish lines are
 * webperf_core's (locales/sv/LC_MESSAGES/energy_efficiency.po), the English ones its English
 * locale's, save where noted.
 */
import type { ReportText } from '../../core/plugin-api.js';
import type { CarbonBand } from './carbon.js';

export const BAND: Record<CarbonBand, ReportText> = {
  'very-good': { sv: 'Webbsidan genererar väldigt lite koldioxid!', en: 'Webpage generates very little carbon dioxide!' },
  good: { sv: 'Webbsidan genererar ganska lite koldioxid.', en: 'Webpage generates little carbon dioxide.' },
  ok: { sv: 'Genomsnittligt när det gäller koldioxid.', en: 'Average regarding carbon dioxide.' },
  bad: { sv: 'Webbsidan genererar en hel del koldioxid :/', en: 'The webpage generates more carbon dioxide than is preferable :/' },
  'very-bad': {
    sv: 'Webbsidan är riktigt dålig! Skapar massor av koldioxid för varje sidvisning :(',
    en: 'The website is generating a lot of carbon dioxide, for every pageview :(',
  },
};

export interface SummaryValues {
  band: CarbonBand;
  /** Grams, two decimals. */
  grams: string;
  cleaner: number;
  referenceDate: string;
  size: { value: string; unit: string };
  transferred: { value: string; unit: string };
}

export const STRINGS = {
  /** Upstream's four review lines; the size line also says what the size is (upstream's label alone reads as transfer size). */
  summary: (v: SummaryValues): ReportText => ({
    sv: [
      BAND[v.band].sv,
      `Koldioxid per sidvisning: ${v.grams} gram`,
      `Webbsidan är grönare än ${v.cleaner} % av testade webbplatser på webperf.se (Referens uppdaterad: ${v.referenceDate}).`,
      `Nätverksstorlek: ${v.size.value} ${v.size.unit} (avkodat innehåll; ${v.transferred.value} ${v.transferred.unit} överfört)`,
    ].join('\n'),
    en: [
      BAND[v.band].en,
      `Carbon dioxide per pageview: ${v.grams} grams`,
      `More green than ${v.cleaner} % of the websites tested by webperf.se (Reference updated: ${v.referenceDate}).`,
      `Network size: ${v.size.value} ${v.size.unit} (decoded content; ${v.transferred.value} ${v.transferred.unit} transferred)`,
    ].join('\n'),
  }),
  noRequests: {
    sv: 'Sidladdningen registrerade inga nätverksanrop, så sidans storlek och koldioxid per sidvisning kunde inte bedömas.',
    en: "The page load recorded no network requests, so the page's size and carbon dioxide per page view could not be judged.",
  } satisfies ReportText,
  noBytes: (requests: number): ReportText => ({
    sv: `Sidladdningen registrerade ${requests} nätverksanrop men inga mottagna byte, så koldioxid per sidvisning kunde inte bedömas.`,
    en: `The page load recorded ${requests} network ${requests === 1 ? 'request' : 'requests'} but no bytes received, so the carbon dioxide per page view could not be judged.`,
  }),
};
