#!/usr/bin/env node
// The `webperf` command: runs the JavaScript built from the TypeScript sources into dist/
// (scripts/build.js). Whatever changed since the last build is built first, in one line on
// stderr, so a stale build is never run; stack traces name the .ts files through the source maps.
import { SERVICE_DIRS, build } from '../scripts/build.js';

process.setSourceMapsEnabled(true);
await build({ dirs: SERVICE_DIRS });
const { main } = await import('../dist/runners/cli.js');
try {
  await main(process.argv.slice(2));
} catch (err) {
  process.stderr.write(`webperf: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
