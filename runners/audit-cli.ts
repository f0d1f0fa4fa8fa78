/**
 * `webperf audit <url> --pages N [--out DIR] [--format audit_v2|csv]`: the audit's crawl and tests
 * from the command line, without a database, with a progress bar on stderr; writes the summary
 * files into a folder (created; existing files of the same names are replaced).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { Config } from '../core/config.js';
import type { AuditFormat } from '../core/store/audits.js';
import { AUDIT_USAGE } from './cli-usage.js';


/** The progress bar: one line, redrawn on a terminal, one line per page otherwise. */
function bar(done: number, total: number, url: string, status: string): string {
  const width = 24;
  const filled = Math.round((done / Math.max(1, total)) * width);
  return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${done}/${total} ${status === 'done' ? '✓' : '✗'} ${url}`;
}

export async function auditCommand(config: Config, args: string[], fail: (message: string, code?: number) => never): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { pages: { type: 'string' }, out: { type: 'string' }, format: { type: 'string', default: 'audit_v2' } },
  });
  const url = positionals[0];
  if (!url) fail(`webperf audit: a URL is required\n${AUDIT_USAGE}`);
  let start: URL;
  try {
    start = new URL(url);
  } catch {
    fail(`webperf audit: not a URL: ${url}`);
  }
  const pages = Number(values.pages);
  if (!values.pages || !/^[1-9][0-9]*$/.test(values.pages) || !Number.isSafeInteger(pages)) fail(`webperf audit: --pages must be an integer of at least 1\n${AUDIT_USAGE}`);
  if (values.format !== 'audit_v2' && values.format !== 'csv') fail('webperf audit: --format must be audit_v2 or csv');
  // The engine loads once the command is known to be well-formed: a refusal answers at once.
  const [{ auditCrawl, auditFiles }, { guardFromConfig }, { newFolderName }, { BrowserPool, CHROMIUM_INSTALL_HINT }, { createRegistry }, { AUDIT_PLUGIN_IDS }] = await Promise.all([
    import('../core/audit/execute.js'),
    import('../core/net/egress.js'),
    import('../core/store/audits.js'),
    import('./browser-pool.js'),
    import('./service.js'),
    import('./tasks/run-audit.js'),
  ]);
  if (!config.chromiumPath) fail(CHROMIUM_INSTALL_HINT, 1);
  const format = values.format as AuditFormat;
  const out = path.resolve(values.out ?? `audit-${start.hostname}-${new Date().toISOString().slice(0, 10)}`);
  const registry = await createRegistry(config);
  // The operator names the target: its origin is allowed even on loopback; the rest passes the guard.
  const guard = guardFromConfig(config, [start.origin]);
  const pool = new BrowserPool(config.chromiumPath, null, guard.trust.chromiumArgs);
  const tty = process.stderr.isTTY === true;
  const crux = { apiKey: config.cruxApiKey, endpoint: config.cruxEndpoint, resolver: guard.resolver, trust: guard.trust };
  try {
    process.stderr.write(`auditing ${start.href}: up to ${pages} page(s), format ${format}\n`);
    const crawled = await auditCrawl(start.href, pages, {
      browser: () => pool.acquire(),
      guard,
      registry,
      plugins: registry.select(AUDIT_PLUGIN_IDS),
      crux,
      pageTimeoutMs: config.jobTimeoutMs,
      onProgress: (done, total, page) => {
        const line = bar(done, total, page.url, page.status);
        process.stderr.write(tty ? `\r\x1b[K${line}` : `${line}\n`);
      },
    }, [], undefined, format);
    if (tty) process.stderr.write('\n');
    const files = await auditFiles(format, start.href, newFolderName(), pages, crawled, crux);
    await mkdir(out, { recursive: true });
    for (const f of files) await writeFile(path.join(out, f.name), f.content);
    process.stderr.write(`${crawled.filter((p) => p.status === 'done').length} page(s) tested, ${crawled.filter((p) => p.status !== 'done').length} failed\n`);
    process.stdout.write(`${files.map((f) => path.join(out, f.name)).join('\n')}\n`);
  } finally {
    await pool.close();
  }
}
