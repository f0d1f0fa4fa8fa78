/**
 * User-facing strings of the E-mail plugin (type 24), in the report languages. The Swedish texts
 * start from upstream's phrases (webperf_core locales/sv/LC_MESSAGES/email_validator.po).
 */
import type { FetchFailure, ReportText } from '../../core/plugin-api.js';
import { notFetchedText } from '../../core/net/fetch-failure.js';

/** The first items joined, with how many more there are. */
export function list(items: readonly string[], max = 5): string {
  const shown = items.slice(0, max).join(', ');
  return items.length > max ? `${shown} (+${items.length - max})` : shown;
}

const t = (sv: string, en: string): ReportText => ({ sv, en });
const addresses = (n: number) => t(n === 1 ? '1 adress' : `${n} adresser`, n === 1 ? '1 address' : `${n} addresses`);

/** Why the policy file could not be used, as the finding says it. */
const POLICY_PROBLEMS: Record<string, ReportText> = {
  'line-invalid': t('en rad är inte på formen nyckel: värde', 'a line is not of the form key: value'),
  'version-missing': t('version saknas', 'version is missing'),
  'version-invalid': t('version är inte STSv1', 'version is not STSv1'),
  'mode-missing': t('mode saknas', 'mode is missing'),
  'mode-invalid': t('mode är inte enforce, testing eller none', 'mode is not enforce, testing or none'),
  'max-age-missing': t('max_age saknas', 'max_age is missing'),
  'max-age-invalid': t('max_age är inte ett heltal från 0 till 31557600', 'max_age is not a whole number from 0 to 31557600'),
  'mx-missing': t('mx-rader saknas', 'mx lines are missing'),
  'mx-invalid': t('en mx-rad är inget giltigt värdnamn', 'an mx line is no valid host name'),
  redirect: t('adressen omdirigerar, vilket RFC 8461 förbjuder', 'the address redirects, which RFC 8461 forbids'),
  'content-type': t('den skickas inte som text/plain', 'it is not served as text/plain'),
  certificate: t('certifikatet för mta-sts-värden är inte giltigt', 'the certificate of the mta-sts host is not valid'),
  'too-large': t('den är större än 64 KiB, så avsändare bortser från den (RFC 8461 avsnitt 3.3)', 'it is larger than 64 KiB, so senders ignore it (RFC 8461 section 3.3)'),
};

const RECORD_PROBLEMS: Record<string, ReportText> = {
  multiple: t('det finns mer än en post', 'there is more than one record'),
  'id-missing': t('id saknas', 'id is missing'),
  'id-invalid': t('id är inte 1–32 bokstäver och siffror', 'id is not 1–32 letters and digits'),
  'field-invalid': t('ett fält är inte på formen namn=värde', 'a field is not of the form name=value'),
  'rua-missing': t('rua saknas', 'rua is missing'),
  'rua-invalid': t('en rua-adress är varken mailto: eller https:', 'a rua address is neither mailto: nor https:'),
};

const reasons = (table: Record<string, ReportText>, keys: readonly string[], lang: 'sv' | 'en') => keys.map((k) => table[k]?.[lang] ?? k).join('; ');

/** The DMARC errors and warnings, by rule. */
const DMARC_ISSUES: Record<string, (tag: string, value: string) => ReportText> = {
  'dmarc-empty-section': () => t('DMARC DNS-post är felaktigt formaterad (en tom sektion mellan två semikolon)', 'DMARC DNS record is malformed (an empty section between two semicolons)'),
  'dmarc-malformed': (tag) => t(`DMARC DNS-post har en felaktig sektion: ${tag}`, `DMARC DNS record has a malformed section: ${tag}`),
  'dmarc-duplicate-tag': (tag) => t(`DMARC DNS-post anger ${tag} mer än en gång`, `DMARC DNS record gives ${tag} more than once`),
  'dmarc-policy-invalid': (_, v) => t(`DMARC DNS-post har ett ogiltigt Policy-värde (p=${v})`, `DMARC DNS record has an invalid POLICY value (p=${v})`),
  'dmarc-subpolicy-invalid': (_, v) => t(`DMARC DNS-post har ett ogiltigt underpolicy-värde (sp=${v})`, `DMARC DNS record has an invalid SUBPOLICY value (sp=${v})`),
  'dmarc-pct-invalid': (_, v) => t(`DMARC DNS-post har ett ogiltigt PCT-värde (pct=${v})`, `DMARC DNS record has an invalid PCT value (pct=${v})`),
  'dmarc-adkim-invalid': (_, v) => t(`DMARC DNS-post har ett ogiltigt ADKIM-värde (adkim=${v})`, `DMARC DNS record has an invalid ADKIM value (adkim=${v})`),
  'dmarc-aspf-invalid': (_, v) => t(`DMARC DNS-post har ett ogiltigt ASPF-värde (aspf=${v})`, `DMARC DNS record has an invalid ASPF value (aspf=${v})`),
  'dmarc-ri-invalid': (_, v) => t(`DMARC DNS-post har ett ogiltigt RI-värde (ri=${v})`, `DMARC DNS record has an invalid RI value (ri=${v})`),
  'dmarc-fo-invalid': (_, v) => t(`DMARC DNS-post har ett ogiltigt FO-värde (fo=${v})`, `DMARC DNS record has an invalid FO value (fo=${v})`),
  'dmarc-rf-invalid': (_, v) => t(`DMARC DNS-post har ett ogiltigt RF-värde (rf=${v})`, `DMARC DNS record has an invalid RF value (rf=${v})`),
  'dmarc-rua-invalid': (_, v) => t(`DMARC DNS-post har en ogiltig RUA-adress (rua=${v})`, `DMARC DNS record has an invalid RUA address (rua=${v})`),
  'dmarc-ruf-invalid': (_, v) => t(`DMARC DNS-post har en ogiltig RUF-adress (ruf=${v})`, `DMARC DNS record has an invalid RUF address (ruf=${v})`),
  'dmarc-fo-without-ruf': () => t('DMARC DNS-post använder FO men saknar RUF', 'DMARC DNS record uses FO but is missing RUF'),
  'dmarc-pct-default': () => t('DMARC DNS-post använde standardvärdet för PCT, det är överflödigt', 'DMARC DNS record used the default value for PCT, it is redundant'),
  'dmarc-adkim-default': () => t('DMARC DNS-post använde standardvärdet för ADKIM, det är överflödigt', 'DMARC DNS record used the default value for ADKIM, it is redundant'),
  'dmarc-aspf-default': () => t('DMARC DNS-post använde standardvärdet för ASPF, det är överflödigt', 'DMARC DNS record used the default value for ASPF, it is redundant'),
  'dmarc-ri-default': () => t('DMARC DNS-post använde standardvärdet för RI, det är överflödigt', 'DMARC DNS record used the default value for RI, it is redundant'),
  'dmarc-fo-default': () => t('DMARC DNS-post använde standardvärdet för FO, det är överflödigt', 'DMARC DNS record used the default value for FO, it is redundant'),
  'dmarc-rf-default': () => t('DMARC DNS-post använde standardvärdet för RF, det är överflödigt', 'DMARC DNS record used the default value for RF, it is redundant'),
  'dmarc-policy-not-second': () => t('DMARC DNS-post ska ange p direkt efter v (RFC 7489 avsnitt 6.3)', 'DMARC DNS record should give p right after v (RFC 7489 section 6.3)'),
  'dmarc-rua-missing': () => t('DMARC DNS-post saknar RUA: domänen får inga rapporter om e-post som skickas i dess namn', 'DMARC DNS record has no RUA: the domain gets no reports on mail sent in its name'),
  'dmarc-report-unverified': (tag, v) => t(
    `DMARC-rapporter till ${v} skickas inte: ${v} godkänner dem inte med en post på ${tag} (RFC 7489 avsnitt 7.1)`,
    `DMARC reports to ${v} are not sent: ${v} does not accept them with a record at ${tag} (RFC 7489 section 7.1)`,
  ),
};

const POLICY_TEXT = {
  reject: t("DMARC DNS-post använder 'reject' för policy", "DMARC DNS record is using 'reject' for policy"),
  quarantine: t("DMARC DNS-post använder 'quarantine' för policy", "DMARC DNS record is using 'quarantine' for policy"),
  none: t("DMARC DNS-post använder 'none' för policy", "DMARC DNS record is using 'none' for policy"),
};
const SUBPOLICY_TEXT = {
  reject: t("DMARC DNS-post använder 'reject' för underpolicy", "DMARC DNS record is using 'reject' for subpolicy"),
  quarantine: t("DMARC DNS-post använder 'quarantine' för underpolicy", "DMARC DNS record is using 'quarantine' for subpolicy"),
  none: t("DMARC DNS-post använder 'none' för underpolicy", "DMARC DNS record is using 'none' for subpolicy"),
};

const ALL_TEXT = {
  '-': t('SPF DNS-post använder hårt misslyckande (-all)', 'SPF DNS record uses hard fail (-all)'),
  '~': t('SPF DNS-post använder mjukt misslyckande (~all)', 'SPF DNS record uses soft fail (~all)'),
  '?': t('SPF DNS-post använder neutralt misslyckande (?all)', 'SPF DNS record uses neutral fail (?all)'),
  '+': t('SPF DNS-post är konfigurerad att bli ignorerad (+all godkänner alla avsändare)', 'SPF DNS record is configured to be ignored (+all passes every sender)'),
};

export const STRINGS = {
  // MX
  mxRedundant: (family: 4 | 6, n: number) => ({
    infosec: t(`MX DNS IPv${family}-post har redundans (${addresses(n).sv})`, `MX DNS IPv${family} records have redundancy (${addresses(n).en})`),
    webstandard: t(`MX DNS IPv${family}-post hittades`, `MX DNS IPv${family} record found`),
  }),
  mxSingle: (family: 4 | 6, address: string) => ({
    infosec: t(`MX DNS IPv${family}-post saknar redundans: e-posten tas emot på en enda adress (${address})`, `MX DNS IPv${family} record has no redundancy: mail is received on a single address (${address})`),
    webstandard: t(`MX DNS IPv${family}-post hittades`, `MX DNS IPv${family} record found`),
  }),
  mxMissing: (family: 4 | 6) => t(`MX DNS IPv${family}-post hittades inte`, `MX DNS IPv${family} record not found`),
  mxNull: t('Domänen tar uttryckligen inte emot e-post (null MX enligt RFC 7505)', 'The domain states that it receives no mail (a null MX as in RFC 7505)'),
  mxNullInvalid: t('Null MX (RFC 7505) ska vara domänens enda MX-post och ha prioritet 0', 'A null MX (RFC 7505) must be the domain\'s only MX record, with priority 0'),
  noMail: t(
    'Domänen tar inte emot e-post: den har varken MX- eller A/AAAA-post. En null MX (RFC 7505) säger det uttryckligen, så att avsändare slipper försöka.',
    'The domain does not receive e-mail: it has neither an MX nor an A/AAAA record. A null MX (RFC 7505) states it, so that senders need not try.',
  ),
  mxImplicit: t('Domänen saknar MX-post; e-post levereras då till domänens egen adress (RFC 5321 avsnitt 5.1)', 'The domain has no MX record; mail then goes to the domain\'s own address (RFC 5321 section 5.1)'),
  mxHostNoAddress: (hosts: readonly string[]) => t(`MX-servern saknar både IPv4- och IPv6-adress: ${list(hosts)}`, `The MX host has neither an IPv4 nor an IPv6 address: ${list(hosts)}`),

  // DNSSEC
  dnssec: t('Domänen är DNSSEC-signerad: resolvern validerade svaret om dess MX-poster', 'The domain is DNSSEC-signed: the resolver validated the answer about its MX records'),
  dnssecSigned: (zone: string) => t(
    `Domänen är DNSSEC-signerad: ${zone} har en DS-post hos sin förälder och en DNSKEY; resolvern validerade inte svaren, så signaturerna själva kontrollerades inte`,
    `The domain is DNSSEC-signed: ${zone} has a DS record at its parent and a DNSKEY; the resolver did not validate the answers, so the signatures themselves were not checked`,
  ),
  dnssecBroken: (zone: string) => t(
    `DNSSEC är trasigt: föräldern har en DS-post för ${zone}, men zonen har ingen DNSKEY, så validerande resolvrar avvisar dess svar och e-post dit kan utebli`,
    `DNSSEC is broken: the parent holds a DS record for ${zone}, but the zone has no DNSKEY, so validating resolvers reject its answers and mail to it may not arrive`,
  ),
  dnssecMissing: t('Domänen är inte DNSSEC-signerad: svaren om vart dess e-post ska skickas kan förfalskas på vägen', 'The domain is not DNSSEC-signed: the answers saying where its mail goes can be forged on the way'),
  dnssecUnknown: t('Om domänen är DNSSEC-signerad gick inte att avgöra: resolvern validerade inte svaret', 'Whether the domain is DNSSEC-signed could not be told: the resolver did not validate the answer'),

  // MTA-STS
  mtaStsRecord: t('MTA-STS DNS-post hittades', 'MTA-STS DNS record found'),
  mtaStsRecordMissing: t('MTA-STS DNS-post hittades inte', 'MTA-STS DNS record not found'),
  mtaStsRecordInvalid: (problems: readonly string[]) => t(
    `MTA-STS DNS-post har ett felaktigt format: ${reasons(RECORD_PROBLEMS, problems, 'sv')}`,
    `MTA-STS DNS record has an invalid format: ${reasons(RECORD_PROBLEMS, problems, 'en')}`,
  ),
  mtaStsPolicy: t('MTA-STS TXT (policyfilen mta-sts.txt) ser bra ut', 'MTA-STS TXT (the policy file mta-sts.txt) looks good'),
  mtaStsPolicyInvalid: (problems: readonly string[]) => t(
    `MTA-STS TXT (policyfilen mta-sts.txt) har ett felaktigt format: ${reasons(POLICY_PROBLEMS, problems, 'sv')}`,
    `MTA-STS TXT (the policy file mta-sts.txt) has an invalid format: ${reasons(POLICY_PROBLEMS, problems, 'en')}`,
  ),
  mtaStsPolicyMissing: (url: string, status: number, failure: FetchFailure | undefined) => t(
    `MTA-STS TXT hittades inte: ${url} ${status === 0 ? notFetchedText(failure).sv : `svarade ${status} utan någon policy`}`,
    `MTA-STS TXT not found: ${url} ${status === 0 ? notFetchedText(failure).en : `answered ${status} without a policy`}`,
  ),
  mtaStsPolicyCertificate: (host: string, why: string | null) => t(
    `Certifikatet för ${host} godtas inte${why ? ` (${why})` : ''}: avsändare hämtar inte MTA-STS-policyn därifrån (RFC 8461 avsnitt 3.3)`,
    `The certificate of ${host} is not accepted${why ? ` (${why})` : ''}: senders do not fetch the MTA-STS policy from it (RFC 8461 section 3.3)`,
  ),
  mtaStsPolicyUnused: (url: string, invalidRecord: boolean) => t(
    `MTA-STS TXT (policyfilen mta-sts.txt) används inte: ${url} finns, men MTA-STS DNS-post ${invalidRecord ? 'är felaktig' : 'saknas'}, så avsändare hämtar den aldrig`,
    `MTA-STS TXT (the policy file mta-sts.txt) is not in use: ${url} is there, but the MTA-STS DNS record is ${invalidRecord ? 'invalid' : 'missing'}, so senders never fetch it`,
  ),
  mtaStsNotEnforced: (mode: string) => ({
    infosec: t(`MTA-STS TXT är inte i ett tvingande läge (mode: ${mode})`, `MTA-STS TXT is not enforced using mode (mode: ${mode})`),
    webstandard: t('MTA-STS TXT mode-värdet är korrekt', 'MTA-STS TXT mode value is valid'),
  }),
  mtaStsModeInvalid: (mode: string) => t(`MTA-STS TXT mode-värdet är felaktigt (${mode})`, `MTA-STS TXT mode value is invalid (${mode})`),
  mtaStsMxMismatch: (hosts: readonly string[]) => t(
    `MTA-STS TXT täcker inte alla MX-servrar: ${list(hosts)} matchar ingen mx-rad, så e-post dit kan avvisas`,
    `MTA-STS TXT does not cover every MX host: ${list(hosts)} matches no mx line, so mail to it may be refused`,
  ),

  // TLS-RPT
  tlsRpt: t('TLS-RPT DNS-post hittades', 'TLS-RPT DNS record found'),
  tlsRptMissing: t(
    'TLS-RPT DNS-post (_smtp._tls) hittades inte: misslyckad kryptering mot MTA-STS rapporteras inte till domänen',
    'TLS-RPT DNS record (_smtp._tls) not found: failed encryption under MTA-STS is not reported to the domain',
  ),
  tlsRptInvalid: (problems: readonly string[]) => t(
    `TLS-RPT DNS-post har ett felaktigt format: ${reasons(RECORD_PROBLEMS, problems, 'sv')}`,
    `TLS-RPT DNS record has an invalid format: ${reasons(RECORD_PROBLEMS, problems, 'en')}`,
  ),

  // SPF
  spf: t('SPF DNS-post hittades', 'SPF DNS record found'),
  spfMissing: t('SPF DNS-post hittades inte', 'SPF DNS record not found'),
  spfMultiple: (n: number) => t(
    `SPF DNS-post finns ${n} gånger; fler än en gör SPF ogiltigt (permerror, RFC 7208 avsnitt 4.5)`,
    `SPF DNS record is there ${n} times; more than one makes SPF invalid (permerror, RFC 7208 section 4.5)`,
  ),
  spfInvalidTerm: (terms: readonly string[]) => t(`SPF DNS-post har otillåtet innehåll: ${list(terms)}`, `SPF DNS record has unallowed content: ${list(terms)}`),
  spfIncludeInvalid: (targets: readonly string[]) => t(
    `SPF DNS-post hänvisar till en domän utan en enda giltig SPF-post (permerror): ${list(targets)}`,
    `SPF DNS record refers to a domain without exactly one SPF record (permerror): ${list(targets)}`,
  ),
  spfTooManyLookups: (n: number, loop: boolean, mx: readonly string[]) => t(
    `SPF DNS-post orsakar för många DNS-uppslag (${n}, högst 10 tillåts${loop ? '; posterna hänvisar i en slinga' : ''}${mx.length ? `; ${list(mx)} har fler än 10 MX-servrar` : ''})`,
    `SPF DNS record causes too many DNS lookups (${n}, at most 10 are allowed${loop ? '; the records refer to each other in a loop' : ''}${mx.length ? `; ${list(mx)} has more than 10 MX hosts` : ''})`,
  ),
  spfTooManyVoid: (n: number) => t(
    `SPF DNS-post orsakar för många DNS-uppslag utan svar (${n}, högst 2 tillåts)`,
    `SPF DNS record causes too many DNS lookups that find nothing (${n}, at most 2 are allowed)`,
  ),
  spfPtr: t('SPF DNS-post använder felaktigt PTR', 'SPF DNS record is erroneously using PTR'),
  spfAll: (qualifier: '-' | '~' | '?' | '+') => ALL_TEXT[qualifier],
  spfNoAll: t('SPF DNS-post saknar all och slutar därför i ett neutralt resultat', 'SPF DNS record has no all and so ends in a neutral result'),

  // DMARC
  dmarc: (foundAt: string, domain: string) => foundAt === domain
    ? t('DMARC DNS-post hittades', 'DMARC DNS record found')
    : t(`DMARC DNS-post hittades hos ${foundAt}, som gäller även ${domain}`, `DMARC DNS record found at ${foundAt}, which also covers ${domain}`),
  dmarcMissing: t('DMARC DNS-post hittades inte', 'DMARC DNS record not found'),
  dmarcMultiple: (n: number) => t(
    `DMARC DNS-post finns ${n} gånger; då tillämpas ingen DMARC (RFC 7489 avsnitt 6.6.3)`,
    `DMARC DNS record is there ${n} times; then no DMARC applies (RFC 7489 section 6.6.3)`,
  ),
  dmarcPolicy: (p: 'reject' | 'quarantine' | 'none') => POLICY_TEXT[p],
  dmarcPolicyOfSubdomains: (sp: 'reject' | 'quarantine' | 'none', foundAt: string, domain: string) => t(
    `DMARC DNS-post hos ${foundAt} använder '${sp}' för underdomäner (sp), vilket gäller ${domain}`,
    `DMARC DNS record at ${foundAt} is using '${sp}' for subdomains (sp), which applies to ${domain}`,
  ),
  dmarcPolicyMissing: t('DMARC DNS-post saknar policy', 'DMARC DNS record is missing policy'),
  dmarcSubpolicyRedundant: t('DMARC DNS-postens underpolicy motsvarar policy, underpolicy är överflödig', 'DMARC DNS record subpolicy equals policy, subpolicy is redundant'),
  dmarcSubpolicy: (sp: 'reject' | 'quarantine' | 'none') => SUBPOLICY_TEXT[sp],
  dmarcPct: t('DMARC DNS-post använder PCT 100: policyn gäller all e-post', 'DMARC DNS record is using PCT 100: the policy applies to all mail'),
  dmarcPctBelow100: (pct: number) => ({
    infosec: t(`DMARC DNS-post använder PCT mindre än 100 (pct=${pct})`, `DMARC DNS record is using PCT of less than 100 (pct=${pct})`),
    webstandard: t('DMARC DNS-post använder PCT', 'DMARC DNS record is using PCT'),
  }),
  dmarcIssue: (rule: string, tag: string, value: string): ReportText => DMARC_ISSUES[rule]?.(tag, value) ?? t(rule, rule),
  dmarcNoErrors: t('DMARC DNS-post verkar vara korrekt formaterad', 'DMARC DNS record seems to be properly formatted'),
  dmarcNoWarnings: t('DMARC DNS-post har inga varningar', 'DMARC DNS record has no warnings'),

  lookupFailed: (names: readonly string[]) => t(
    `DNS-frågan misslyckades och den delen bedöms inte: ${list(names)}`,
    `The DNS lookup failed and that part is not judged: ${list(names)}`,
  ),

  // Summaries
  summary: (s: { domain: string; mail: 'yes' | 'null-mx' | 'no'; mxHosts: number; spf: string; dmarc: string; mtaSts: string }): ReportText => {
    const mail = s.mail === 'yes'
      ? t(s.mxHosts === 0 ? 'ingen MX-post' : s.mxHosts === 1 ? '1 MX-server' : `${s.mxHosts} MX-servrar`, s.mxHosts === 0 ? 'no MX record' : s.mxHosts === 1 ? '1 MX host' : `${s.mxHosts} MX hosts`)
      : s.mail === 'null-mx' ? t('tar inte emot e-post (null MX)', 'receives no mail (null MX)') : t('tar inte emot e-post', 'does not receive e-mail');
    const none = (v: string, sv: string, en: string) => (v ? t(v, v) : t(sv, en));
    const spf = none(s.spf, 'saknas', 'missing');
    const dmarc = none(s.dmarc, 'saknas', 'missing');
    const mta = none(s.mtaSts, 'saknas', 'missing');
    return {
      sv: `E-post för ${s.domain}: ${mail.sv}; SPF ${spf.sv}; DMARC ${dmarc.sv}${s.mail === 'yes' ? `; MTA-STS ${mta.sv}` : ''}.`,
      en: `E-mail of ${s.domain}: ${mail.en}; SPF ${spf.en}; DMARC ${dmarc.en}${s.mail === 'yes' ? `; MTA-STS ${mta.en}` : ''}.`,
    };
  },
  noDomain: (host: string) => t(`${host} är ingen domän som kan ta emot e-post; testet bedömer inte en IP-adress eller ett namn utan punkt.`, `${host} is no domain that can receive mail; the test does not judge an IP address or a name without a dot.`),
  dnsFailed: (domain: string, error: string) => t(
    `DNS-frågan om MX-posterna för ${domain} misslyckades (${error}), så e-posten kunde inte bedömas.`,
    `The DNS lookup of the MX records of ${domain} failed (${error}), so the e-mail could not be judged.`,
  ),
};
