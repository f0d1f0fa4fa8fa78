/**
 * Type 2's identity: what /v1/tests lists and what the pipeline checks before run().
 * The da, no, fi and is descriptions are machine-translated (stated in the API's meta).
 */
import type { PluginMeta } from '../../core/plugin-api.js';

export const meta: PluginMeta = {
  id: 2,
  active: true,
  categories: ['webstandard'],
  requiredArtifacts: ['finalUrl', 'htmlLang'],
  names: {
    sv: '404 (sida finns inte)',
    en: '404 (Page not Found)',
    da: '404 (side findes ikke)',
    no: '404 (side finnes ikke)',
    fi: '404 (sivua ei löydy)',
    is: '404 (síða finnst ekki)',
  },
  descriptions: {
    sv: 'Kontrollerar att en adress som inte finns svarar 404 med en begriplig sida: titel, rubrik, tillräckligt med text och sidans språk.',
    en: 'Checks that an address that does not exist answers 404 with a helpful page: title, heading, enough text and the page language.',
    da: 'Kontrollerer, at en adresse, der ikke findes, svarer 404 med en forståelig side: titel, overskrift, nok tekst og sidens sprog.',
    no: 'Kontrollerer at en adresse som ikke finnes, svarer 404 med en forståelig side: tittel, overskrift, nok tekst og sidens språk.',
    fi: 'Tarkistaa, että olematon osoite vastaa 404 ja ymmärrettävällä sivulla: otsikko, pääotsikko, riittävästi tekstiä ja sivun kieli.',
    is: 'Athugar að slóð sem ekki er til svari 404 með skiljanlegri síðu: titli, fyrirsögn, nægum texta og tungumáli síðunnar.',
  },
};
