/**
 * Type 100's identity: what /v1/tests lists and what the pipeline checks before run().
 * The da, no, fi and is descriptions are machine-translated (stated in the API's meta).
 */
import type { PluginMeta } from '../../core/plugin-api.js';

export const meta: PluginMeta = {
  id: 100,
  active: true,
  categories: [],
  requiredArtifacts: ['mainText'],
  names: {
    sv: 'Läsbarhet (LIX)',
    en: 'Readability (LIX)',
    da: 'Læsbarhed (LIX)',
    no: 'Lesbarhet (LIX)',
    fi: 'Luettavuus (LIX)',
    is: 'Læsileiki (LIX)',
  },
  descriptions: {
    sv: 'Läsbarhetsindex (LIX) för sidans huvudtext, utan navigation, sidhuvud och sidfot.',
    en: "Readability index (LIX) of the page's main text, without navigation, header and footer.",
    da: 'Læsbarhedsindeks (LIX) for sidens hovedtekst uden navigation, sidehoved og sidefod.',
    no: 'Lesbarhetsindeks (LIX) for sidens hovedtekst uten navigasjon, topptekst og bunntekst.',
    fi: 'Sivun päätekstin luettavuusindeksi (LIX) ilman navigaatiota, ylä- ja alatunnistetta.',
    is: 'Læsileikastuðull (LIX) meginmáls síðunnar, án leiðsagnar, haus og fótar.',
  },
};
