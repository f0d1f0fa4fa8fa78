/**
 * The service's one way out, built from its configuration: the target guard with the operator's
 * allowlist, the configured resolver (WEBPERF_DNS_SERVERS) and the extra trusted CAs
 * (WEBPERF_EXTRA_CA_CERTS). Every process kind builds its guard here, so the API (webhook
 * addresses), the runner (page loads, probes, crawls, deliveries) and the CLI resolve and verify
 * alike.
 */
import type { Config } from '../config.js';
import { recordLookup } from './dns-records.js';
import { resolverFor } from './resolver.js';
import { TargetGuard } from './target-guard.js';
import { loadTrust } from './trust.js';

export type EgressConfig = Pick<Config, 'allowTargets' | 'dnsServers' | 'extraCaCerts'>;

/** The guard for this configuration; `extraAllow` adds origins (the demo site, a CLI's own target). */
export function guardFromConfig(config: EgressConfig, extraAllow: readonly string[] = []): TargetGuard {
  return new TargetGuard([...config.allowTargets, ...extraAllow], {
    resolver: resolverFor(config.dnsServers),
    records: recordLookup(config.dnsServers),
    trust: loadTrust(config.extraCaCerts),
  });
}
