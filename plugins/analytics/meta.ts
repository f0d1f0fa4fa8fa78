/**
 * Type 101's identity: what /v1/tests lists and what the pipeline checks before run().
 * The da, no, fi and is descriptions are machine-translated (stated in the API's meta).
 */
import type { PluginMeta } from '../../core/plugin-api.js';

export const meta: PluginMeta = {
  id: 101,
  active: true,
  categories: [],
  requiredArtifacts: ['network', 'mainDocument', 'scripts', 'cookies'],
  names: {
    sv: 'Webbanalys',
    en: 'Web analytics',
    da: 'Webanalyse',
    no: 'Webanalyse',
    fi: 'Verkkoanalytiikka',
    is: 'Vefgreining',
  },
  descriptions: {
    sv: 'Vilka webbanalysverktyg sidan använder, utifrån anrop, svarsinnehåll och kakor.',
    en: 'Which web-analytics tools the page uses, from its requests, response bodies and cookies.',
    da: 'Hvilke webanalyseværktøjer siden bruger ud fra kald, svarindhold og cookies.',
    no: 'Hvilke webanalyseverktøy siden bruker ut fra kall, svarinnhold og informasjonskapsler.',
    fi: 'Mitä verkkoanalytiikkatyökaluja sivu käyttää pyyntöjen, vastausten ja evästeiden perusteella.',
    is: 'Hvaða vefgreiningartól síðan notar, út frá beiðnum, svörum og vafrakökum.',
  },
};
