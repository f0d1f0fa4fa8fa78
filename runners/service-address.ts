/**
 * The address the running service listens on, announced in its data folder the way pg-owner.json
 * announces the embedded PostgreSQL's owner: written when the API starts listening, removed when
 * it stops. Operator commands on the same machine read it, so that a link they print (the
 * one-time password link of `webperf users add`) points at the service that is running rather than
 * at the configured port.
 */
import path from 'node:path';
import type { Config } from '../core/config.js';
import { processAlive } from '../core/process-alive.js';
import { announce, readAnnouncement } from './announcement.js';

/** The announcement's file in the data folder. */
export const ADDRESS_FILE = 'api-address.json';

/**
 * Announces that this process's API listens at `url`; returns the removal, which leaves the file
 * alone once another process has announced itself over it.
 */
export function announceAddress(dataDir: string, url: string): () => void {
  return announce(path.join(dataDir, ADDRESS_FILE), { url });
}

/** The address a service running on this data folder announced; null when none runs (a crashed one's file is ignored). */
export function announcedAddress(dataDir: string): { pid: number; url: string } | null {
  const found = readAnnouncement(path.join(dataDir, ADDRESS_FILE));
  if (found === null || typeof found.url !== 'string' || !/^https?:\/\//.test(found.url) || !processAlive(found.pid)) return null;
  return { pid: found.pid, url: found.url };
}

/** Where the base of a printed link came from. */
export type LinkBaseSource = 'public-url' | 'running-service' | 'configured';

/** The base of links printed to the operator, and where it came from. */
export interface LinkBase {
  url: string;
  source: LinkBaseSource;
  /** Says which address was used, for the operator. */
  note: string;
}

/**
 * The base address for links: WEBPERF_PUBLIC_URL if set, else the address the running service
 * announced, else the configured HOST and PORT.
 */
export function linkBase(config: Config): LinkBase {
  if (config.publicUrl) return { url: config.publicUrl.replace(/\/+$/, ''), source: 'public-url', note: 'The link uses WEBPERF_PUBLIC_URL.' };
  const running = announcedAddress(config.dataDir);
  if (running) {
    return {
      url: running.url,
      source: 'running-service',
      note: `The link uses the address of the running service (pid ${running.pid}); set WEBPERF_PUBLIC_URL to give the address people reach it at.`,
    };
  }
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  return {
    url: `http://${host}:${config.port}`,
    source: 'configured',
    note: `The link uses the configured address (HOST and PORT): no running service announced one in ${config.dataDir}; set WEBPERF_PUBLIC_URL to give the address people reach it at.`,
  };
}
