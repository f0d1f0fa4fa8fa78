/**
 * What the API needs from the rest of the service, passed in by the caller of buildApp.
 */
import type { Config } from '../core/config.js';
import type { Db } from '../core/db/database.js';
import type { PluginRegistry } from '../core/registry.js';

export interface ApiDeps {
  db: Db;
  config: Config;
  registry: PluginRegistry;
  version: string;
}

declare module 'fastify' {
  interface FastifyInstance {
    deps: ApiDeps;
    /** Documented routes, for /info. */
    endpoints: { method: string; path: string }[];
  }
}
