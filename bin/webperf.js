#!/usr/bin/env node
// The `webperf` command: loads the TypeScript sources through tsx (no build step).
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../runners/cli.ts');
try {
  await main(process.argv.slice(2));
} catch (err) {
  process.stderr.write(`webperf: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
