/**
 * Type 24's identity: what /v1/tests lists and what the pipeline checks before run().
 * The da, no, fi and is descriptions are machine-translated (stated in the API's meta).
 */
import type { PluginMeta } from '../../core/plugin-api.js';

export const meta: PluginMeta = {
  id: 24,
  active: true,
  categories: ['infosec', 'webstandard'],
  // The site's domain is judged, not the page: the address asked for is all it needs.
  requiredArtifacts: ['requestedUrl'],
  // It reads DNS and one policy file: no page load (a domain without a web site is still judged).
  needsPage: false,
  // An SPF include chain is read one record after another; each lookup may take a resolver's timeout.
  timeoutMs: 60_000,
  names: {
    sv: 'E-post (Beta)',
    en: 'Email (Beta)',
    da: 'E-mail',
    no: 'E-post',
    fi: 'Sähköposti',
    is: 'Tölvupóstur',
  },
  descriptions: {
    sv: 'Kontrollerar e-posten för webbplatsens domän i DNS: MX-servrar och deras redundans, SPF, DMARC, MTA-STS, TLS-RPT och DNSSEC.',
    en: "Checks the e-mail of the site's domain in DNS: MX servers and their redundancy, SPF, DMARC, MTA-STS, TLS-RPT and DNSSEC.",
    da: 'Kontrollerer e-mailen for webstedets domæne i DNS: MX-servere og deres redundans, SPF, DMARC, MTA-STS, TLS-RPT og DNSSEC.',
    no: 'Kontrollerer e-posten for nettstedets domene i DNS: MX-servere og deres redundans, SPF, DMARC, MTA-STS, TLS-RPT og DNSSEC.',
    fi: 'Tarkistaa sivuston verkkotunnuksen sähköpostin DNS:stä: MX-palvelimet ja niiden varmennus, SPF, DMARC, MTA-STS, TLS-RPT ja DNSSEC.',
    is: 'Athugar tölvupóst léns vefsins í DNS: MX-þjóna og varaleiðir þeirra, SPF, DMARC, MTA-STS, TLS-RPT og DNSSEC.',
  },
};
