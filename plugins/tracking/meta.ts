/**
 * Type 23's identity: what /v1/tests lists and what the pipeline checks before run().
 * The da, no, fi and is descriptions are machine-translated (stated in the API's meta).
 */
import type { PluginMeta } from '../../core/plugin-api.js';

export const meta: PluginMeta = {
  id: 23,
  active: true,
  categories: ['infosec'],
  requiredArtifacts: ['network', 'cookies', 'mainDocument', 'scripts'],
  names: {
    sv: 'Spårning och integritet',
    en: 'Tracking and Privacy',
    da: 'Sporing og privatlivsbeskyttelse',
    no: 'Sporing og personvern',
    fi: 'Seuranta ja tietosuoja',
    is: 'Rakning og persónuvernd',
  },
  descriptions: {
    sv: 'Räknar anrop till tredje part och granskar kakor: första eller tredje part, Secure, HttpOnly, SameSite, livslängd och analyskakor utan samtycke.',
    en: 'Counts third-party requests and reviews cookies: first or third party, Secure, HttpOnly, SameSite, lifetime and analytics cookies set without consent.',
    da: 'Tæller kald til tredjepart og gennemgår cookies: første- eller tredjepart, Secure, HttpOnly, SameSite, levetid og analysecookies uden samtykke.',
    no: 'Teller kall til tredjepart og gjennomgår informasjonskapsler: første- eller tredjepart, Secure, HttpOnly, SameSite, levetid og analysekapsler uten samtykke.',
    fi: 'Laskee kolmannen osapuolen pyynnöt ja tarkastaa evästeet: ensimmäinen vai kolmas osapuoli, Secure, HttpOnly, SameSite, elinikä ja analytiikkaevästeet ilman suostumusta.',
    is: 'Telur beiðnir til þriðja aðila og fer yfir vafrakökur: fyrsta eða þriðja aðila, Secure, HttpOnly, SameSite, líftíma og greiningarkökur án samþykkis.',
  },
};
