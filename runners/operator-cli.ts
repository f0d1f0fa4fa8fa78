/**
 * Operator commands over the database: sites, premium levels, categories and keys.
 */
import type { Config } from '../core/config.js';

export async function operatorCommand(_config: Config, command: string, _args: string[]): Promise<void> {
  throw new Error(`webperf ${command}: not available yet`);
}
