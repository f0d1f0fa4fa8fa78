/**
 * User-facing strings of the software plugin (type 25), in the report languages. The Swedish
 * category lines and headings are webperf_core's (locales/sv/LC_MESSAGES/software.po), the English
 * ones its English locale's, lightly edited.
 */
import type { ReportText } from '../../core/plugin-api.js';
import type { SoftwareCategory } from './rules.js';

/** The overall review's line per category: upstream's TEXT_USED_* ("Innehållshanteringssystem: {0}"). */
export const CATEGORY_LINES: Record<SoftwareCategory, ReportText> = {
  cms: { sv: 'Innehållshanteringssystem', en: 'CMS used' },
  webserver: { sv: 'Webbserver', en: 'Web server used' },
  os: { sv: 'Operativsystem', en: 'Operating system used' },
  analytics: { sv: 'Besökaranalys', en: 'Analytics used' },
  tech: { sv: 'Teknik', en: 'Technology used' },
  js: { sv: 'JS-ramverk/bibliotek', en: 'JavaScript libraries used' },
  a11y_overlay: { sv: 'Tillgänglighetslager', en: 'Accessibility overlays used' },
  'wordpress-plugin': { sv: 'WordPress-tillägg', en: 'WordPress plugins' },
  'wordpress-theme': { sv: 'WordPress-tema', en: 'WordPress theme' },
};

/** Points as each language writes a decimal number. */
const pts = (points: number) => ({ sv: points.toFixed(2).replace('.', ','), en: points.toFixed(2) });

const list = (items: readonly string[]) => items.join(', ');

/** "Upptäckta mjukvaror: …. Påverkade resurser: …." (upstream's two lists, at most 15 each). */
function lists(softwares: readonly string[], resources: readonly string[]): ReportText {
  return {
    sv: ` Upptäckta mjukvaror: ${list(softwares)}.${resources.length ? ` Påverkade resurser: ${list(resources)}.` : ''}`,
    en: ` Detected software: ${list(softwares)}.${resources.length ? ` Affected resources: ${list(resources)}.` : ''}`,
  };
}

function withLists(head: ReportText, softwares: readonly string[], resources: readonly string[]): ReportText {
  const tail = lists(softwares, resources);
  return { sv: head.sv + tail.sv, en: head.en + tail.en };
}

const vulnerabilities = (n: number) => ({ sv: n === 1 ? '1 känd sårbarhet' : `${n} kända sårbarheter`, en: n === 1 ? '1 known vulnerability' : `${n} known vulnerabilities` });

export const STRINGS = {
  summary: (lines: readonly ReportText[]): ReportText =>
    lines.length
      ? { sv: `Mjukvara: ${lines.map((l) => l.sv).join('. ')}.`, en: `Software: ${lines.map((l) => l.en).join('. ')}.` }
      : { sv: 'Ingen mjukvara kunde identifieras på sidan.', en: 'No software could be identified on the page.' },
  categoryLine: (category: SoftwareCategory, names: readonly string[]): ReportText => ({
    sv: `${CATEGORY_LINES[category].sv}: ${list(names)}`,
    en: `${CATEGORY_LINES[category].en}: ${list(names)}`,
  }),
  staleData: (files: readonly { label: ReportText; days: number }[]): ReportText => ({
    sv: ` Obs: ${files.map((f) => `${f.label.sv} är ${f.days} dagar gammal`).join(', ')}.`,
    en: ` Note: ${files.map((f) => `${f.label.en} is ${f.days} days old`).join(', ')}.`,
  }),
  dataLabels: {
    retirejs: { sv: 'sårbarhetsdatan från RetireJS', en: "RetireJS's vulnerability data" },
    server_software: { sv: 'versionsdatan för serverprogramvara', en: 'the server-software version data' },
    js_libraries: { sv: 'versionsdatan för JS-bibliotek', en: 'the JavaScript-library version data' },
  } satisfies Record<string, ReportText>,
  notRated: {
    sv: 'Sidan gav varken HTML eller några anrop att läsa: mjukvaran kunde inte bedömas.',
    en: 'The page gave neither HTML nor any requests to read: its software could not be judged.',
  } satisfies ReportText,

  notScanned: (count: number, urls: readonly string[], seconds: number, budget: number): ReportText => {
    const shown = urls.slice(0, 5).join(', ');
    const more = count - Math.min(count, 5);
    return {
      sv: `${count} skript kunde inte sökas igenom efter JavaScript-bibliotek i tid (${seconds} s per skript, ${budget} s totalt) och bedömdes inte: ${shown}${more ? ` och ${more} till` : ''}.`,
      en: `${count} ${count === 1 ? 'script' : 'scripts'} could not be searched for JavaScript libraries in time (${seconds} s per script, ${budget} s in all) and ${count === 1 ? 'was' : 'were'} not judged: ${shown}${more ? ` and ${more} more` : ''}.`,
    };
  },

  cve: (ids: readonly string[], softwares: readonly string[], resources: readonly string[]): ReportText =>
    withLists(
      {
        sv: `Mjukvara relaterad till CVE:s (${pts(1).sv} betyg var): ${vulnerabilities(ids.length).sv} (${list(ids)}). Uppdatera till en version utan dem.`,
        en: `Software related to CVE:s (${pts(1).en} rating each): ${vulnerabilities(ids.length).en} (${list(ids)}). Update to a version without them.`,
      },
      softwares,
      resources,
    ),
  behind: (level: number, points: number, softwares: readonly string[], resources: readonly string[]): ReportText =>
    withLists(
      {
        sv: `Mjukvara ligger efter >=${level} versioner (${pts(points).sv} betyg): det finns ${level} eller fler nyare versioner.`,
        en: `Software is behind >=${level} versions (${pts(points).en} rating): ${level} or more newer versions exist.`,
      },
      softwares,
      resources,
    ),
  archived: (points: number, softwares: readonly string[], resources: readonly string[]): ReportText =>
    withLists(
      {
        sv: `Mjukvaran är markerad som arkiverad (${pts(points).sv} betyg): den får varken ny funktionalitet eller säkerhetsuppdateringar.`,
        en: `Software has been marked as archived (${pts(points).en} rating): it gets neither new features nor security updates.`,
      },
      softwares,
      resources,
    ),
  unmaintained: (years: number, points: number, softwares: readonly string[], resources: readonly string[]): ReportText =>
    withLists(
      {
        sv: `Mjukvara saknar buggrättningar eller andra ändringar de senaste ${years} åren (${pts(points).sv} betyg).`,
        en: `Software has had no bug fixes or other changes in the last ${years} years (${pts(points).en} rating).`,
      },
      softwares,
      resources,
    ),
  endOfLife: (points: number, softwares: readonly string[], resources: readonly string[]): ReportText =>
    withLists(
      {
        sv: `Mjukvara används som tycks ha nått sitt bäst före datum (${pts(points).sv} betyg): versionen får inga säkerhetsuppdateringar längre.`,
        en: `You seem to be using 'END OF LIFE' software (${pts(points).en} rating): the version no longer gets security updates.`,
      },
      softwares,
      resources,
    ),
  overlay: (points: number, softwares: readonly string[], resources: readonly string[]): ReportText =>
    withLists(
      {
        sv: `Du ser ut att använda tillgänglighetslager-mjukvara (${pts(points).sv} betyg): ett lager ovanpå sidan rättar inte dess tillgänglighetsbrister och kan skapa nya.`,
        en: `You seem to be using accessibility overlay software (${pts(points).en} rating): a layer on top of the page does not fix its accessibility problems and can add new ones.`,
      },
      softwares,
      resources,
    ),
  noCve: { sv: 'Inga vanliga sårbarheter och exponeringar hittade.', en: 'No Common Vulnerabilities and Exposures found.' } satisfies ReportText,
  noBehind: { sv: 'Det ser ut som att du använder senaste versionen på all mjukvara vi hittar.', en: 'You seem to be up to date for all software we can identify.' } satisfies ReportText,
  noSourceIssues: { sv: 'Mjukvara ser ut att underhållas.', en: 'Open-source software used seems to be maintained.' } satisfies ReportText,
  noEndOfLife: { sv: 'Mjukvara som används ser ej ut att ha nått sitt bäst före datum.', en: "You don't seem to be using 'END OF LIFE' software." } satisfies ReportText,
  noOverlay: { sv: 'Du ser ej ut att använda tillgänglighetslager-mjukvara.', en: "You don't seem to be using accessibility overlay software." } satisfies ReportText,
};
