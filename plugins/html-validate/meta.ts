/**
 * Type 28's identity: what /v1/tests lists and what the pipeline checks before run().
 * The da, no, fi and is descriptions are machine-translated (stated in the API's meta).
 */
import type { PluginMeta } from '../../core/plugin-api.js';

export const meta: PluginMeta = {
  id: 28,
  active: true,
  categories: ['webstandard'],
  requiredArtifacts: ['mainDocument'],
  names: {
    sv: 'HTML-validering',
    en: 'HTML Lint',
    da: 'HTML-validering',
    no: 'HTML-validering',
    fi: 'HTML-validointi',
    is: 'HTML-staðfesting',
  },
  descriptions: {
    sv: 'Validerar det levererade HTML-dokumentet med html-validate och dess standardregler.',
    en: 'Validates the served HTML document with html-validate and its standard preset.',
    da: 'Validerer det leverede HTML-dokument med html-validate og dets standardregler.',
    no: 'Validerer det leverte HTML-dokumentet med html-validate og standardreglene.',
    fi: 'Validoi palvellun HTML-asiakirjan html-validatella ja sen vakiosäännöillä.',
    is: 'Staðfestir afhent HTML-skjal með html-validate og stöðluðum reglum þess.',
  },
};
