/**
 * The test types no plugin here runs: the established ids API clients already read
 * (webperf-reference.md) that this service does not run (yet), and retired ids kept as inactive so
 * old results stay readable. A test type this service runs carries its identity in its own plugin
 * folder (plugins/<name>/meta.ts); /v1/tests is those plus these (testTypeCatalogue).
 * Names and descriptions in sv, en, da, no, fi and is. The da, no, fi and is descriptions, and the
 * names of retired tests in those languages, are machine-translated (stated in the API's meta).
 */
import type { Localized } from './i18n/langs.js';
import type { Category, OptionalComponent, TestPlugin } from './plugin-api.js';

/** A test type as clients see it in /v1/tests. */
export interface TestType {
  id: number;
  /** Active in the established catalogue (retired ids are inactive). */
  active: boolean;
  /** This service runs the test type (a registered plugin has its id). */
  available: boolean;
  categories: Category[];
  /** Programs the type needs besides Node and Chromium (PluginMeta.requires); empty for most. */
  requires: OptionalComponent[];
  names: Localized;
  descriptions: Localized;
}

/** A catalogue entry without a plugin: never available. */
export type StaticTestType = Omit<TestType, 'available'>;

const same = (text: string): Localized => ({ sv: text, en: text, da: text, no: text, fi: text, is: text });

const D = {
  retired: {
    sv: 'Utgånget test. Behålls så att äldre resultat går att läsa.',
    en: 'Retired test. Kept so that older results stay readable.',
    da: 'Udgået test. Beholdes, så ældre resultater kan læses.',
    no: 'Utgått test. Beholdes slik at eldre resultater kan leses.',
    fi: 'Poistunut testi. Säilytetään, jotta vanhat tulokset pysyvät luettavina.',
    is: 'Aflögð prófun. Haldið svo að eldri niðurstöður séu læsilegar.',
  },
  notRunHere: {
    sv: 'Aktivt i den etablerade katalogen men körs inte av denna tjänst.',
    en: 'Active in the established catalogue but not run by this service.',
    da: 'Aktiv i det etablerede katalog, men køres ikke af denne tjeneste.',
    no: 'Aktiv i den etablerte katalogen, men kjøres ikke av denne tjenesten.',
    fi: 'Aktiivinen vakiintuneessa luettelossa, mutta tämä palvelu ei aja sitä.',
    is: 'Virk í viðurkenndri skrá en ekki keyrð af þessari þjónustu.',
  },
} satisfies Record<string, Localized>;

function entry(id: number, active: boolean, categories: Category[], names: Localized, descriptions?: Localized): StaticTestType {
  return {
    id,
    active,
    categories,
    requires: [],
    names,
    descriptions: descriptions ?? (active ? D.notRunHere : D.retired),
  };
}

export const STATIC_TEST_TYPES: readonly StaticTestType[] = [
  entry(0, false, ['pagespeed'], same('Google Pagespeed API')),
  entry(1, false, ['pagespeed'], {
    sv: 'Prestanda (Google Lighthouse)', en: 'Performance (Google Lighthouse)', da: 'Ydeevne (Google Lighthouse)',
    no: 'Ytelse (Google Lighthouse)', fi: 'Suorituskyky (Google Lighthouse)', is: 'Afköst (Google Lighthouse)',
  }),
  entry(3, false, ['infosec'], same('HTTPS')),
  entry(4, false, ['webstandard'], {
    sv: 'Sökmotoroptimering (Google Lighthouse)', en: 'SEO (Google Lighthouse)', da: 'Søgemaskineoptimering (Google Lighthouse)',
    no: 'Søkemotoroptimalisering (Google Lighthouse)', fi: 'Hakukoneoptimointi (Google Lighthouse)', is: 'Leitarvélabestun (Google Lighthouse)',
  }),
  entry(5, false, ['webstandard'], {
    sv: 'God praxis (Google Lighthouse)', en: 'Best Practice (Google Lighthouse)', da: 'God praksis (Google Lighthouse)',
    no: 'God praksis (Google Lighthouse)', fi: 'Hyvät käytännöt (Google Lighthouse)', is: 'Góðar venjur (Google Lighthouse)',
  }),
  entry(6, false, ['webstandard'], {
    sv: 'HTML-validering (W3C)', en: 'HTML Validation (W3C)', da: 'HTML-validering (W3C)',
    no: 'HTML-validering (W3C)', fi: 'HTML-validointi (W3C)', is: 'HTML-staðfesting (W3C)',
  }),
  entry(7, false, ['webstandard'], {
    sv: 'CSS-validering (W3C)', en: 'CSS Validation (W3C)', da: 'CSS-validering (W3C)',
    no: 'CSS-validering (W3C)', fi: 'CSS-validointi (W3C)', is: 'CSS-staðfesting (W3C)',
  }),
  entry(8, false, ['webstandard'], {
    sv: 'Progressiv webbapp (Google Lighthouse)', en: 'Progressive Web App (Google Lighthouse)', da: 'Progressiv webapp (Google Lighthouse)',
    no: 'Progressiv webapp (Google Lighthouse)', fi: 'Progressiivinen verkkosovellus (Google Lighthouse)', is: 'Framsækið vefforrit (Google Lighthouse)',
  }),
  entry(10, false, ['a11y'], {
    sv: 'Tillgänglighet (Google Lighthouse / axe)', en: 'Accessibility (Google Lighthouse / axe)', da: 'Tilgængelighed (Google Lighthouse / axe)',
    no: 'Tilgjengelighet (Google Lighthouse / axe)', fi: 'Saavutettavuus (Google Lighthouse / axe)', is: 'Aðgengi (Google Lighthouse / axe)',
  }),
  entry(11, false, ['infosec'], same('HTTP/2')),
  entry(15, true, ['pagespeed'], {
    sv: 'Prestanda (Sitespeed.io)', en: 'Performance (Sitespeed.io)', da: 'Ydeevne', no: 'Ytelse', fi: 'Suorituskyky', is: 'Afköst',
  }),
  entry(17, false, ['pagespeed'], {
    sv: 'Kvalitet på frontend (Yellow Lab Tools)', en: 'Quality on frontend (Yellow Lab Tools)', da: 'Kvalitet på frontend (Yellow Lab Tools)',
    no: 'Kvalitet på frontend (Yellow Lab Tools)', fi: 'Käyttöliittymän laatu (Yellow Lab Tools)', is: 'Gæði framenda (Yellow Lab Tools)',
  }),
  entry(20, false, ['infosec'], {
    sv: 'Integritet & Säkerhet (Webbkoll)', en: 'Integrity & Security (Webbkoll)', da: 'Privatlivsbeskyttelse og sikkerhed',
    no: 'Personvern og sikkerhet', fi: 'Tietosuoja ja turvallisuus', is: 'Persónuvernd og öryggi',
  }),
];

/** The note the API puts in `meta`: which texts are machine-translated. */
export const CATALOGUE_META = {
  machine_translated:
    'Descriptions in da, no, fi and is, and the names of retired tests in those languages, are machine-translated and should be reviewed.',
  languages: ['sv', 'en', 'da', 'no', 'fi', 'is'],
} as const;

/**
 * Every test type, in id order: each plugin's own meta (available), then the static entries no
 * plugin claims. A plugin that takes up a static id (a third-party type 15, say) replaces it.
 */
export function testTypeCatalogue(plugins: readonly TestPlugin[]): TestType[] {
  const byId = new Map<number, TestType>(STATIC_TEST_TYPES.map((t) => [t.id, { ...t, available: false }]));
  for (const { meta: m } of plugins) {
    byId.set(m.id, { id: m.id, active: m.active, available: true, categories: [...m.categories], requires: (m.requires ?? []).map((r) => ({ ...r })), names: m.names, descriptions: m.descriptions });
  }
  return [...byId.values()].sort((a, b) => a.id - b.id);
}
