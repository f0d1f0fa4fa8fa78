/** User-facing strings of the not-found plugin (type 2). */
import type { FetchFailure, ReportText } from '../../core/plugin-api.js';
import { notFetchedText } from '../../core/net/fetch-failure.js';

export const STRINGS = {
  redirectToStart: (status: number): ReportText => ({
    sv: `En adress som inte finns skickas vidare (${status}) till startsidan i stället för att svara 404; besökaren får inte veta att sidan saknas.`,
    en: `An address that does not exist is redirected (${status}) to the start page instead of answering 404; visitors are not told the page is missing.`,
  }),
  redirect: (status: number, to: string): ReportText => ({
    sv: `En adress som inte finns skickas vidare (${status}) till ${to} i stället för att svara 404 direkt.`,
    en: `An address that does not exist is redirected (${status}) to ${to} instead of answering 404 in place.`,
  }),
  soft404: (status: number): ReportText => ({
    sv: `En adress som inte finns svarar ${status} i stället för 404 (en mjuk 404): sökmotorer och länkkontroller tror att sidan finns.`,
    en: `An address that does not exist answers ${status} instead of 404 (a soft 404): search engines and link checkers take the page for real.`,
  }),
  wrongStatus: (status: number): ReportText => ({
    sv: `En adress som inte finns svarar ${status} i stället för 404.`,
    en: `An address that does not exist answers ${status} instead of 404.`,
  }),
  titleMissing: {
    sv: '404-sidan saknar titel (<title>).',
    en: 'The 404 page has no title (<title>).',
  } satisfies ReportText,
  headingMissing: {
    sv: '404-sidan saknar rubrik (<h1>).',
    en: 'The 404 page has no heading (<h1>).',
  } satisfies ReportText,
  textShort: (length: number, min: number): ReportText => ({
    sv: `404-sidan har för lite text (${length} tecken, minst ${min}) för att hjälpa besökaren vidare.`,
    en: `The 404 page has too little text (${length} characters, at least ${min}) to help visitors on.`,
  }),
  langMissing: {
    sv: '404-sidan anger inte sitt språk (lang på <html>).',
    en: 'The 404 page does not state its language (lang on <html>).',
  } satisfies ReportText,
  langMismatch: (page: string, start: string): ReportText => ({
    sv: `404-sidan är på ett annat språk (${page}) än startsidan (${start}).`,
    en: `The 404 page is in another language (${page}) than the start page (${start}).`,
  }),
  summary: (url: string, status: number, finalStatus: number): ReportText =>
    status === finalStatus
      ? { sv: `Adressen ${url} svarade ${status}.`, en: `The address ${url} answered ${status}.` }
      : {
          sv: `Adressen ${url} svarade ${status}, och efter omdirigering ${finalStatus}.`,
          en: `The address ${url} answered ${status}, and ${finalStatus} after redirects.`,
        },
  unreachable: (url: string, failure: FetchFailure | undefined): ReportText => ({
    sv: `Adressen ${url} ${notFetchedText(failure).sv}`,
    en: `The address ${url} ${notFetchedText(failure).en}`,
  }),
};
