/**
 * Type 29's identity: what /v1/tests lists and what the pipeline checks before run().
 * The da, no, fi and is descriptions are machine-translated (stated in the API's meta).
 */
import type { PluginMeta } from '../../core/plugin-api.js';

export const meta: PluginMeta = {
  id: 29,
  active: true,
  categories: ['infosec', 'webstandard'],
  requiredArtifacts: ['scripts'],
  // Linting is bounded inside run() (40 s in all, 5 s and 2 MB per script, in a worker thread);
  // this is the pipeline's limit above that budget and one worker start.
  timeoutMs: 60_000,
  names: {
    sv: 'JS Lint',
    en: 'JS Lint',
    da: 'JS Lint',
    no: 'JS Lint',
    fi: 'JS Lint',
    is: 'JS Lint',
  },
  descriptions: {
    sv: 'Granskar alla skript som sidan kör, även tredjepartsskript, med ESLint: eval(), eval-liknande anrop, javascript:-URLer och debugger-satser.',
    en: 'Lints every script the page runs, third-party ones included, with ESLint: eval(), eval-like calls, javascript: URLs and debugger statements.',
    da: 'Gennemgår alle scripts, som siden kører, også tredjepartsscripts, med ESLint: eval(), eval-lignende kald, javascript:-URL’er og debugger-sætninger.',
    no: 'Gjennomgår alle skript siden kjører, også tredjepartsskript, med ESLint: eval(), eval-lignende kall, javascript:-URL-er og debugger-setninger.',
    fi: 'Tarkistaa ESLintillä kaikki sivun suorittamat skriptit, myös kolmansien osapuolten: eval(), eval-tyyppiset kutsut, javascript:-URL-osoitteet ja debugger-lauseet.',
    is: 'Yfirfer öll skriftu sem síðan keyrir, einnig frá þriðju aðilum, með ESLint: eval(), eval-lík köll, javascript:-slóðir og debugger-skipanir.',
  },
};
