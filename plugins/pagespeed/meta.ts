/**
 * Type 30's identity: what /v1/tests lists and what the pipeline checks before run().
 * The da, no, fi and is descriptions are machine-translated (stated in the API's meta).
 */
import type { PluginMeta } from '../../core/plugin-api.js';

export const meta: PluginMeta = {
  id: 30,
  active: true,
  categories: ['a11y', 'pagespeed'],
  requiredArtifacts: ['lighthouse'],
  names: {
    sv: 'Tillgänglighet, God praxis, Prestanda & Sökmotoroptimering (Lighthouse)',
    en: 'Accessibility, Best Practice, Performance & SEO (Lighthouse)',
    da: 'Tilgængelighed, God praksis, Ydeevne og Søgemaskineoptimering',
    no: 'Tilgjengelighet, God praksis, Ytelse og Søkemotoroptimalisering',
    fi: 'Saavutettavuus, hyvät käytännöt, suorituskyky ja hakukoneoptimointi',
    is: 'Aðgengi, Góðar venjur, Afköst og Leitarvélabestun',
  },
  descriptions: {
    sv: 'En Lighthouse-körning: prestanda, tillgänglighet, god praxis och sökmotoroptimering, med labbmått (FCP, LCP, TBT, CLS, Speed Index).',
    en: 'One Lighthouse run: performance, accessibility, best practice and SEO, with lab metrics (FCP, LCP, TBT, CLS, Speed Index).',
    da: 'Én Lighthouse-kørsel: ydeevne, tilgængelighed, god praksis og søgemaskineoptimering med laboratoriemål.',
    no: 'Én Lighthouse-kjøring: ytelse, tilgjengelighet, god praksis og søkemotoroptimalisering med labmålinger.',
    fi: 'Yksi Lighthouse-ajo: suorituskyky, saavutettavuus, hyvät käytännöt ja hakukoneoptimointi laboratoriomittauksineen.',
    is: 'Ein Lighthouse-keyrsla: afköst, aðgengi, góðar venjur og leitarvélabestun, með rannsóknarmælingum.',
  },
};
