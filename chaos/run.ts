/**
 * `npm run chaos [name ...]`: runs the chaos scenarios in chaos/scenarios/ (each a module whose
 * default export is a ChaosScenario) against real services on loopback and prints one table:
 * load held, faults survived, bad inputs tried, data lost (must be 0). RELIABILITY.md holds the
 * table of the last full run with the command that produced it. Exits 1 when any goal failed.
 *
 * The scenarios' fixture sites are hosts of test worlds (https on port 443 and http on port 80 of
 * their own loopback addresses): like `npm test`, this needs root or CAP_NET_BIND_SERVICE, or a
 * user and network namespace (see test/helpers/world/index.ts); without them it fails and says so.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createTestCa } from '../test/helpers/world/ca.js';
import type { ChaosRow, ChaosScenario } from './scenario.js';

const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'scenarios');

export async function loadScenarios(): Promise<ChaosScenario[]> {
  const files = (await readdir(dir)).filter((f) => f.endsWith('.js')).sort();
  const out: ChaosScenario[] = [];
  for (const f of files) {
    const mod = (await import(pathToFileURL(path.join(dir, f)).href)) as { default?: ChaosScenario };
    if (mod.default && typeof mod.default.run === 'function') out.push(mod.default);
  }
  return out;
}

export function formatTable(rows: ChaosRow[]): string {
  const head = ['area', 'scenario', 'figure', 'value', 'data lost', 'goal held'];
  const body = rows.map((r) => [r.area, r.scenario, r.figure, r.value, String(r.dataLost), r.ok ? 'yes' : 'NO']);
  const esc = (s: string) => s.replace(/\|/g, '\\|');
  return [
    `| ${head.join(' | ')} |`,
    `| ${head.map(() => '---').join(' | ')} |`,
    ...body.map((cells) => `| ${cells.map(esc).join(' | ')} |`),
  ].join('\n');
}

/**
 * The scenarios' fixture sites live in test worlds (test/helpers/world): https on port 443 with
 * certificates from one CA, made here for the whole run as `npm test` makes it (every world, and
 * every service process pointed at one through world.env(), trusts it). Removed at the end.
 */
async function withTestCa<T>(fn: () => Promise<T>): Promise<T> {
  if (process.env.WEBPERF_TEST_CA_DIR) return fn();
  const dir = await mkdtemp(path.join(os.tmpdir(), 'webperf-chaos-ca-'));
  try {
    await createTestCa(dir);
    process.env.WEBPERF_TEST_CA_DIR = dir;
    return await fn();
  } finally {
    delete process.env.WEBPERF_TEST_CA_DIR;
    await rm(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<number> {
  const only = process.argv.slice(2);
  const scenarios = (await loadScenarios()).filter((s) => only.length === 0 || only.includes(s.name));
  const rows: ChaosRow[] = [];
  for (const s of scenarios) {
    const started = Date.now();
    console.log(`# ${s.name}: running (budget ${Math.round(s.budgetMs / 1000)} s)`);
    const signal = AbortSignal.timeout(s.budgetMs);
    try {
      const got = await s.run({ signal, log: (line) => console.log(`#   ${line}`) });
      rows.push(...got);
    } catch (err) {
      rows.push({
        area: 'faults', scenario: `${s.name} did not finish`, figure: 'error',
        value: err instanceof Error ? err.message : String(err), dataLost: 0, ok: false,
      });
    }
    console.log(`# ${s.name}: ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
  console.log(`\n# webperf chaos, ${new Date().toISOString()}, node ${process.version}\n`);
  console.log(formatTable(rows));
  const lost = rows.reduce((n, r) => n + r.dataLost, 0);
  const failed = rows.filter((r) => !r.ok).length;
  console.log(`\n${rows.length - failed} goals held, ${failed} failed; data lost: ${lost}`);
  return failed === 0 && lost === 0 ? 0 : 1;
}

if (process.argv[1] && pathToFileURL(process.argv[1]).href === import.meta.url) {
  process.exit(await withTestCa(main));
}
