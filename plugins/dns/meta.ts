/**
 * Type 32's identity: what /v1/tests lists and what the pipeline checks before run(). The name is
 * upstream's (webperf_core's branch feature/dns-zonemaster-test). It judges the site's domain in
 * DNS, not the page, so it needs no page load and runs beside it; it needs Zonemaster's command
 * line, which a runner may lack (then the type is not available there).
 * The da, no, fi and is descriptions are machine-translated (stated in the API's meta).
 */
import type { PluginMeta } from '../../core/plugin-api.js';

/** How long Zonemaster may take (upstream allows 180 s; a job has 180 s in all by default, so less here). */
export const ZONEMASTER_TIMEOUT_MS = 150_000;

export const meta: PluginMeta = {
  id: 32,
  active: true,
  categories: ['infosec', 'webstandard'],
  // The domain is judged, not the page: the address asked for is all it needs.
  requiredArtifacts: ['requestedUrl'],
  needsPage: false,
  // Zonemaster's own bound, then the translation of its messages.
  timeoutMs: ZONEMASTER_TIMEOUT_MS + 15_000,
  requires: [{ component: 'zonemaster-cli', install: 'apt-get install zonemaster-cli (Debian 12 and later)' }],
  names: {
    sv: 'DNS (Zonemaster)',
    en: 'DNS (Zonemaster)',
    da: 'DNS (Zonemaster)',
    no: 'DNS (Zonemaster)',
    fi: 'DNS (Zonemaster)',
    is: 'DNS (Zonemaster)',
  },
  descriptions: {
    sv: 'Testar DNS för webbplatsens domän med Zonemaster: delegering, namnservrar, konsekvens mellan dem, SOA, syntax och DNSSEC.',
    en: "Tests the DNS of the site's domain with Zonemaster: delegation, name servers, consistency between them, SOA, syntax and DNSSEC.",
    da: 'Tester DNS for webstedets domæne med Zonemaster: delegering, navneservere, konsistens mellem dem, SOA, syntaks og DNSSEC.',
    no: 'Tester DNS for nettstedets domene med Zonemaster: delegering, navnetjenere, konsistens mellom dem, SOA, syntaks og DNSSEC.',
    fi: 'Testaa sivuston verkkotunnuksen DNS:n Zonemasterilla: delegointi, nimipalvelimet, niiden johdonmukaisuus, SOA, syntaksi ja DNSSEC.',
    is: 'Prófar DNS léns vefsins með Zonemaster: úthlutun, nafnaþjóna, samræmi milli þeirra, SOA, málskipan og DNSSEC.',
  },
};
