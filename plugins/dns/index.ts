/**
 * Type 32: DNS (Zonemaster). Tests the site's domain (its registrable domain by the public suffix
 * list, siteOf in core/gather/site.ts, as upstream does with tldextract) with Zonemaster, the
 * reference tool of the DNS field (IIS and AFNIC), run as a subprocess (zonemaster.ts), and rates
 * its output as upstream's tests/zonemaster_dns.py does (rating.ts). It runs beside the page load.
 *
 * Zonemaster asks the zone's own name servers directly, so before it runs the plugin looks up the
 * zone's NS set and each name server's IPv4 addresses through the service's resolver
 * (context.probes.dns) and refuses to test a zone with a name server at an address the target guard
 * refuses (private, loopback, link-local…, unless the operator allowlisted it), saying so in the
 * result (not rated). Zonemaster is run over IPv4 only (upstream's --no-ipv6), so the IPv6
 * addresses are not asked. What is left: Zonemaster follows the delegation from the root itself, so
 * a parent whose glue names other addresses than the zone's own records is not seen by this check
 * (Zonemaster sends DNS questions only, to port 53). The questions set the CD bit, so that a
 * validating resolver answers for a zone whose signatures fail too; a resolver that still gives
 * no answer leaves the servers unchecked, and the zone is not tested, the reason given.
 *
 * A runner without `zonemaster-cli` reports the type as not available (ComponentUnavailable): not
 * rated, and a re-test is not charged for it.
 *
 * Where this deviates from upstream, and why:
 * - the severity overrides are checked against the installed engine's tags (a test), not assumed;
 * - the remarks list every test case at WARNING or worse (upstream shows 3 per module), one finding
 *   each, and notices as info findings; messages in Swedish and English from Zonemaster's own
 *   translator instead of its English text only;
 * - Zonemaster's time bound is 150 s (upstream 180 s): a job has 180 s in all by default;
 * - no Docker: Debian's zonemaster-cli 5.0.2 with engine 4.6.2.
 */
import net from 'node:net';
import { NOT_RATED, definePlugin, type Finding, type PluginResult, type Probes, type ReportText, type Severity } from '../../core/plugin-api.js';
import { siteOf } from '../../core/gather/site.js';
import { round } from '../../core/rating.js';
import { meta, ZONEMASTER_TIMEOUT_MS } from './meta.js';
import { count, criteria, rate, SECURITY_MODULES, type Criterion } from './rating.js';
import { STRINGS } from './strings.js';
import { runZonemaster, settingsFromEnv, translate, zonemasterProgram, type Level, type ZonemasterSettings } from './zonemaster.js';

/** The zone type 32 tests for a page address: its registrable domain; null for an IP address. */
export function zoneOf(url: string): string | null {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '').toLowerCase();
  if (net.isIP(host)) return null;
  return siteOf(host);
}

/** The name servers and their IPv4 addresses, or why Zonemaster must not be run. */
type NameServerCheck =
  | { ok: true; servers: { name: string; addresses: string[] }[] }
  | { ok: false; text: ReportText; data: Record<string, unknown> };

export async function checkNameServers(zone: string, probes: Probes): Promise<NameServerCheck> {
  // With CD: a validating resolver answers for a zone whose signatures fail (the zones this test
  // is most needed for); only addresses are read here, DNSSEC is Zonemaster's to judge.
  const cd = { checkingDisabled: true };
  const ns = await probes.dns(zone, 'NS', cd);
  if (ns.status === 'nxdomain') return { ok: false, text: STRINGS.noSuchDomain(zone), data: { failed: 'nxdomain' } };
  if (ns.status === 'error') return { ok: false, text: STRINGS.lookupFailed(zone, ns.error ?? 'no answer'), data: { failed: 'lookup', error: ns.error ?? null } };
  if (ns.records.length === 0) return { ok: false, text: STRINGS.noNameServers(zone), data: { failed: 'no-ns' } };
  const servers = await Promise.all(
    [...new Set(ns.records.map((r) => r.toLowerCase().replace(/\.$/, '')))].sort().map(async (name) => {
      const a = await probes.dns(name, 'A', cd);
      return { name, addresses: a.status === 'ok' ? a.records : [] };
    }),
  );
  const refused = servers.flatMap((s) => s.addresses.filter((address) => !probes.isAllowedAddress(address)).map((address) => ({ name: s.name, address })));
  if (refused.length > 0) {
    return {
      ok: false,
      text: STRINGS.refused(zone, refused.map((r) => `${r.name} (${r.address})`).join(', ')),
      data: { failed: 'target-refused', code: 'TARGET_BLOCKED', refused_name_servers: refused },
    };
  }
  return { ok: true, servers };
}

const SEVERITY: Record<Level, Severity> = { CRITICAL: 'critical', ERROR: 'error', WARNING: 'warning', NOTICE: 'info', INFO: 'info', DEBUG: 'info' };

function notRated(text: ReportText, data: Record<string, unknown>): PluginResult {
  return { rating: NOT_RATED, ratings: {}, findings: [], summary: text, data };
}

const ratingOf = (list: readonly Criterion[]) => {
  const r = rate(count(list));
  return r === NOT_RATED ? undefined : round(r, 2);
};

/** The plugin, run with these settings (the default export reads them from the environment at each run). */
export function createDnsPlugin(settings?: ZonemasterSettings) {
  return definePlugin({
    meta,
    async run(artifacts, context) {
      const options = settings ?? settingsFromEnv(process.env, ZONEMASTER_TIMEOUT_MS);
      // A runner without Zonemaster says so first, whatever the zone.
      const program = zonemasterProgram(options);
      const zone = zoneOf(artifacts.requestedUrl);
      if (!zone) return notRated({ sv: 'Adressen är en IP-adress, inte en domän: det finns ingen DNS-zon att testa.', en: 'The address is an IP address, not a domain: there is no DNS zone to test.' }, { failed: 'no-domain' });
      // A label may not begin with a hyphen (RFC 1123): such a name is no zone, and on Zonemaster's
      // command line it would read as an option.
      if (zone.split('.').some((label) => label === '' || label.startsWith('-'))) {
        return notRated({ sv: `${zone} är inget giltigt domännamn, så det finns ingen DNS-zon att testa.`, en: `${zone} is not a valid domain name, so there is no DNS zone to test.` }, { zone, failed: 'invalid-domain' });
      }
      const check = await checkNameServers(zone, context.probes);
      if (!check.ok) return notRated(check.text, { zone, ...check.data });
      context.signal.throwIfAborted();
      const run = await runZonemaster(zone, options, context.signal, program);
      const ran = criteria(run.entries);
      const counts = count(ran);
      const data = {
        zone,
        name_servers: check.servers,
        zonemaster: {
          version: run.version,
          elapsed_ms: run.elapsedMs,
          // Every criterion that ran, with its worst level (after the overrides).
          testcases: Object.fromEntries(ran.map((c) => [c.testcase, c.level])),
        },
        counts,
      };
      if (counts.total === 0) return notRated(STRINGS.noCriteria(zone), data);
      const remarked = ran.filter((c) => c.level !== 'INFO');
      const firsts = remarked.map((c) => c.entries[0]);
      const words = await translate(firsts, ran.map((c) => c.testcase), context.signal);
      const findings: Finding[] = remarked.map((c, i) => {
        const name: ReportText = { sv: words?.testcases.sv[c.testcase] ?? c.testcase, en: words?.testcases.en[c.testcase] ?? c.testcase };
        const message: ReportText = { sv: words?.messages.sv[i] ?? c.entries[0].tag, en: words?.messages.en[i] ?? c.entries[0].tag };
        return {
          rule: `zonemaster-${c.testcase.toLowerCase()}`,
          category: SECURITY_MODULES.has(c.module) ? 'infosec' : 'webstandard',
          severity: SEVERITY[c.level],
          text: STRINGS.remark(c.module, c.level, name, message, c.entries.length - 1),
        };
      });
      const rating = round(rate(counts), 2);
      const infosec = ratingOf(ran.filter((c) => SECURITY_MODULES.has(c.module)));
      const webstandard = ratingOf(ran.filter((c) => !SECURITY_MODULES.has(c.module)));
      return {
        rating,
        ratings: { ...(infosec !== undefined ? { infosec } : {}), ...(webstandard !== undefined ? { webstandard } : {}) },
        findings,
        summary: STRINGS.summary(zone, rating, counts),
        data: { ...data, remarks: remarked.map((c) => ({ testcase: c.testcase, module: c.module, level: c.level, tags: c.entries.map((e) => e.tag) })) },
      };
    },
  });
}

export default createDnsPlugin();
