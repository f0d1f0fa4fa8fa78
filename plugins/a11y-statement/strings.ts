/**
 * User-facing strings of the accessibility statement plugin (type 26), sv and en. The Swedish
 * wordings of upstream's findings (webperf_core a11y-statement.po) lead each text where it has one.
 */
import type { ReportText } from '../../core/plugin-api.js';
import type { Compliance } from './rules.js';

const clicks = (n: number) => ({ sv: n === 1 ? '1 klick' : `${n} klick`, en: n === 1 ? '1 click' : `${n} clicks` });
const pages = (n: number) => ({ sv: n === 1 ? '1 sida' : `${n} sidor`, en: n === 1 ? '1 page' : `${n} pages` });
const LEVEL: Record<Compliance, ReportText> = {
  full: { sv: 'helt förenlig', en: 'fully compliant' },
  partial: { sv: 'delvis förenlig', en: 'partially compliant' },
  not: { sv: 'inte förenlig', en: 'not compliant' },
};
const DIGG = 'https://www.digg.se/tdosanmalan';

export const STRINGS = {
  summaryFound: (url: string, depth: number, level: Compliance | null): ReportText => ({
    sv: `Tillgänglighetsredogörelse hittad på ${url} (${depth === 0 ? 'startsidan' : `${clicks(depth).sv} från startsidan`}); den anger ${level ? `att webbplatsen är ${LEVEL[level].sv}` : 'ingen följsamhet'}.`,
    en: `Accessibility statement found at ${url} (${depth === 0 ? 'the start page' : `${clicks(depth).en} from the start page`}); it states ${level ? `that the website is ${LEVEL[level].en}` : 'no compliance status'}.`,
  }),
  summaryNotFound: (visited: number): ReportText => (visited === 0
    ? {
      sv: 'Ingen tillgänglighetsredogörelse hittades: startsidan är ingen och länkar inte till någon sida som kan vara en.',
      en: 'No accessibility statement was found: the start page is none and links to no page that could be one.',
    }
    : {
      sv: `Ingen tillgänglighetsredogörelse hittades på startsidan eller ${pages(visited).sv} som den leder till.`,
      en: `No accessibility statement was found on the start page or the ${pages(visited).en} it leads to.`,
    }),
  summaryStartUnreadable: (url: string, why: ReportText): ReportText => ({
    sv: `Startsidan ${url} kunde inte läsas (${why.sv}), så tillgänglighetsredogörelsen kunde inte sökas.`,
    en: `The start page ${url} could not be read (${why.en}), so the accessibility statement could not be looked for.`,
  }),
  summaryCandidatesUnreadable: (urls: readonly string[]): ReportText => ({
    sv: `Ingen tillgänglighetsredogörelse hittades, men ${pages(urls.length).sv} som troligen leder dit kunde inte läsas (${urls.join(', ')}).`,
    en: `No accessibility statement was found, but ${pages(urls.length).en} likely to lead to it could not be read (${urls.join(', ')}).`,
  }),

  noStatement: (visited: number): ReportText => (visited === 0
    ? {
      sv: 'Ingen tillgänglighetsredogörelse hittades: startsidan är ingen och har ingen länk som leder dit (i sidfoten, ”Om webbplatsen”, ”Tillgänglighet”). Lagen (2018:1937) kräver en.',
      en: 'No accessibility statement was found: the start page is none and has no link leading to one (in the footer, "About the website", "Accessibility"). The Swedish law (2018:1937) requires one.',
    }
    : {
      sv: `Ingen tillgänglighetsredogörelse hittades: varken startsidan eller ${pages(visited).sv} som länkas därifrån (sidfot, ”Om webbplatsen”, ”Tillgänglighet”) är en redogörelse. Lagen (2018:1937) kräver en.`,
      en: `No accessibility statement was found: neither the start page nor the ${pages(visited).en} linked from it (footer, "About the website", "Accessibility") is one. The Swedish law (2018:1937) requires one.`,
    }),
  notLinkedFromStartPage: (depth: number, linkText: string, from: string): ReportText => ({
    sv: `Tillgänglighetsredogörelsen länkas inte från startsidan: den nåddes först efter ${clicks(depth).sv} (via länken ”${linkText}” på ${from}). DIGG kräver en tydlig länk på startsidan eller från alla sidor, till exempel i sidfoten.`,
    en: `The accessibility statement is not linked from the start page: it took ${clicks(depth).en} to reach (via the link "${linkText}" on ${from}). DIGG requires a clear link on the start page or from every page, for instance in the footer.`,
  }),
  aboutOtherService: (url: string): ReportText => ({
    sv: `Den enda redogörelse som hittades (${url}) gäller en annan digital service, till exempel en e-tjänst, inte webbplatsen själv.`,
    en: `The only statement found (${url}) is about another digital service, such as an e-service, not about the website itself.`,
  }),
  compatiblePartly: (phrase: string): ReportText => ({
    sv: `Anger själv att webbplatsen endast är delvis förenlig med lagen (”${phrase}”).`,
    en: `States that the website is only partially compliant with the law ("${phrase}").`,
  }),
  compatibleNot: (phrase: string): ReportText => ({
    sv: `Anger själv att webbplatsen inte är förenlig med lagen (”${phrase}”).`,
    en: `States that the website is not compliant with the law ("${phrase}").`,
  }),
  noCompatibleWord: {
    sv: 'Ingen text om följsamhet hittades: redogörelsen ska ange om webbplatsen är helt, delvis eller inte förenlig med lagen.',
    en: 'No compliance status was found: the statement must say whether the website is fully, partially or not compliant with the law.',
  } satisfies ReportText,
  noInaccessibleContentList: {
    sv: 'Redogörelsen saknar en förteckning över innehåll som inte är tillgängligt och skälen till det (till exempel under rubriken ”Innehåll som inte är tillgängligt”).',
    en: 'The statement lacks a list of the content that is not accessible and why (for instance under the heading "Innehåll som inte är tillgängligt").',
  } satisfies ReportText,
  noFeedbackFunction: {
    sv: 'Ingen meddelandefunktion hittades: redogörelsen ska ge besökare ett sätt att påtala brister och begära otillgängligt innehåll (13 § andra stycket och 15 § lagen 2018:1937), till exempel ett formulär, en länk eller en e-postadress.',
    en: 'No feedback function was found: the statement must give visitors a way to report shortcomings and ask for inaccessible content (section 13, second paragraph, and section 15 of the law 2018:1937), such as a form, a link or an e-mail address.',
  } satisfies ReportText,
  noNotificationLink: {
    sv: `Ingen länk för anmälan-funktion: redogörelsen ska länka till DIGG:s anmälningsfunktion (${DIGG}).`,
    en: `No link to the notification function: the statement must link to DIGG's notification function (${DIGG}).`,
  } satisfies ReportText,
  oldNotificationLink: (href: string): ReportText => ({
    sv: `Har en gammal länk för anmälan (${href}): länka till ${DIGG}.`,
    en: `Has an old link to the notification function (${href}): link to ${DIGG}.`,
  }),
  canonicalNotificationLink: (href: string): ReportText => ({
    sv: `Länkar till DIGG:s anmälningsfunktion med dess långa adress (${href}); ${DIGG} är den adress DIGG anger.`,
    en: `Links to DIGG's notification function by its long address (${href}); ${DIGG} is the address DIGG gives.`,
  }),
  burdenReasoned: (phrase: string): ReportText => ({
    sv: `Hävdar oskäligt betungande anpassning (”${phrase}”) och anger skäl: innehållet undantas, men bör göras tillgängligt när det går.`,
    en: `Claims a disproportionate burden ("${phrase}") and gives a reason: the content is exempted, but should be made accessible when possible.`,
  }),
  burdenUnreasoned: (phrase: string): ReportText => ({
    sv: `Hävdar oskäligt betungande anpassning (”${phrase}”) utan att ange skäl: 12 § lagen (2018:1937) kräver en bedömning som redovisas.`,
    en: `Claims a disproportionate burden ("${phrase}") without giving a reason: section 12 of the law (2018:1937) requires an assessment that is stated.`,
  }),
  noEvaluationMethod: {
    sv: 'Anger ingen utvärderingsmetod: redogörelsen ska säga hur webbplatsen har granskats (till exempel självskattning eller granskning av extern part).',
    en: 'States no evaluation method: the statement must say how the website was assessed (for instance self-assessment or a review by a third party).',
  } satisfies ReportText,
  noAssessmentDate: {
    sv: 'Inget datum för bedömningen hittades (till exempel ”Senaste bedömningen gjordes den 17 juni 2025”).',
    en: 'No date of the assessment was found (for instance "Senaste bedömningen gjordes den 17 juni 2025").',
  } satisfies ReportText,
  noUpdatedDate: {
    sv: 'Inget uppdateringsdatum hittades (till exempel ”Redogörelsen uppdaterades senast den 13 januari 2025”).',
    en: 'No date of the last update was found (for instance "Redogörelsen uppdaterades senast den 13 januari 2025").',
  } satisfies ReportText,
  updatedOlderThan: (years: number, date: string): ReportText => ({
    sv: `Uppdateringsdatum äldre än ${years} år (${date}).`,
    en: `The last update is more than ${years} year${years === 1 ? '' : 's'} old (${date}).`,
  }),
  assessedOlderThan: (years: number, date: string): ReportText => ({
    sv: `Bedömningen är äldre än ${years} år (${date}).`,
    en: `The assessment is more than ${years} year${years === 1 ? '' : 's'} old (${date}).`,
  }),
  linkNotAPage: (list: readonly { text: string; url: string; from: string; why: ReportText }[]): ReportText => ({
    sv: `${list.length === 1 ? 'En länk' : `${list.length} länkar`} leder inte till någon sida (${list.map((l) => `”${l.text}” till ${l.url} på ${l.from}: ${l.why.sv}`).join('; ')}).`,
    en: `${list.length === 1 ? 'A link leads' : `${list.length} links lead`} to no page (${list.map((l) => `"${l.text}" to ${l.url} on ${l.from}: ${l.why.en}`).join('; ')}).`,
  }),
  noNetwork: (list: readonly { url: string; why: ReportText }[]): ReportText => ({
    sv: `Inget nätverk: ${pages(list.length).sv} kunde inte läsas (${list.map((p) => `${p.url}: ${p.why.sv}`).join('; ')}).`,
    en: `No network: ${pages(list.length).en} could not be read (${list.map((p) => `${p.url}: ${p.why.en}`).join('; ')}).`,
  }),
};
