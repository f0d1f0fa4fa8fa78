/**
 * Type 24: E-mail (E-post). Judges the e-mail of the site's domain (the host asked for, a leading
 * "www." dropped, as upstream webperf_core tests/email_validator.py does), from DNS through the
 * service's resolver (context.probes.dns) and one HTTPS request (the MTA-STS policy,
 * context.probes.fetch, with a TLS probe of its host for the certificate):
 * - MX: the exchangers and the IPv4 and IPv6 addresses they have (redundancy: two addresses or
 *   more); the addresses of the 10 MX hosts of lowest priority are asked (MX_HOSTS_ASKED; data:
 *   mx.hosts_asked_max and mx.hosts_not_asked), those after them are not. A null MX (RFC 7505
 *   section 3: the domain's only MX, "." of priority 0) says the domain receives no mail; a domain
 *   without MX and without A/AAAA does not receive mail either. Any other MX "." (a non-zero
 *   priority, beside other MX records, twice) is no null MX but an invalid MX entry: the row
 *   mx-null-invalid; a domain whose only MX records are such entries receives no mail (senders
 *   find no address for "."), without the no-mail row, which is about a domain with no MX at all.
 * - DNSSEC: whether the resolver validated the answer about the domain's MX (the AD flag).
 * - MTA-STS (RFC 8461): the `_mta-sts` TXT record and https://mta-sts.<domain>/.well-known/mta-sts.txt
 *   (version, mode, mx lines, max_age; served as text/plain, no redirect, a valid certificate, at
 *   most 64 KiB: a longer file is invalid, problem 'too-large'), and whether its mx lines cover
 *   the MX hosts. TLS-RPT (RFC 8460): `_smtp._tls.<domain>`.
 * - SPF (RFC 7208) and DMARC (RFC 7489), see spf.ts and dmarc.ts.
 * Not in scope: connecting to the MX hosts on port 25 (STARTTLS, certificates, DANE), DKIM, BIMI.
 * Every DNS question first checks the plugin's signal: once its time is up nothing more is asked.
 *
 * Rating: upstream's family A (sub-ratings.ts): every check that fires adds a sub-rating with a
 * value for overall, integrity & security and standards; each is the plain mean of the values
 * set, overall likewise. Upstream's rows and values (webperf_core-tests-next.md section 2), with
 * its Swedish phrases:
 *   mx-ipv4-redundant (>= 2 addresses) 5/5/5 · mx-ipv4-single 2.5/1/5 · mx-ipv4-missing 1/–/1 (IPv6 alike);
 *   mta-sts-record 5/5/5, missing 1/1/1 · mta-sts-policy 5/5/5, invalid 2/1/1, missing 1/1/1 ·
 *   mta-sts-not-enforced (testing, none) 3/1/5 · mta-sts-mode-invalid 1/1/1 ·
 *   spf 5/5/5, missing 1/1/1 · spf-invalid-term 1/–/1 · spf-too-many-dns-lookups 1/–/1 · spf-ptr 1/–/1 ·
 *   spf-pass-all (+all) 2/1/2.5 · spf-neutral (?all) 3/2/5 · spf-softfail (~all) 5/2/5 · spf-hardfail (-all) 5/5/5 ·
 *   dmarc 5/5/5, missing 1/1/1 · dmarc-policy-reject/quarantine/none/missing 5/5/5, 4/4/5, 3/1/5, 1/1/1 ·
 *   dmarc-subpolicy-redundant (sp = p) 3/–/3 · dmarc-subpolicy-reject/quarantine/none 5/5/5, 4/4/5, 3/1/5 ·
 *   dmarc-pct-below-100 3/1/5, else dmarc-pct 5/5/5 · each DMARC error 1/–/1, none: dmarc-no-errors 5/–/5 ·
 *   each DMARC warning 3/–/3, none: dmarc-no-warnings 5/–/5.
 * Rows of our own (upstream lacks the check):
 *   mx-null 5/–/5 · mx-null-invalid 1/–/1 · no-mail (no MX, no A/AAAA) 3/–/3: receiving nothing is
 *   fine, saying so with a null MX is the standard way, and the receiving rows (addresses, MTA-STS,
 *   TLS-RPT) do not apply to such a domain; SPF and DMARC still do (they stop others sending in
 *   its name) · dnssec 5/5/5 (validated or signed), dnssec-missing 1/1/1 (no DS), dnssec-broken
 *   1/1/1 (a DS, no DNSKEY), no row when the zone could not be asked ·
 *   mta-sts-record-invalid 1/1/1 · mta-sts-mx-mismatch 2/1/1 · mta-sts-policy-certificate 1/1/1 (a
 *   policy host whose certificate senders refuse: they never read the policy; its format is rated
 *   apart) · tls-rpt 5/5/5, tls-rpt-missing 3/3/–,
 *   tls-rpt-invalid 2/2/1, only for a domain whose MTA-STS is in use: a valid `_mta-sts` record (the
 *   reports are about MTA-STS; a domain with an invalid record does not support it, RFC 8461
 *   section 3.1, and rates as one without: record-invalid and policy-missing 1/1/1, nothing more)
 *   · spf-multiple-records 1/1/1 · spf-include-invalid 1/–/1 · spf-too-many-void-lookups 1/–/1 ·
 *   spf-no-all 3/2/5 (as ?all: no all ends neutral, RFC 7208 section 4.7; not rated when the walk
 *   stopped at a limit first, for then every evaluation that gets that far ends in permerror) ·
 *   dmarc-multiple-records 1/1/1 · DMARC errors and warnings upstream lacks (see dmarc.ts).
 * Each sub-rating is one finding per category it sets: 5 resolved, 3 up to 5 a warning, below 3 an error.
 *
 * Where this deviates from upstream, and why:
 * - SPF is parsed per RFC 7208: the lookup limit counts include, a, mx, ptr, exists and redirect,
 *   nested ones too, and fires above 10 (upstream counts includes only, from 1, and fires at 10);
 *   redirect= is followed (upstream ignores it) and its target's all ends the evaluation; more than
 *   one SPF record is a permerror (upstream takes the last); void lookups over 2; qualifiers on
 *   any mechanism (upstream calls ?include non-standard); several spaces between terms are
 *   allowed by the ABNF (upstream rates them 1.5: we only note them in data); only the domain's
 *   own all (or its redirect target's) is rated (upstream rates every all of every include).
 *   Macros: a digit transformer of 0 (%{d0}) is invalid (section 7.3), and c, r and t are taken in
 *   exp= only (section 7.2). The walk stops asking DNS as an evaluation stops (section 4.6.4):
 *   past 10 lookup terms the rest are counted without asking (includes and redirects after that
 *   are not followed, so data.spf.dns_lookups is then a lower bound), and after the third void
 *   lookup nothing more is asked either (the rest still counted as lookups); data.spf.stopped says
 *   which limit ended it. Upstream asks every term.
 * - SPF with more than 10 lookups also rates performance 4.0 upstream: type 24 rates no
 *   pagespeed category here (infosec and webstandard only), so that value is left out.
 * - DMARC: adkim is parsed (upstream never matches its "adkim:" key), fo and rf are colon lists,
 *   pct outside 0..100 is an error, tag values are case-insensitive, sp texts are not swapped.
 *   A domain without a record of its own is covered by its organisational domain's (RFC 7489
 *   section 6.6.3): `_dmarc.<domain>` is asked, then `_dmarc.<organisational domain>` only, never
 *   the names between; the organisational domain is siteOf (core/gather/site.ts: the public
 *   suffix list through tldts, its private section included, so user.github.io is its own
 *   organisational domain and is never covered by a record of github.io). For
 *   a record found at the organisational domain the policy in force is sp, else p (section 6.3):
 *   dmarc-policy-<policy> rates that one, data.dmarc.policy_tag says which tag it came from, and
 *   no dmarc-subpolicy row is added (the sp tag is then the policy itself). Of the report URIs,
 *   the first 2 of rua and the first 2 of ruf (REPORT_URIS_CHECKED; section 6.2 lets a receiver
 *   send to no more) are checked for the third party's consent (section 7.1), the rest are not
 *   (data.dmarc.report_uris_not_checked).
 * - MTA-STS: unknown fields are ignored and LF line ends accepted (RFC 8461 section 3.2), a
 *   redirect, another type than text/plain, an invalid certificate or a file over 64 KiB make
 *   the policy invalid. A policy file without an `_mta-sts` TXT record is not in use (senders
 *   fetch the file only after finding the record, sections 3.1 and 5.1): rated as a domain without
 *   MTA-STS is, mta-sts-policy-missing 1/1/1 with a text saying so and data.mta_sts.policy.in_use
 *   false (upstream rates the file 5/5/5 all the same); when the TXT lookup fails the file is
 *   rated as upstream does.
 * - MX redundancy counts distinct addresses (upstream counts an address twice when two MX names
 *   share it).
 * - GDPR rows (the country of each MX and SPF address) are left out: they need GeoIP data we do
 *   not have. Upstream's fallback to an e-mail domain found on the site is dead code upstream and
 *   not ported.
 * - DNSSEC of the zone (the organisational domain) is told two ways, and the result says which the
 *   rating rests on (data.dnssec.basis): `validated` when the service's resolver set the AD flag on
 *   the MX answer (it checked the signatures); else `ds-dnskey`, from a DS at the parent and a
 *   DNSKEY at the apex, which any resolver passes on, so a resolver that strips signatures or does
 *   not validate no longer makes a signed domain look unsigned. A DS without a DNSKEY is a broken
 *   chain (dnssec-broken 1/1/1: validating resolvers reject the zone). Upstream reads the AD flag
 *   alone.
 * Not rated (NOT_RATED) when the site's host is no domain, or the MX lookup of the domain fails.
 */
import net from 'node:net';
import { siteOf, withoutWww } from '../../core/gather/site.js';
import { probeBody } from '../../core/net/probes.js';
import { definePlugin, NOT_RATED, type DnsAnswer, type DnsRecordType, type Finding, type PluginResult, type Probes } from '../../core/plugin-api.js';
import { isDmarcRecord, mailtoDomain, parseDmarc, type DmarcIssue } from './dmarc.js';
import { meta } from './meta.js';
import { isMtaStsRecord, mxMatches, parseMtaStsPolicy, parseMtaStsRecord } from './mta-sts.js';
import { checkSpf } from './spf.js';
import { STRINGS } from './strings.js';
import { findingsOf, rate, rowsData, type SubRating } from './sub-ratings.js';
import { isTlsRptRecord, parseTlsRpt } from './tls-rpt.js';

/** The domain whose e-mail is judged: the host asked for, without a leading "www.". */
export function mailDomain(url: string): string {
  return withoutWww(new URL(url).hostname.replace(/^\[|\]$/g, ''));
}

/** Policy bodies over 64 KiB are to be ignored (RFC 8461 section 3.3). */
const POLICY_MAX_BYTES = 64 * 1024;
/** The MX hosts, by priority, whose addresses are asked. */
export const MX_HOSTS_ASKED = 10;
/** The report URIs of each of rua and ruf checked for consent (RFC 7489 section 6.2: a receiver may send to two only). */
export const REPORT_URIS_CHECKED = 2;

type Ask = (name: string, type: DnsRecordType) => Promise<DnsAnswer>;

function notRated(summary: PluginResult['summary'], data: Record<string, unknown>): PluginResult {
  return { rating: NOT_RATED, ratings: {}, findings: [], summary, data };
}

export default definePlugin({
  meta,
  async run(artifacts, { probes, signal }) {
    const domain = mailDomain(artifacts.requestedUrl);
    if (net.isIP(domain) !== 0 || !domain.includes('.')) return notRated(STRINGS.noDomain(domain), { domain, error: 'not a domain' });
    const ask: Ask = async (name, type) => {
      signal.throwIfAborted();
      return probes.dns(name, type);
    };
    const rows: SubRating[] = [];
    const notes: Finding[] = [];
    const failed: string[] = [];
    const failure = (a: DnsAnswer) => failed.push(`${a.name} ${a.type}`);

    // The zone's DNSSEC keys, asked beside the MX question (they do not depend on its answer).
    const zone = siteOf(domain);
    const zoneKeys = Promise.all([ask(zone, 'DS'), ask(zone, 'DNSKEY')]);
    zoneKeys.catch(() => {}); // awaited below, unless the MX lookup ends the run first

    // MX: who receives the domain's mail.
    const mx = await ask(domain, 'MX');
    if (mx.status === 'error') return notRated(STRINGS.dnsFailed(domain, mx.error ?? 'error'), { domain, error: mx.error ?? 'MX lookup failed' });
    signal.throwIfAborted();
    const entries = mx.mx ?? [];
    const nullMx = entries.length === 1 && entries[0]!.exchange === '.' && entries[0]!.priority === 0;
    const strayDot = !nullMx && entries.some((e) => e.exchange === '.');
    const exchanges = entries.filter((e) => e.exchange !== '.');
    let mail: 'yes' | 'null-mx' | 'no' = nullMx ? 'null-mx' : exchanges.length > 0 ? 'yes' : 'no';
    let implicit = false;
    if (entries.length === 0) {
      const own = await Promise.all([ask(domain, 'A'), ask(domain, 'AAAA')]);
      for (const a of own) if (a.status === 'error') failure(a);
      if (own.some((a) => a.records.length > 0) || own.every((a) => a.status === 'error')) {
        mail = 'yes';
        implicit = true;
      }
    }
    // Senders try the MX hosts in order of priority (RFC 5321 section 5.1): the first ones are asked.
    const asked = [...exchanges].sort((a, b) => a.priority - b.priority).slice(0, MX_HOSTS_ASKED);
    const hosts = await Promise.all(asked.map(async (e) => {
      const [a, aaaa] = await Promise.all([ask(e.exchange, 'A'), ask(e.exchange, 'AAAA')]);
      for (const x of [a, aaaa]) if (x.status === 'error') failure(x);
      return { exchange: e.exchange, priority: e.priority, ipv4: a.records, ipv6: aaaa.records };
    }));
    signal.throwIfAborted();
    const ipv4 = [...new Set(hosts.flatMap((h) => h.ipv4))];
    const ipv6 = [...new Set(hosts.flatMap((h) => h.ipv6))];
    if (mail === 'null-mx') rows.push({ rule: 'mx-null', overall: 5, webstandard: 5, text: STRINGS.mxNull });
    if (strayDot) rows.push({ rule: 'mx-null-invalid', overall: 1, webstandard: 1, text: STRINGS.mxNullInvalid });
    if (mail === 'no' && entries.length === 0) rows.push({ rule: 'no-mail', overall: 3, webstandard: 3, text: STRINGS.noMail });
    if (mail === 'yes') {
      for (const [family, addresses] of [[4, ipv4], [6, ipv6]] as const) {
        if (addresses.length >= 2) rows.push({ rule: `mx-ipv${family}-redundant`, overall: 5, infosec: 5, webstandard: 5, text: STRINGS.mxRedundant(family, addresses.length) });
        else if (addresses.length === 1) rows.push({ rule: `mx-ipv${family}-single`, overall: 2.5, infosec: 1, webstandard: 5, text: STRINGS.mxSingle(family, addresses[0]!) });
        else rows.push({ rule: `mx-ipv${family}-missing`, overall: 1, webstandard: 1, text: STRINGS.mxMissing(family) });
      }
      if (implicit) notes.push({ rule: 'mx-implicit', category: 'webstandard', severity: 'info', text: STRINGS.mxImplicit });
      const bare = hosts.filter((h) => h.ipv4.length === 0 && h.ipv6.length === 0).map((h) => h.exchange);
      if (bare.length > 0) notes.push({ rule: 'mx-host-no-address', category: 'webstandard', severity: 'info', text: STRINGS.mxHostNoAddress(bare), count: bare.length });
    }

    // DNSSEC: validated when the resolver says so for the MX answer (its AD flag); signed, whatever
    // the resolver, when the parent holds a DS record for the zone and the zone a DNSKEY.
    const dnssec = judgeDnssec(zone, mx.authenticated ?? null, ...(await zoneKeys));
    if (dnssec.basis === 'validated') rows.push({ rule: 'dnssec', overall: 5, infosec: 5, webstandard: 5, text: STRINGS.dnssec });
    else if (dnssec.signed === true) rows.push({ rule: 'dnssec', overall: 5, infosec: 5, webstandard: 5, text: STRINGS.dnssecSigned(dnssec.zone) });
    else if (dnssec.signed === 'broken') rows.push({ rule: 'dnssec-broken', overall: 1, infosec: 1, webstandard: 1, text: STRINGS.dnssecBroken(dnssec.zone) });
    else if (dnssec.signed === false) rows.push({ rule: 'dnssec-missing', overall: 1, infosec: 1, webstandard: 1, text: STRINGS.dnssecMissing });
    else notes.push({ rule: 'dnssec-unknown', category: 'infosec', severity: 'info', text: STRINGS.dnssecUnknown });

    // MTA-STS and TLS-RPT: how mail to the domain is protected on the way.
    const [mtaSts, tlsRpt] = mail === 'yes' ? await checkMtaSts(domain, ask, probes, exchanges.map((e) => e.exchange), rows, failure) : [null, null];
    signal.throwIfAborted();

    // SPF: who may send in the domain's name.
    const txt = await ask(domain, 'TXT');
    const spf = await checkSpf(domain, txt, ask);
    signal.throwIfAborted();
    if (spf.status === 'error') failure(txt);
    else if (spf.status === 'missing') rows.push({ rule: 'spf-missing', overall: 1, infosec: 1, webstandard: 1, text: STRINGS.spfMissing });
    else if (spf.status === 'multiple') rows.push({ rule: 'spf-multiple-records', overall: 1, infosec: 1, webstandard: 1, text: STRINGS.spfMultiple(spf.records.length) });
    else {
      rows.push({ rule: 'spf', overall: 5, infosec: 5, webstandard: 5, text: STRINGS.spf });
      const syntax = spf.problems.filter((p) => ['unknown-mechanism', 'syntax', 'duplicate-modifier'].includes(p.reason)).map((p) => p.term);
      if (syntax.length) rows.push({ rule: 'spf-invalid-term', overall: 1, webstandard: 1, text: STRINGS.spfInvalidTerm(syntax) });
      const targets = spf.problems.filter((p) => /^(include|redirect)-/.test(p.reason)).map((p) => p.term);
      if (targets.length) rows.push({ rule: 'spf-include-invalid', overall: 1, webstandard: 1, text: STRINGS.spfIncludeInvalid(targets) });
      const loop = spf.problems.some((p) => p.reason === 'loop');
      const mxTooMany = spf.problems.filter((p) => p.reason === 'mx-too-many').map((p) => p.term);
      if (spf.dns_lookups > 10 || loop || mxTooMany.length) {
        rows.push({ rule: 'spf-too-many-dns-lookups', overall: 1, webstandard: 1, text: STRINGS.spfTooManyLookups(spf.dns_lookups, loop, mxTooMany) });
      }
      if (spf.void_lookups > 2) rows.push({ rule: 'spf-too-many-void-lookups', overall: 1, webstandard: 1, text: STRINGS.spfTooManyVoid(spf.void_lookups) });
      if (spf.ptr) rows.push({ rule: 'spf-ptr', overall: 1, webstandard: 1, text: STRINGS.spfPtr });
      const ALL_ROWS = {
        '-': { rule: 'spf-hardfail', overall: 5, infosec: 5, webstandard: 5 },
        '~': { rule: 'spf-softfail', overall: 5, infosec: 2, webstandard: 5 },
        '?': { rule: 'spf-neutral', overall: 3, infosec: 2, webstandard: 5 },
        '+': { rule: 'spf-pass-all', overall: 2, infosec: 1, webstandard: 2.5 },
      } as const;
      if (spf.all) rows.push({ ...ALL_ROWS[spf.all], text: STRINGS.spfAll(spf.all) });
      else if (spf.stopped === null) rows.push({ rule: 'spf-no-all', overall: 3, infosec: 2, webstandard: 5, text: STRINGS.spfNoAll });
      for (const name of spf.lookup_failures) failed.push(name);
    }

    // DMARC: what receivers do with mail that fails SPF and DKIM alignment.
    const dmarc = await checkDmarc(domain, ask, rows, failure);
    signal.throwIfAborted();

    if (failed.length > 0) notes.push({ rule: 'dns-lookup-failed', category: 'webstandard', severity: 'info', text: STRINGS.lookupFailed(failed), count: failed.length });
    const data = {
      domain,
      receives_mail: mail,
      mx: { records: entries, implicit, hosts, hosts_asked_max: MX_HOSTS_ASKED, hosts_not_asked: exchanges.length - asked.length, ipv4_addresses: ipv4, ipv6_addresses: ipv6 },
      dnssec,
      mta_sts: mtaSts,
      tls_rpt: tlsRpt,
      spf,
      dmarc,
      lookup_failures: failed,
      sub_ratings: rowsData(rows),
    };
    const summary = STRINGS.summary({
      domain,
      mail,
      mxHosts: exchanges.length,
      spf: spf.status === 'found' ? (spf.all ? `${spf.all}all` : 'v=spf1') : spf.status === 'multiple' ? 'permerror' : spf.status === 'error' ? '?' : '',
      dmarc: dmarc.status === 'found' ? (dmarc.policy ? `${dmarc.policy_tag}=${dmarc.policy}` : 'v=DMARC1') : dmarc.status === 'multiple' ? 'permerror' : dmarc.status === 'error' ? '?' : '',
      mtaSts: mtaSts?.policy.valid ? mtaSts.policy.mode ?? '' : mtaSts?.record.valid ? 'v=STSv1' : '',
    });
    if (rows.length === 0) return notRated(summary, data);
    return { ...rate(rows), findings: [...findingsOf(rows), ...notes], summary, data };
  },
});

async function checkMtaSts(domain: string, ask: Ask, probes: Probes, mxHosts: readonly string[], rows: SubRating[], failure: (a: DnsAnswer) => void) {
  const url = `https://mta-sts.${domain}/.well-known/mta-sts.txt`;
  const [txt, res, rpt] = await Promise.all([
    ask(`_mta-sts.${domain}`, 'TXT'),
    probes.fetch(url, { followRedirects: false, maxBytes: POLICY_MAX_BYTES }),
    ask(`_smtp._tls.${domain}`, 'TXT'),
  ]);

  // The TXT record.
  const records = txt.records.filter(isMtaStsRecord);
  const parsedRecord = records.length === 1 ? parseMtaStsRecord(records[0]!) : null;
  const recordProblems = records.length > 1 ? ['multiple'] : parsedRecord?.problems ?? [];
  const record = {
    status: txt.status === 'error' ? 'error' : records.length === 0 ? 'missing' : recordProblems.length ? 'invalid' : 'valid',
    valid: records.length === 1 && recordProblems.length === 0,
    records,
    id: parsedRecord?.id ?? null,
    problems: recordProblems,
  };
  if (txt.status === 'error') failure(txt);
  else if (records.length === 0) rows.push({ rule: 'mta-sts-record-missing', overall: 1, infosec: 1, webstandard: 1, text: STRINGS.mtaStsRecordMissing });
  else if (recordProblems.length) rows.push({ rule: 'mta-sts-record-invalid', overall: 1, infosec: 1, webstandard: 1, text: STRINGS.mtaStsRecordInvalid(recordProblems) });
  else rows.push({ rule: 'mta-sts-record', overall: 5, infosec: 5, webstandard: 5, text: STRINGS.mtaStsRecord });

  // The policy file: in use only beside a valid TXT record (senders fetch it after finding one; an
  // invalid record means the domain does not support MTA-STS, RFC 8461 section 3.1). It is read
  // either way, to say when one is served that no sender uses.
  const policy = {
    url,
    status: res.status,
    content_type: res.headers['content-type'] ?? null,
    in_use: txt.status === 'error' || record.valid,
    found: false,
    valid: false,
    version: null as string | null,
    mode: null as string | null,
    max_age: null as number | null,
    mx: [] as string[],
    unmatched_mx: [] as string[],
    certificate_trusted: null as boolean | null,
    problems: [] as string[],
    error: res.error ?? null,
  };
  const served = res.status === 200 && res.body.includes('STSv1');
  // The probe reads no more than POLICY_MAX_BYTES; an answer made elsewhere (a test's) is whole.
  const tooLarge = res.status === 200 && (probeBody(res)?.truncated ?? Buffer.byteLength(res.body) > POLICY_MAX_BYTES);
  if (!policy.in_use) {
    policy.found = served;
    rows.push({ rule: 'mta-sts-policy-missing', overall: 1, infosec: 1, webstandard: 1, text: served ? STRINGS.mtaStsPolicyUnused(url, records.length > 0) : STRINGS.mtaStsPolicyMissing(url, res.status, res.failure) });
  } else if ((res.status >= 300 && res.status < 400) || tooLarge) {
    policy.found = true;
    policy.problems.push(tooLarge ? 'too-large' : 'redirect');
    rows.push({ rule: 'mta-sts-policy-invalid', overall: 2, infosec: 1, webstandard: 1, text: STRINGS.mtaStsPolicyInvalid(policy.problems) });
  } else if (!served) {
    rows.push({ rule: 'mta-sts-policy-missing', overall: 1, infosec: 1, webstandard: 1, text: STRINGS.mtaStsPolicyMissing(url, res.status, res.failure) });
  } else {
    policy.found = true;
    const parsed = parseMtaStsPolicy(res.body);
    Object.assign(policy, { version: parsed.version, mode: parsed.mode, max_age: parsed.max_age, mx: parsed.mx });
    policy.problems.push(...parsed.problems);
    if (!/^text\/plain\s*(;|$)/i.test(policy.content_type ?? '')) policy.problems.push('content-type');
    const tls = await probes.tls(`mta-sts.${domain}`);
    policy.certificate_trusted = tls.certificate?.trusted ?? false;
    // The file's format and the host's certificate are told apart: a certificate senders refuse
    // is a certificate problem (they never read the file), not a format problem.
    const format = [...policy.problems];
    if (!policy.certificate_trusted) policy.problems.push('certificate');
    policy.valid = policy.problems.length === 0;
    if (policy.valid) rows.push({ rule: 'mta-sts-policy', overall: 5, infosec: 5, webstandard: 5, text: STRINGS.mtaStsPolicy });
    else if (format.length) rows.push({ rule: 'mta-sts-policy-invalid', overall: 2, infosec: 1, webstandard: 1, text: STRINGS.mtaStsPolicyInvalid(format) });
    if (!policy.certificate_trusted) {
      rows.push({ rule: 'mta-sts-policy-certificate', overall: 1, infosec: 1, webstandard: 1, text: STRINGS.mtaStsPolicyCertificate(`mta-sts.${domain}`, tls.certificate?.verifyError ?? tls.error ?? null) });
    }
    if (parsed.mode === 'testing' || parsed.mode === 'none') {
      rows.push({ rule: 'mta-sts-not-enforced', overall: 3, infosec: 1, webstandard: 5, text: STRINGS.mtaStsNotEnforced(parsed.mode) });
    } else if (parsed.mode !== null && parsed.mode !== 'enforce') {
      rows.push({ rule: 'mta-sts-mode-invalid', overall: 1, infosec: 1, webstandard: 1, text: STRINGS.mtaStsModeInvalid(parsed.mode) });
    }
    if ((parsed.mode === 'enforce' || parsed.mode === 'testing') && parsed.mx.length > 0) {
      policy.unmatched_mx = mxHosts.filter((h) => !parsed.mx.some((p) => mxMatches(h, p)));
      if (policy.unmatched_mx.length) rows.push({ rule: 'mta-sts-mx-mismatch', overall: 2, infosec: 1, webstandard: 1, text: STRINGS.mtaStsMxMismatch(policy.unmatched_mx) });
    }
  }

  // TLS-RPT: where senders report failed TLS; rated for a domain whose MTA-STS is in use (a valid record).
  const rptRecords = rpt.records.filter(isTlsRptRecord);
  const parsedRpt = rptRecords.length === 1 ? parseTlsRpt(rptRecords[0]!) : null;
  const rptProblems = rptRecords.length > 1 ? ['multiple'] : parsedRpt?.problems ?? [];
  const tlsRpt = {
    status: rpt.status === 'error' ? 'error' : rptRecords.length === 0 ? 'missing' : rptProblems.length ? 'invalid' : 'valid',
    records: rptRecords,
    rua: parsedRpt?.rua ?? [],
    problems: rptProblems,
  };
  if (rpt.status === 'error') failure(rpt);
  else if (record.valid) {
    if (rptRecords.length === 0) rows.push({ rule: 'tls-rpt-missing', overall: 3, infosec: 3, text: STRINGS.tlsRptMissing });
    else if (rptProblems.length) rows.push({ rule: 'tls-rpt-invalid', overall: 2, infosec: 2, webstandard: 1, text: STRINGS.tlsRptInvalid(rptProblems) });
    else rows.push({ rule: 'tls-rpt', overall: 5, infosec: 5, webstandard: 5, text: STRINGS.tlsRpt });
  }
  return [{ record, policy }, tlsRpt] as const;
}

/**
 * DNSSEC of the zone (the organisational domain), told two ways: `validated` when the resolver set
 * the AD flag on the MX answer (it checked the signatures); `signed` from the records themselves,
 * asked as any resolver passes them on: a DS at the parent and a DNSKEY at the apex (true), no DS
 * (false: no chain of trust reaches the zone), a DS without a DNSKEY ('broken': validating
 * resolvers reject the zone's answers), or null when a lookup failed. `basis` says which of the
 * two the rating rests on.
 */
function judgeDnssec(zone: string, authenticated: boolean | null, ds: DnsAnswer, dnskey: DnsAnswer) {
  const failed = ds.status === 'error' || dnskey.status === 'error';
  // The AD flag settles it (a zone validated is signed); else the records tell.
  const signed: boolean | 'broken' | null = authenticated === true ? true : failed ? null : ds.records.length === 0 ? false : dnskey.records.length === 0 ? 'broken' : true;
  const basis: 'validated' | 'ds-dnskey' | null = authenticated === true ? 'validated' : signed === null ? null : 'ds-dnskey';
  return { zone, authenticated, validated: authenticated === true, signed, basis, ds: ds.records, dnskeys: dnskey.records.length };
}

async function checkDmarc(domain: string, ask: Ask, rows: SubRating[], failure: (a: DnsAnswer) => void) {
  // The domain's own record, else its organisational domain's (RFC 7489 section 6.6.3), nothing between.
  const organisational = siteOf(domain);
  let foundAt: string | null = null;
  let records: string[] = [];
  let status: 'found' | 'missing' | 'multiple' | 'error' = 'missing';
  for (const candidate of organisational === domain ? [domain] : [domain, organisational]) {
    const answer = await ask(`_dmarc.${candidate}`, 'TXT');
    if (answer.status === 'error') {
      failure(answer);
      status = 'error';
      break;
    }
    records = answer.records.filter(isDmarcRecord);
    if (records.length > 0) {
      foundAt = candidate;
      status = records.length > 1 ? 'multiple' : 'found';
      break;
    }
  }
  const base = {
    status,
    found_at: foundAt,
    organisational_domain: organisational,
    records,
    p: null as string | null,
    policy: null as string | null,
    policy_tag: null as 'p' | 'sp' | null,
  };
  if (status === 'error') return base;
  if (status === 'missing') {
    rows.push({ rule: 'dmarc-missing', overall: 1, infosec: 1, webstandard: 1, text: STRINGS.dmarcMissing });
    return base;
  }
  if (status === 'multiple') {
    rows.push({ rule: 'dmarc-multiple-records', overall: 1, infosec: 1, webstandard: 1, text: STRINGS.dmarcMultiple(records.length) });
    return base;
  }
  const parsed = parseDmarc(records[0]!);
  const warnings: DmarcIssue[] = [...parsed.warnings];
  // Reports to another organisation's address are sent only when it agrees (RFC 7489 section 7.1);
  // a receiver may send to the first two URIs of each tag only (section 6.2), so those are checked.
  const checked = [...parsed.rua.slice(0, REPORT_URIS_CHECKED), ...parsed.ruf.slice(0, REPORT_URIS_CHECKED)];
  const external = [...new Set(checked.map(mailtoDomain).filter((d): d is string => d !== null && siteOf(d) !== siteOf(foundAt!)))];
  const verifications = await Promise.all(external.map(async (dest) => {
    const name = `${foundAt}._report._dmarc.${dest}`;
    const answer = await ask(name, 'TXT');
    if (answer.status === 'error') failure(answer);
    else if (!answer.records.some(isDmarcRecord)) warnings.push({ rule: 'dmarc-report-unverified', tag: name, value: dest });
    return { destination: dest, record: name, verified: answer.status === 'error' ? null : answer.records.some(isDmarcRecord) };
  }));

  rows.push({ rule: 'dmarc', overall: 5, infosec: 5, webstandard: 5, text: STRINGS.dmarc(foundAt!, domain) });
  const POLICY_ROWS = {
    reject: { overall: 5, infosec: 5, webstandard: 5 },
    quarantine: { overall: 4, infosec: 4, webstandard: 5 },
    none: { overall: 3, infosec: 1, webstandard: 5 },
  } as const;
  // For a domain covered by its organisational domain's record, sp is the policy in force, else p (section 6.3).
  const inherited = foundAt !== domain;
  const policyTag = inherited && parsed.sp ? 'sp' : 'p';
  const policy = policyTag === 'sp' ? parsed.sp : parsed.p;
  if (policy && policyTag === 'sp') rows.push({ rule: `dmarc-policy-${policy}`, ...POLICY_ROWS[policy], text: STRINGS.dmarcPolicyOfSubdomains(policy, foundAt!, domain) });
  else if (policy) rows.push({ rule: `dmarc-policy-${policy}`, ...POLICY_ROWS[policy], text: STRINGS.dmarcPolicy(policy) });
  else rows.push({ rule: 'dmarc-policy-missing', overall: 1, infosec: 1, webstandard: 1, text: STRINGS.dmarcPolicyMissing });
  if (!inherited) {
    if (parsed.sp && parsed.p && parsed.sp === parsed.p) rows.push({ rule: 'dmarc-subpolicy-redundant', overall: 3, webstandard: 3, text: STRINGS.dmarcSubpolicyRedundant });
    else if (parsed.sp) rows.push({ rule: `dmarc-subpolicy-${parsed.sp}`, ...POLICY_ROWS[parsed.sp], text: STRINGS.dmarcSubpolicy(parsed.sp) });
  }
  if (parsed.pct !== null) {
    if (parsed.pct < 100) rows.push({ rule: 'dmarc-pct-below-100', overall: 3, infosec: 1, webstandard: 5, text: STRINGS.dmarcPctBelow100(parsed.pct) });
    else rows.push({ rule: 'dmarc-pct', overall: 5, infosec: 5, webstandard: 5, text: STRINGS.dmarcPct });
  }
  for (const e of parsed.errors) rows.push({ rule: e.rule, overall: 1, webstandard: 1, text: STRINGS.dmarcIssue(e.rule, e.tag, e.value) });
  if (parsed.errors.length === 0) rows.push({ rule: 'dmarc-no-errors', overall: 5, webstandard: 5, text: STRINGS.dmarcNoErrors });
  for (const w of warnings) rows.push({ rule: w.rule, overall: 3, webstandard: 3, text: STRINGS.dmarcIssue(w.rule, w.tag, w.value) });
  if (warnings.length === 0) rows.push({ rule: 'dmarc-no-warnings', overall: 5, webstandard: 5, text: STRINGS.dmarcNoWarnings });
  return {
    ...base,
    record: records[0]!,
    p: parsed.p,
    sp: parsed.sp,
    policy,
    policy_tag: policy ? policyTag : null,
    adkim: parsed.adkim,
    aspf: parsed.aspf,
    pct: parsed.pct,
    fo: parsed.fo,
    rf: parsed.rf,
    ri: parsed.ri,
    rua: parsed.rua,
    ruf: parsed.ruf,
    unknown_tags: parsed.unknown,
    rua_verification: verifications,
    report_uris_checked_per_tag: REPORT_URIS_CHECKED,
    report_uris_not_checked: parsed.rua.length + parsed.ruf.length - checked.length,
    errors: parsed.errors.map((e) => e.rule),
    warnings: warnings.map((w) => w.rule),
  };
}
