/**
 * Type 31's identity: what /v1/tests lists and what the pipeline checks before run(). The names
 * are the established catalogue's (webperf-reference.md), "(Webbkoll)" included, although no
 * Webbkoll backend is used: API clients know the type by them. Nothing it reads needs
 * Lighthouse's categories or axe, so a run of it alone loads the page light (gatherNeeds).
 * The da, no, fi and is descriptions are machine-translated (stated in the API's meta).
 */
import type { PluginMeta } from '../../core/plugin-api.js';

export const meta: PluginMeta = {
  id: 31,
  active: true,
  categories: ['infosec'],
  requiredArtifacts: ['mainDocument', 'network', 'cookies', 'subresourceLinks', 'referrerMetas'],
  names: {
    sv: 'Integritet (Webbkoll)',
    en: 'Privacy (Webbkoll)',
    da: 'Privatliv',
    no: 'Personvern',
    fi: 'Yksityisyys',
    is: 'Persónuvernd',
  },
  descriptions: {
    sv: 'Bedömer integriteten i sex delar från en sidladdning: HTTPS och blandat innehåll, Referrer-Policy, kakor, tredjepartsdomäner och kända spårare, säkerhetsheaders samt Subresource Integrity på skript och stilmallar från tredje part.',
    en: 'Rates privacy in six sections from one page load: HTTPS and mixed content, Referrer-Policy, cookies, third-party domains and known trackers, security headers, and Subresource Integrity on third-party scripts and stylesheets.',
    da: 'Vurderer privatlivet i seks dele ud fra én sideindlæsning: HTTPS og blandet indhold, Referrer-Policy, cookies, tredjepartsdomæner og kendte sporere, sikkerhedsheaders samt Subresource Integrity på scripts og stylesheets fra tredjepart.',
    no: 'Vurderer personvernet i seks deler ut fra én sideinnlasting: HTTPS og blandet innhold, Referrer-Policy, informasjonskapsler, tredjepartsdomener og kjente sporere, sikkerhetsheadere og Subresource Integrity på skript og stilark fra tredjepart.',
    fi: 'Arvioi yksityisyyden kuudessa osassa yhdestä sivun latauksesta: HTTPS ja sekasisältö, Referrer-Policy, evästeet, kolmansien osapuolten verkkotunnukset ja tunnetut seurantapalvelut, tietoturvaotsakkeet sekä kolmansien osapuolten skriptien ja tyylitiedostojen Subresource Integrity.',
    is: 'Metur persónuvernd í sex hlutum út frá einni síðuhleðslu: HTTPS og blandað efni, Referrer-Policy, vafrakökur, lén þriðju aðila og þekktir rekjendur, öryggishausar og Subresource Integrity á skriftum og stílsíðum frá þriðju aðilum.',
  },
};
