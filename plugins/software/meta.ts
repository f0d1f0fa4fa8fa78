/**
 * Type 25's identity: what /v1/tests lists and what the pipeline checks before run().
 * The da, no, fi and is descriptions are machine-translated (stated in the API's meta).
 */
import type { PluginMeta } from '../../core/plugin-api.js';

export const meta: PluginMeta = {
  id: 25,
  active: true,
  categories: ['infosec', 'a11y'],
  requiredArtifacts: ['mainDocument', 'network', 'scripts', 'cookies'],
  // The libraries scan is bounded inside run() (5 s per script, 30 s in all, in a worker thread:
  // script-scanner.ts); this is the pipeline's limit above that budget and a worker's start.
  timeoutMs: 60_000,
  names: { sv: 'Mjukvara', en: 'Software', da: 'Software', no: 'Programvare', fi: 'Ohjelmisto', is: 'Hugbúnaður' },
  descriptions: {
    sv: 'Känner igen publiceringssystem, webbserver, operativsystem, språk och JavaScript-bibliotek med versioner, och bedömer kända sårbarheter, hur långt efter senaste versionen de ligger, versioner som inte längre får säkerhetsuppdateringar samt tillgänglighetslager (overlays).',
    en: 'Recognises the CMS, web server, operating system, languages and JavaScript libraries with their versions, and rates known vulnerabilities, how far behind the latest version they are, versions that no longer get security updates, and accessibility overlays.',
    da: 'Genkender CMS, webserver, styresystem, sprog og JavaScript-biblioteker med versioner og vurderer kendte sårbarheder, hvor langt de er bagud for den nyeste version, versioner der ikke længere får sikkerhedsopdateringer, samt tilgængelighedslag (overlays).',
    no: 'Gjenkjenner publiseringssystem, webserver, operativsystem, språk og JavaScript-biblioteker med versjoner, og vurderer kjente sårbarheter, hvor langt bak nyeste versjon de ligger, versjoner som ikke lenger får sikkerhetsoppdateringer, og tilgjengelighetslag (overlays).',
    fi: 'Tunnistaa julkaisujärjestelmän, verkkopalvelimen, käyttöjärjestelmän, kielet ja JavaScript-kirjastot versioineen sekä arvioi tunnetut haavoittuvuudet, kuinka paljon ne ovat jäljessä uusimmasta versiosta, versiot jotka eivät enää saa tietoturvapäivityksiä sekä saavutettavuuskerrokset (overlayt).',
    is: 'Greinir vefumsjónarkerfi, vefþjón, stýrikerfi, forritunarmál og JavaScript-söfn ásamt útgáfum og metur þekkta veikleika, hversu langt á eftir nýjustu útgáfu þau eru, útgáfur sem fá ekki lengur öryggisuppfærslur og aðgengislög (overlays).',
  },
};
