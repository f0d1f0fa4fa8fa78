/**
 * Type 21's identity: what /v1/tests lists and what the pipeline checks before run().
 * The da, no, fi and is descriptions are machine-translated (stated in the API's meta).
 */
import type { PluginMeta } from '../../core/plugin-api.js';

export const meta: PluginMeta = {
  id: 21,
  active: true,
  categories: ['infosec', 'webstandard'],
  requiredArtifacts: ['mainDocument', 'network'],
  // TLS, certificate, redirect and headers are read by the probes: a page the browser refuses for
  // its certificate is still judged (tls-cert-untrusted) from them.
  judgesFromProbes: true,
  names: {
    sv: 'HTTP & nätverk',
    en: 'HTTP & Network',
    da: 'HTTP & netværk',
    no: 'HTTP & nettverk',
    fi: 'HTTP & verkko',
    is: 'HTTP & netkerfi',
  },
  descriptions: {
    sv: 'Kontrollerar omdirigering till HTTPS, HSTS, TLS-versioner och certifikat, HTTP/2, säkerhetshuvuden och blandat innehåll.',
    en: 'Checks the redirect to HTTPS, HSTS, TLS versions and certificate, HTTP/2, security headers and mixed content.',
    da: 'Kontrollerer omdirigering til HTTPS, HSTS, TLS-versioner og certifikat, HTTP/2, sikkerhedsheadere og blandet indhold.',
    no: 'Kontrollerer omdirigering til HTTPS, HSTS, TLS-versjoner og sertifikat, HTTP/2, sikkerhetshoder og blandet innhold.',
    fi: 'Tarkistaa HTTPS-uudelleenohjauksen, HSTS:n, TLS-versiot ja varmenteen, HTTP/2:n, tietoturvaotsakkeet ja sekasisällön.',
    is: 'Athugar framsendingu í HTTPS, HSTS, TLS-útgáfur og skilríki, HTTP/2, öryggishausa og blandað efni.',
  },
};
