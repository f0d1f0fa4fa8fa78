/**
 * Type 18's identity: what /v1/tests lists and what the pipeline checks before run().
 * The da, no, fi and is descriptions are machine-translated (stated in the API's meta).
 */
import type { PluginMeta } from '../../core/plugin-api.js';

export const meta: PluginMeta = {
  id: 18,
  active: true,
  categories: ['a11y'],
  requiredArtifacts: ['axe'],
  names: {
    sv: 'Tillgänglighet (Pa11y)',
    en: 'Accessibility (Pa11y)',
    da: 'Tilgængelighed',
    no: 'Tilgjengelighet',
    fi: 'Saavutettavuus',
    is: 'Aðgengi',
  },
  descriptions: {
    sv: 'Kör axe-cores regler för WCAG 2.2 A och AA på den laddade sidan och räknar element per regel.',
    en: "Runs axe-core's WCAG 2.2 A and AA rules on the loaded page and counts the elements per rule.",
    da: 'Kører axe-cores regler for WCAG 2.2 A og AA på den indlæste side og tæller elementer pr. regel.',
    no: 'Kjører axe-cores regler for WCAG 2.2 A og AA på den lastede siden og teller elementer per regel.',
    fi: 'Ajaa axe-coren WCAG 2.2 A- ja AA-säännöt ladatulla sivulla ja laskee elementit säännöittäin.',
    is: 'Keyrir WCAG 2.2 A og AA reglur axe-core á hlaðinni síðu og telur einingar fyrir hverja reglu.',
  },
};
