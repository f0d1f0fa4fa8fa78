/**
 * Type 9's identity: what /v1/tests lists and what the pipeline checks before run().
 * The da, no, fi and is descriptions are machine-translated (stated in the API's meta).
 */
import type { PluginMeta } from '../../core/plugin-api.js';

export const meta: PluginMeta = {
  id: 9,
  active: true,
  categories: ['webstandard', 'infosec'],
  requiredArtifacts: ['finalUrl', 'mainDocument'],
  timeoutMs: 60_000,
  names: {
    sv: 'Standardfiler',
    en: 'Standard files',
    da: 'Standardfiler',
    no: 'Standardfiler',
    fi: 'Vakiotiedostot',
    is: 'Staðalskrár',
  },
  descriptions: {
    sv: 'Kontrollerar robots.txt, webbplatskartor, security.txt enligt RFC 9116 och att sidan länkar till ett flöde.',
    en: 'Checks robots.txt, sitemaps, security.txt as in RFC 9116 and that the page links to a feed.',
    da: 'Kontrollerer robots.txt, sitemaps, security.txt efter RFC 9116 og at siden linker til et feed.',
    no: 'Kontrollerer robots.txt, nettstedskart, security.txt etter RFC 9116 og at siden lenker til en strøm.',
    fi: 'Tarkistaa robots.txt-tiedoston, sivukartat, RFC 9116:n mukaisen security.txt-tiedoston ja syötelinkin.',
    is: 'Athugar robots.txt, veftré, security.txt samkvæmt RFC 9116 og að síðan vísi á straum.',
  },
};
