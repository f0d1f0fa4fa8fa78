/**
 * User-facing strings of the accessibility plugin (type 18). RULE_TEXT_SV says in Swedish what
 * each common axe-core rule found; other rules, and English, use axe's own `help` text.
 */
import type { ReportText } from '../../core/plugin-api.js';

export const RULE_TEXT_SV: Record<string, string> = {
  'area-alt': 'Klickbara ytor i bildkartor (<area>) saknar alternativtext',
  'aria-allowed-attr': 'Element har ARIA-attribut som deras roll inte stöder',
  'aria-allowed-role': 'Element har en ARIA-roll som inte passar elementet',
  'aria-command-name': 'ARIA-knappar, länkar och menyval saknar tillgängligt namn',
  'aria-conditional-attr': 'ARIA-attribut används på ett sätt som elementets roll inte tillåter',
  'aria-deprecated-role': 'Utfasade ARIA-roller används',
  'aria-dialog-name': 'Dialogrutor saknar tillgängligt namn',
  'aria-hidden-body': 'Sidans <body> är dold för hjälpmedel (aria-hidden="true")',
  'aria-hidden-focus': 'Element som är dolda för hjälpmedel går ändå att nå med tangentbordet',
  'aria-input-field-name': 'ARIA-inmatningsfält saknar tillgängligt namn',
  'aria-meter-name': 'ARIA-mätare (meter) saknar tillgängligt namn',
  'aria-progressbar-name': 'Förloppsindikatorer saknar tillgängligt namn',
  'aria-prohibited-attr': 'Element har ARIA-attribut som är förbjudna för deras roll',
  'aria-required-attr': 'Element med ARIA-roll saknar attribut som rollen kräver',
  'aria-required-children': 'Element med ARIA-roll saknar de underelement som rollen kräver',
  'aria-required-parent': 'Element med ARIA-roll ligger inte i det föräldraelement som rollen kräver',
  'aria-roledescription': 'aria-roledescription används på element utan semantisk roll',
  'aria-roles': 'Ogiltiga ARIA-roller används',
  'aria-tab-name': 'ARIA-flikar saknar tillgängligt namn',
  'aria-text': 'role="text" används på element som går att fokusera',
  'aria-toggle-field-name': 'ARIA-växlingsfält (kryssrutor, växlar) saknar tillgängligt namn',
  'aria-tooltip-name': 'Inforutor (tooltip) saknar tillgängligt namn',
  'aria-valid-attr-value': 'ARIA-attribut har ogiltiga värden',
  'aria-valid-attr': 'ARIA-attribut har ogiltiga namn',
  'audio-caption': 'Ljudklipp saknar textalternativ',
  'autocomplete-valid': 'Formulärfält har ett felaktigt autocomplete-attribut',
  'avoid-inline-spacing': 'Radavstånd eller teckenavstånd är låst med inline-stil och går inte att ändra',
  blink: 'Blinkande text (<blink>) används',
  'button-name': 'Knappar saknar text som beskriver dem',
  bypass: 'Sidan saknar sätt att hoppa förbi upprepade block, till exempel en hopplänk eller landmärken',
  'color-contrast': 'Text har för låg kontrast mot bakgrunden',
  'color-contrast-enhanced': 'Text når inte förhöjd kontrast (AAA) mot bakgrunden',
  'css-orientation-lock': 'Sidan låser skärmens orientering (stående eller liggande)',
  'definition-list': 'Definitionslistor (<dl>) innehåller otillåtna element',
  dlitem: 'Termer och definitioner (<dt>, <dd>) ligger utanför en definitionslista',
  'document-title': 'Sidan saknar titel (<title>)',
  'duplicate-id': 'Samma id används på flera element',
  'duplicate-id-active': 'Samma id används på flera interaktiva element',
  'duplicate-id-aria': 'Samma id används på flera element som etiketter eller ARIA pekar på',
  'empty-heading': 'Rubriker saknar text',
  'form-field-multiple-labels': 'Formulärfält har flera etiketter',
  'frame-focusable-content': 'Ramar med fokuserbart innehåll har tabindex="-1"',
  'frame-title': 'Ramar (iframe) saknar tillgängligt namn',
  'frame-title-unique': 'Flera ramar har samma titel',
  'heading-order': 'Rubriknivåerna hoppar över steg',
  'html-has-lang': 'Sidan anger inte sitt språk (lang-attribut på <html>)',
  'html-lang-valid': 'Sidans språkattribut har ett ogiltigt värde',
  'html-xml-lang-mismatch': 'lang och xml:lang på <html> anger olika språk',
  'image-alt': 'Bilder saknar alternativtext',
  'image-redundant-alt': 'Bilders alternativtext upprepar text som redan står intill',
  'input-button-name': 'Inmatningsknappar saknar text som beskriver dem',
  'input-image-alt': 'Bildknappar saknar alternativtext',
  label: 'Formulärfält saknar etikett',
  'label-content-name-mismatch': 'Elements synliga text ingår inte i deras tillgängliga namn',
  'landmark-one-main': 'Sidan saknar ett huvudinnehåll (<main>)',
  'landmark-unique': 'Landmärken går inte att skilja åt (samma roll och namn)',
  'link-in-text-block': 'Länkar i löptext skiljer sig från texten bara genom färg',
  'link-name': 'Länkar saknar text som beskriver dem',
  list: 'Listor (<ul>, <ol>) innehåller annat än listpunkter',
  listitem: 'Listpunkter (<li>) ligger utanför en lista',
  marquee: 'Rullande text (<marquee>) används',
  'meta-refresh': 'Sidan laddas om eller byts ut automatiskt efter en fördröjning',
  'meta-viewport': 'Sidan hindrar användare från att zooma',
  'nested-interactive': 'Interaktiva element ligger inuti andra interaktiva element',
  'no-autoplay-audio': 'Ljud eller video spelas upp automatiskt',
  'object-alt': 'Inbäddade objekt (<object>) saknar alternativtext',
  'page-has-heading-one': 'Sidan saknar en huvudrubrik (<h1>)',
  region: 'Innehåll ligger utanför sidans landmärken',
  'role-img-alt': 'Element med rollen bild saknar alternativtext',
  'scrollable-region-focusable': 'Rullbara ytor går inte att nå med tangentbordet',
  'select-name': 'Rullgardinsmenyer (<select>) saknar etikett',
  'server-side-image-map': 'Bildkartor som tolkas på servern används',
  'skip-link': 'Hopplänkar pekar på ett mål som inte finns',
  'summary-name': 'Utfällbara sammanfattningar (<summary>) saknar text',
  'svg-img-alt': 'SVG-bilder saknar alternativtext',
  tabindex: 'Element har ett tabindex större än 0',
  'table-fake-caption': 'Tabeller använder celler i stället för <caption> som rubrik',
  'target-size': 'Klickytor är mindre än 24 × 24 pixlar och ligger för tätt',
  'td-has-header': 'Celler i stora tabeller saknar kopplad rubrikcell',
  'td-headers-attr': 'Cellers headers-attribut pekar på fel celler',
  'th-has-data-cells': 'Rubrikceller i tabeller saknar dataceller',
  'valid-lang': 'lang-attribut har ogiltiga värden',
  'video-caption': 'Videoklipp saknar undertexter',
};

export const STRINGS = {
  /** The report line of one failing rule. */
  ruleLine: (text: ReportText, count: number, inFrames = 0): ReportText =>
    inFrames === 0
      ? { sv: `${text.sv} (${count} element)`, en: `${text.en} (${count} ${count === 1 ? 'element' : 'elements'})` }
      : inFrames === count
        ? {
            sv: `${text.sv} (${count} element, i inbäddad ram)`,
            en: `${text.en} (${count} ${count === 1 ? 'element' : 'elements'}, in an embedded frame)`,
          }
        : {
            sv: `${text.sv} (${count} element, varav ${inFrames} i inbäddad ram)`,
            en: `${text.en} (${count} elements, ${inFrames} of them in an embedded frame)`,
          },
  /** Said after the summary when axe also ran in frames the page embeds. */
  framesTested: (frames: number): ReportText => ({
    sv: ` Sidans ${frames} inbäddade ${frames === 1 ? 'ram' : 'ramar'} (iframe) testades också.`,
    en: ` The ${frames} ${frames === 1 ? 'frame' : 'frames'} (iframe) the page embeds ${frames === 1 ? 'was' : 'were'} tested too.`,
  }),
  summary: (version: string, rules: number, elements: number, passes: number): ReportText =>
    rules === 0
      ? {
          sv: `axe-core ${version} hittade inga brister mot WCAG 2.2 A och AA (${passes} regler godkända). Automatiska tester hittar bara en del av alla brister.`,
          en: `axe-core ${version} found no failures against WCAG 2.2 A and AA (${passes} rules passed). Automated tests find only some of all failures.`,
        }
      : {
          sv: `axe-core ${version} hittade brister mot ${rules} ${rules === 1 ? 'regel' : 'regler'} i WCAG 2.2 A och AA, i sammanlagt ${elements} element (${passes} regler godkända).`,
          en: `axe-core ${version} found failures of ${rules} WCAG 2.2 A and AA ${rules === 1 ? 'rule' : 'rules'} in ${elements} ${elements === 1 ? 'element' : 'elements'} in all (${passes} rules passed).`,
        },
  noAxe: {
    sv: 'axe-core kunde inte köras på sidan, så tillgängligheten är inte bedömd.',
    en: 'axe-core could not run on the page, so accessibility is not rated.',
  } satisfies ReportText,
};
