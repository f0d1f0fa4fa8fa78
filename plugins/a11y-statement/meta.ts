/**
 * Type 26's identity: what /v1/tests lists and what the pipeline checks before run().
 * The da, no, fi and is descriptions are machine-translated (stated in the API's meta).
 */
import type { PluginMeta } from '../../core/plugin-api.js';

export const meta: PluginMeta = {
  id: 26,
  active: true,
  categories: ['a11y'],
  requiredArtifacts: ['mainDocument'],
  // Up to 15 pages read one small batch at a time, each probe up to 10 s.
  timeoutMs: 90_000,
  names: {
    sv: 'Tillgänglighetsredogörelse',
    en: 'Accessibility Statement',
    da: 'Tilgængelighedserklæring',
    no: 'Tilgjengelighetserklæring',
    fi: 'Saavutettavuusseloste',
    is: 'Aðgengisyfirlýsing',
  },
  descriptions: {
    sv: 'Letar upp webbplatsens tillgänglighetsredogörelse från startsidan, som en besökare gör, och granskar att den innehåller det DIGG kräver: följsamhet, brister, meddelandefunktion, länk till DIGG:s anmälningsfunktion, utvärderingsmetod och datum.',
    en: "Finds the website's accessibility statement from the start page, as a visitor would, and checks that it holds what DIGG requires: compliance status, shortcomings, a feedback function, a link to DIGG's notification function, the evaluation method and dates.",
    da: 'Finder webstedets tilgængelighedserklæring fra forsiden, som en besøgende ville, og kontrollerer at den indeholder det, DIGG kræver: overensstemmelse, mangler, en feedbackfunktion, et link til DIGG’s anmeldelsesfunktion, evalueringsmetode og datoer.',
    no: 'Finner nettstedets tilgjengelighetserklæring fra forsiden, slik en besøkende ville, og kontrollerer at den inneholder det DIGG krever: samsvar, mangler, en tilbakemeldingsfunksjon, lenke til DIGGs varslingsfunksjon, evalueringsmetode og datoer.',
    fi: 'Etsii sivuston saavutettavuusselosteen etusivulta kävijän tavoin ja tarkistaa, että siinä on se, mitä DIGG vaatii: vaatimustenmukaisuus, puutteet, palautekanava, linkki DIGGin ilmoituspalveluun, arviointimenetelmä ja päivämäärät.',
    is: 'Finnur aðgengisyfirlýsingu vefsins frá forsíðunni, eins og gestur myndi gera, og athugar að hún innihaldi það sem DIGG krefst: samræmi, annmarka, ábendingaleið, tengil á tilkynningaþjónustu DIGG, matsaðferð og dagsetningar.',
  },
};
