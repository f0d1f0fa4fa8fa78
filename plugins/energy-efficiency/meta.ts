/**
 * Type 22's identity: what /v1/tests lists and what the pipeline checks before run().
 * The da, no, fi and is descriptions are machine-translated (stated in the API's meta).
 */
import type { PluginMeta } from '../../core/plugin-api.js';

export const meta: PluginMeta = {
  id: 22,
  active: true,
  categories: [],
  requiredArtifacts: ['network'],
  names: {
    sv: 'Energieffektivitet',
    en: 'Energy Efficiency',
    da: 'Energieffektivitet',
    no: 'Energieffektivitet',
    fi: 'Energiatehokkuus',
    is: 'Orkunýtni',
  },
  descriptions: {
    sv: 'Uppskattar koldioxid per sidvisning utifrån hur många byte sidan laddar, och jämför med webbplatser testade på webperf.se.',
    en: 'Estimates the carbon dioxide per page view from the bytes the page loads, and compares it with the websites tested on webperf.se.',
    da: 'Anslår kuldioxid pr. sidevisning ud fra, hvor mange bytes siden indlæser, og sammenligner med websteder testet på webperf.se.',
    no: 'Anslår karbondioksid per sidevisning ut fra hvor mange byte siden laster, og sammenligner med nettsteder testet på webperf.se.',
    fi: 'Arvioi hiilidioksidin sivunäyttöä kohden sivun lataamien tavujen perusteella ja vertaa webperf.se:ssä testattuihin sivustoihin.',
    is: 'Áætlar koltvísýring á hverja síðuskoðun út frá þeim bætum sem síðan hleður og ber saman við vefi sem prófaðir hafa verið á webperf.se.',
  },
};
