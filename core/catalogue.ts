/**
 * The test-type catalogue: the established ids API clients already read (webperf-reference.md),
 * retired ids kept as inactive so old results stay readable, and this service's own ids from 100.
 * Names and descriptions in sv, en, da, no, fi and is. The da, no, fi and is descriptions, and the
 * names of retired tests in those languages, are machine-translated (stated in the API's meta).
 */
import type { Localized } from './i18n/langs.js';
import type { Category } from './plugin-api.js';

/** One entry of the catalogue. */
export interface TestType {
  id: number;
  /** Active in the established catalogue (retired ids are inactive). */
  active: boolean;
  /** This service runs the test type (it has a plugin). */
  available: boolean;
  categories: Category[];
  names: Localized;
  descriptions: Localized;
}

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

function entry(
  id: number,
  active: boolean,
  available: boolean,
  categories: Category[],
  names: Localized,
  descriptions?: Localized,
): TestType {
  return {
    id,
    active,
    available,
    categories,
    names,
    descriptions: descriptions ?? (active ? D.notRunHere : D.retired),
  };
}

export const CATALOGUE: readonly TestType[] = [
  entry(0, false, false, ['pagespeed'], same('Google Pagespeed API')),
  entry(1, false, false, ['pagespeed'], {
    sv: 'Prestanda (Google Lighthouse)', en: 'Performance (Google Lighthouse)', da: 'Ydeevne (Google Lighthouse)',
    no: 'Ytelse (Google Lighthouse)', fi: 'Suorituskyky (Google Lighthouse)', is: 'Afköst (Google Lighthouse)',
  }),
  entry(2, true, true, ['webstandard'], {
    sv: '404 (sida finns inte)', en: '404 (Page not Found)', da: '404 (side findes ikke)',
    no: '404 (side finnes ikke)', fi: '404 (sivua ei löydy)', is: '404 (síða finnst ekki)',
  }, {
    sv: 'Kontrollerar att en adress som inte finns svarar 404 med en begriplig sida: titel, rubrik, tillräckligt med text och sidans språk.',
    en: 'Checks that an address that does not exist answers 404 with a helpful page: title, heading, enough text and the page language.',
    da: 'Kontrollerer, at en adresse, der ikke findes, svarer 404 med en forståelig side: titel, overskrift, nok tekst og sidens sprog.',
    no: 'Kontrollerer at en adresse som ikke finnes, svarer 404 med en forståelig side: tittel, overskrift, nok tekst og sidens språk.',
    fi: 'Tarkistaa, että olematon osoite vastaa 404 ja ymmärrettävällä sivulla: otsikko, pääotsikko, riittävästi tekstiä ja sivun kieli.',
    is: 'Athugar að slóð sem ekki er til svari 404 með skiljanlegri síðu: titli, fyrirsögn, nægum texta og tungumáli síðunnar.',
  }),
  entry(3, false, false, ['infosec'], same('HTTPS')),
  entry(4, false, false, ['webstandard'], {
    sv: 'Sökmotoroptimering (Google Lighthouse)', en: 'SEO (Google Lighthouse)', da: 'Søgemaskineoptimering (Google Lighthouse)',
    no: 'Søkemotoroptimalisering (Google Lighthouse)', fi: 'Hakukoneoptimointi (Google Lighthouse)', is: 'Leitarvélabestun (Google Lighthouse)',
  }),
  entry(5, false, false, ['webstandard'], {
    sv: 'God praxis (Google Lighthouse)', en: 'Best Practice (Google Lighthouse)', da: 'God praksis (Google Lighthouse)',
    no: 'God praksis (Google Lighthouse)', fi: 'Hyvät käytännöt (Google Lighthouse)', is: 'Góðar venjur (Google Lighthouse)',
  }),
  entry(6, false, false, ['webstandard'], {
    sv: 'HTML-validering (W3C)', en: 'HTML Validation (W3C)', da: 'HTML-validering (W3C)',
    no: 'HTML-validering (W3C)', fi: 'HTML-validointi (W3C)', is: 'HTML-staðfesting (W3C)',
  }),
  entry(7, false, false, ['webstandard'], {
    sv: 'CSS-validering (W3C)', en: 'CSS Validation (W3C)', da: 'CSS-validering (W3C)',
    no: 'CSS-validering (W3C)', fi: 'CSS-validointi (W3C)', is: 'CSS-staðfesting (W3C)',
  }),
  entry(8, false, false, ['webstandard'], {
    sv: 'Progressiv webbapp (Google Lighthouse)', en: 'Progressive Web App (Google Lighthouse)', da: 'Progressiv webapp (Google Lighthouse)',
    no: 'Progressiv webapp (Google Lighthouse)', fi: 'Progressiivinen verkkosovellus (Google Lighthouse)', is: 'Framsækið vefforrit (Google Lighthouse)',
  }),
  entry(9, true, true, ['webstandard', 'infosec'], {
    sv: 'Standardfiler', en: 'Standard files', da: 'Standardfiler', no: 'Standardfiler', fi: 'Vakiotiedostot', is: 'Staðalskrár',
  }, {
    sv: 'Kontrollerar robots.txt, webbplatskartor, security.txt enligt RFC 9116 och att sidan länkar till ett flöde.',
    en: 'Checks robots.txt, sitemaps, security.txt as in RFC 9116 and that the page links to a feed.',
    da: 'Kontrollerer robots.txt, sitemaps, security.txt efter RFC 9116 og at siden linker til et feed.',
    no: 'Kontrollerer robots.txt, nettstedskart, security.txt etter RFC 9116 og at siden lenker til en strøm.',
    fi: 'Tarkistaa robots.txt-tiedoston, sivukartat, RFC 9116:n mukaisen security.txt-tiedoston ja syötelinkin.',
    is: 'Athugar robots.txt, veftré, security.txt samkvæmt RFC 9116 og að síðan vísi á straum.',
  }),
  entry(10, false, false, ['a11y'], {
    sv: 'Tillgänglighet (Google Lighthouse / axe)', en: 'Accessibility (Google Lighthouse / axe)', da: 'Tilgængelighed (Google Lighthouse / axe)',
    no: 'Tilgjengelighet (Google Lighthouse / axe)', fi: 'Saavutettavuus (Google Lighthouse / axe)', is: 'Aðgengi (Google Lighthouse / axe)',
  }),
  entry(11, false, false, ['infosec'], same('HTTP/2')),
  entry(15, true, false, ['pagespeed'], {
    sv: 'Prestanda (Sitespeed.io)', en: 'Performance (Sitespeed.io)', da: 'Ydeevne', no: 'Ytelse', fi: 'Suorituskyky', is: 'Afköst',
  }),
  entry(17, false, false, ['pagespeed'], {
    sv: 'Kvalitet på frontend (Yellow Lab Tools)', en: 'Quality on frontend (Yellow Lab Tools)', da: 'Kvalitet på frontend (Yellow Lab Tools)',
    no: 'Kvalitet på frontend (Yellow Lab Tools)', fi: 'Käyttöliittymän laatu (Yellow Lab Tools)', is: 'Gæði framenda (Yellow Lab Tools)',
  }),
  entry(18, true, true, ['a11y'], {
    sv: 'Tillgänglighet (Pa11y)', en: 'Accessibility (Pa11y)', da: 'Tilgængelighed', no: 'Tilgjengelighet', fi: 'Saavutettavuus', is: 'Aðgengi',
  }, {
    sv: 'Kör axe-cores regler för WCAG 2.2 A och AA på den laddade sidan och räknar element per regel.',
    en: "Runs axe-core's WCAG 2.2 A and AA rules on the loaded page and counts the elements per rule.",
    da: 'Kører axe-cores regler for WCAG 2.2 A og AA på den indlæste side og tæller elementer pr. regel.',
    no: 'Kjører axe-cores regler for WCAG 2.2 A og AA på den lastede siden og teller elementer per regel.',
    fi: 'Ajaa axe-coren WCAG 2.2 A- ja AA-säännöt ladatulla sivulla ja laskee elementit säännöittäin.',
    is: 'Keyrir WCAG 2.2 A og AA reglur axe-core á hlaðinni síðu og telur einingar fyrir hverja reglu.',
  }),
  entry(20, false, false, ['infosec'], {
    sv: 'Integritet & Säkerhet (Webbkoll)', en: 'Integrity & Security (Webbkoll)', da: 'Privatlivsbeskyttelse og sikkerhed',
    no: 'Personvern og sikkerhet', fi: 'Tietosuoja ja turvallisuus', is: 'Persónuvernd og öryggi',
  }),
  entry(21, true, true, ['infosec', 'webstandard'], {
    sv: 'HTTP & nätverk', en: 'HTTP & Network', da: 'HTTP & netværk', no: 'HTTP & nettverk', fi: 'HTTP & verkko', is: 'HTTP & netkerfi',
  }, {
    sv: 'Kontrollerar omdirigering till HTTPS, HSTS, TLS-versioner och certifikat, HTTP/2, säkerhetshuvuden och blandat innehåll.',
    en: 'Checks the redirect to HTTPS, HSTS, TLS versions and certificate, HTTP/2, security headers and mixed content.',
    da: 'Kontrollerer omdirigering til HTTPS, HSTS, TLS-versioner og certifikat, HTTP/2, sikkerhedsheadere og blandet indhold.',
    no: 'Kontrollerer omdirigering til HTTPS, HSTS, TLS-versjoner og sertifikat, HTTP/2, sikkerhetshoder og blandet innhold.',
    fi: 'Tarkistaa HTTPS-uudelleenohjauksen, HSTS:n, TLS-versiot ja varmenteen, HTTP/2:n, tietoturvaotsakkeet ja sekasisällön.',
    is: 'Athugar framsendingu í HTTPS, HSTS, TLS-útgáfur og skilríki, HTTP/2, öryggishausa og blandað efni.',
  }),
  entry(22, true, false, [], {
    sv: 'Energieffektivitet', en: 'Energy Efficiency', da: 'Energieffektivitet', no: 'Energieffektivitet', fi: 'Energiatehokkuus', is: 'Orkunýtni',
  }),
  entry(23, true, true, ['infosec'], {
    sv: 'Spårning och integritet', en: 'Tracking and Privacy', da: 'Sporing og privatlivsbeskyttelse',
    no: 'Sporing og personvern', fi: 'Seuranta ja tietosuoja', is: 'Rakning og persónuvernd',
  }, {
    sv: 'Räknar anrop till tredje part och granskar kakor: första eller tredje part, Secure, HttpOnly, SameSite, livslängd och analyskakor utan samtycke.',
    en: 'Counts third-party requests and reviews cookies: first or third party, Secure, HttpOnly, SameSite, lifetime and analytics cookies set without consent.',
    da: 'Tæller kald til tredjepart og gennemgår cookies: første- eller tredjepart, Secure, HttpOnly, SameSite, levetid og analysecookies uden samtykke.',
    no: 'Teller kall til tredjepart og gjennomgår informasjonskapsler: første- eller tredjepart, Secure, HttpOnly, SameSite, levetid og analysekapsler uten samtykke.',
    fi: 'Laskee kolmannen osapuolen pyynnöt ja tarkastaa evästeet: ensimmäinen vai kolmas osapuoli, Secure, HttpOnly, SameSite, elinikä ja analytiikkaevästeet ilman suostumusta.',
    is: 'Telur beiðnir til þriðja aðila og fer yfir vafrakökur: fyrsta eða þriðja aðila, Secure, HttpOnly, SameSite, líftíma og greiningarkökur án samþykkis.',
  }),
  entry(24, true, false, ['infosec', 'webstandard'], {
    sv: 'E-post (Beta)', en: 'Email (Beta)', da: 'E-mail', no: 'E-post', fi: 'Sähköposti', is: 'Tölvupóstur',
  }),
  entry(25, true, false, ['infosec', 'a11y'], {
    sv: 'Mjukvara', en: 'Software', da: 'Software', no: 'Programvare', fi: 'Ohjelmisto', is: 'Hugbúnaður',
  }),
  entry(26, true, false, ['a11y'], {
    sv: 'Tillgänglighetsredogörelse', en: 'Accessibility Statement', da: 'Tilgængelighedserklæring',
    no: 'Tilgjengelighetserklæring', fi: 'Saavutettavuusseloste', is: 'Aðgengisyfirlýsing',
  }),
  entry(27, true, true, ['webstandard'], {
    sv: 'CSS-validering', en: 'CSS Lint', da: 'CSS-validering', no: 'CSS-validering', fi: 'CSS-validointi', is: 'CSS-staðfesting',
  }, {
    sv: 'Validerar sidans alla stilmallar med stylelint och dess standardregler för giltig CSS.',
    en: "Validates every stylesheet of the page with stylelint's rules for valid CSS.",
    da: 'Validerer alle sidens stylesheets med stylelints regler for gyldig CSS.',
    no: 'Validerer alle sidens stilark med stylelints regler for gyldig CSS.',
    fi: 'Validoi sivun kaikki tyylitiedostot stylelintin kelvollisen CSS:n säännöillä.',
    is: 'Staðfestir öll stílblöð síðunnar með reglum stylelint um gilt CSS.',
  }),
  entry(28, true, true, ['webstandard'], {
    sv: 'HTML-validering', en: 'HTML Lint', da: 'HTML-validering', no: 'HTML-validering', fi: 'HTML-validointi', is: 'HTML-staðfesting',
  }, {
    sv: 'Validerar det levererade HTML-dokumentet med html-validate och dess standardregler.',
    en: 'Validates the served HTML document with html-validate and its standard preset.',
    da: 'Validerer det leverede HTML-dokument med html-validate og dets standardregler.',
    no: 'Validerer det leverte HTML-dokumentet med html-validate og standardreglene.',
    fi: 'Validoi palvellun HTML-asiakirjan html-validatella ja sen vakiosäännöillä.',
    is: 'Staðfestir afhent HTML-skjal með html-validate og stöðluðum reglum þess.',
  }),
  entry(29, true, false, ['webstandard'], same('JS Lint')),
  entry(30, true, true, ['a11y', 'pagespeed'], {
    sv: 'Tillgänglighet, God praxis, Prestanda & Sökmotoroptimering (Lighthouse)',
    en: 'Accessibility, Best Practice, Performance & SEO (Lighthouse)',
    da: 'Tilgængelighed, God praksis, Ydeevne og Søgemaskineoptimering',
    no: 'Tilgjengelighet, God praksis, Ytelse og Søkemotoroptimalisering',
    fi: 'Saavutettavuus, hyvät käytännöt, suorituskyky ja hakukoneoptimointi',
    is: 'Aðgengi, Góðar venjur, Afköst og Leitarvélabestun',
  }, {
    sv: 'En Lighthouse-körning: prestanda, tillgänglighet, god praxis och sökmotoroptimering, med labbmått (FCP, LCP, TBT, CLS, Speed Index).',
    en: 'One Lighthouse run: performance, accessibility, best practice and SEO, with lab metrics (FCP, LCP, TBT, CLS, Speed Index).',
    da: 'Én Lighthouse-kørsel: ydeevne, tilgængelighed, god praksis og søgemaskineoptimering med laboratoriemål.',
    no: 'Én Lighthouse-kjøring: ytelse, tilgjengelighet, god praksis og søkemotoroptimalisering med labmålinger.',
    fi: 'Yksi Lighthouse-ajo: suorituskyky, saavutettavuus, hyvät käytännöt ja hakukoneoptimointi laboratoriomittauksineen.',
    is: 'Ein Lighthouse-keyrsla: afköst, aðgengi, góðar venjur og leitarvélabestun, með rannsóknarmælingum.',
  }),
  entry(31, true, false, ['infosec'], {
    sv: 'Integritet (Webbkoll)', en: 'Privacy (Webbkoll)', da: 'Privatliv', no: 'Personvern', fi: 'Yksityisyys', is: 'Persónuvernd',
  }),
  entry(100, true, true, [], {
    sv: 'Läsbarhet (LIX)', en: 'Readability (LIX)', da: 'Læsbarhed (LIX)', no: 'Lesbarhet (LIX)', fi: 'Luettavuus (LIX)', is: 'Læsileiki (LIX)',
  }, {
    sv: 'Läsbarhetsindex (LIX) för sidans huvudtext, utan navigation, sidhuvud och sidfot.',
    en: "Readability index (LIX) of the page's main text, without navigation, header and footer.",
    da: 'Læsbarhedsindeks (LIX) for sidens hovedtekst uden navigation, sidehoved og sidefod.',
    no: 'Lesbarhetsindeks (LIX) for sidens hovedtekst uten navigasjon, topptekst og bunntekst.',
    fi: 'Sivun päätekstin luettavuusindeksi (LIX) ilman navigaatiota, ylä- ja alatunnistetta.',
    is: 'Læsileikastuðull (LIX) meginmáls síðunnar, án leiðsagnar, haus og fótar.',
  }),
  entry(101, true, true, [], {
    sv: 'Webbanalys', en: 'Web analytics', da: 'Webanalyse', no: 'Webanalyse', fi: 'Verkkoanalytiikka', is: 'Vefgreining',
  }, {
    sv: 'Vilka webbanalysverktyg sidan använder, utifrån anrop, svarsinnehåll och kakor.',
    en: 'Which web-analytics tools the page uses, from its requests, response bodies and cookies.',
    da: 'Hvilke webanalyseværktøjer siden bruger ud fra kald, svarindhold og cookies.',
    no: 'Hvilke webanalyseverktøy siden bruker ut fra kall, svarinnhold og informasjonskapsler.',
    fi: 'Mitä verkkoanalytiikkatyökaluja sivu käyttää pyyntöjen, vastausten ja evästeiden perusteella.',
    is: 'Hvaða vefgreiningartól síðan notar, út frá beiðnum, svörum og vafrakökum.',
  }),
];

const byId = new Map(CATALOGUE.map((t) => [t.id, t]));

export function findTestType(id: number): TestType | undefined {
  return byId.get(id);
}

/** The note the API puts in `meta`: which texts are machine-translated. */
export const CATALOGUE_META = {
  machine_translated:
    'Descriptions in da, no, fi and is, and the names of retired tests in those languages, are machine-translated and should be reviewed.',
  languages: ['sv', 'en', 'da', 'no', 'fi', 'is'],
} as const;

/**
 * A built-in plugin's identity, from the catalogue: id, names, descriptions, active flag and
 * categories have one source of truth. The plugin adds what it reads (requiredArtifacts) and limits.
 */
export function catalogueMeta(id: number): Pick<TestType, 'id' | 'names' | 'descriptions' | 'active' | 'categories'> {
  const t = byId.get(id);
  if (!t) throw new Error(`Test type ${id} is not in the catalogue`);
  return { id: t.id, names: t.names, descriptions: t.descriptions, active: t.active, categories: [...t.categories] };
}
