/**
 * Type 27's identity: what /v1/tests lists and what the pipeline checks before run().
 * The da, no, fi and is descriptions are machine-translated (stated in the API's meta).
 */
import type { PluginMeta } from '../../core/plugin-api.js';

export const meta: PluginMeta = {
  id: 27,
  active: true,
  categories: ['webstandard'],
  requiredArtifacts: ['stylesheets'],
  timeoutMs: 60_000,
  names: {
    sv: 'CSS-validering',
    en: 'CSS Lint',
    da: 'CSS-validering',
    no: 'CSS-validering',
    fi: 'CSS-validointi',
    is: 'CSS-staðfesting',
  },
  descriptions: {
    sv: 'Validerar sidans alla stilmallar med stylelint och dess standardregler för giltig CSS.',
    en: "Validates every stylesheet of the page with stylelint's rules for valid CSS.",
    da: 'Validerer alle sidens stylesheets med stylelints regler for gyldig CSS.',
    no: 'Validerer alle sidens stilark med stylelints regler for gyldig CSS.',
    fi: 'Validoi sivun kaikki tyylitiedostot stylelintin kelvollisen CSS:n säännöillä.',
    is: 'Staðfestir öll stílblöð síðunnar með reglum stylelint um gilt CSS.',
  },
};
