/**
 * What the API needs from the rest of the service, passed in by the caller of buildApp.
 */
import type { Config } from '../core/config.js';
import type { Db } from '../core/db/database.js';
import type { TargetGuard } from '../core/net/target-guard.js';
import type { PluginRegistry } from '../core/registry.js';

export interface ApiDeps {
  db: Db;
  config: Config;
  registry: PluginRegistry;
  version: string;
  /**
   * Connection string of the caches' LISTEN connection (api/plugins/cache.ts); default
   * config.databaseUrl. Without either the caches stay off.
   */
  databaseUrl?: string | null;
  /**
   * The target guard for addresses callers give (webhook receivers): the runner's own, so both
   * judge alike; default one built from config.allowTargets.
   */
  guard?: TargetGuard;
}

/** One route of the route table. */
export interface RouteTableEntry {
  method: string;
  url: string;
  /** The properties of the route's body schema, when it has one. */
  bodyFields?: string[];
  /** The route's schema as registered (each part compiled at its first use: api/schema-compilers.ts). */
  schema?: unknown;
}

declare module 'fastify' {
  interface FastifyInstance {
    deps: ApiDeps;
    /** Documented routes, for /info. */
    endpoints: { method: string; path: string }[];
    /** Every route of every plugin, documented or not, with its body's field names when its schema names them (the input fuzzer walks it). */
    routeTable: RouteTableEntry[];
  }
}
