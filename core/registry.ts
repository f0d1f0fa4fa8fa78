/**
 * The plugin registry: the built-in plugins, discovered one folder each in plugins/ (as
 * graphile-worker finds its tasks in a folder, adding a folder is the whole change), plus
 * third-party ones loaded by npm package name (or path) from configuration. A third-party
 * package's default export is a TestPlugin or an array of them.
 */
import { existsSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import path from 'node:path';
import { createRequire } from 'node:module';
import { CATEGORIES, type TestPlugin } from './plugin-api.js';
import { LANGS } from './i18n/langs.js';
import { CODE_ROOT, PROJECT_ROOT } from './config.js';
import { testTypeCatalogue, type TestType } from './catalogue.js';

/** Where the built-in plugins live: one folder per test type, each with an index.ts. */
export const BUILTIN_PLUGIN_DIR = path.join(CODE_ROOT, 'plugins');

export class PluginRegistry {
  private readonly byId = new Map<number, TestPlugin>();
  /** testTypes(), made once per set of plugins (routes read it per request). */
  private catalogue: readonly TestType[] | null = null;

  constructor(plugins: readonly TestPlugin[] = []) {
    for (const p of plugins) this.register(p);
  }

  register(plugin: TestPlugin): void {
    assertValidPlugin(plugin);
    if (this.byId.has(plugin.meta.id)) throw new Error(`Two plugins claim type_of_test ${plugin.meta.id}`);
    this.byId.set(plugin.meta.id, plugin);
    this.catalogue = null;
  }

  get(id: number): TestPlugin | undefined {
    return this.byId.get(id);
  }

  /** Registered plugins in id order. */
  all(): TestPlugin[] {
    return [...this.byId.values()].sort((a, b) => a.meta.id - b.meta.id);
  }

  ids(): number[] {
    return this.all().map((p) => p.meta.id);
  }

  /** Plugins for the given ids (all when undefined); unknown ids are skipped. */
  select(ids?: readonly number[] | null): TestPlugin[] {
    if (!ids) return this.all().filter((p) => p.meta.active);
    return ids.map((id) => this.byId.get(id)).filter((p): p is TestPlugin => p !== undefined);
  }

  /** Every test type clients may meet: the registered plugins (available) and the static catalogue. */
  testTypes(): readonly TestType[] {
    return (this.catalogue ??= Object.freeze(testTypeCatalogue(this.all())));
  }

  /** One test type by id, registered or static. */
  testType(id: number): TestType | undefined {
    return this.testTypes().find((t) => t.id === id);
  }
}

export function assertValidPlugin(plugin: TestPlugin): void {
  const m = plugin?.meta;
  const where = m?.id !== undefined ? `Plugin ${m.id}` : 'A plugin';
  if (!m || !Number.isInteger(m.id) || m.id < 0) throw new Error(`${where} has no integer meta.id`);
  if (typeof plugin.run !== 'function') throw new Error(`${where} has no run()`);
  for (const lang of LANGS) {
    if (!m.names?.[lang]) throw new Error(`${where} has no name in ${lang}`);
    if (!m.descriptions?.[lang]) throw new Error(`${where} has no description in ${lang}`);
  }
  if (typeof m.active !== 'boolean') throw new Error(`${where} has no boolean meta.active`);
  if (!Array.isArray(m.categories)) throw new Error(`${where} has no meta.categories array`);
  for (const c of m.categories) {
    if (!(CATEGORIES as readonly string[]).includes(c)) throw new Error(`${where} names an unknown category ${c}`);
  }
  if (!Array.isArray(m.requiredArtifacts)) throw new Error(`${where} has no meta.requiredArtifacts array`);
}

/**
 * Imports every `<dir>/<folder>/index.js` (a built `plugins/<folder>/index.ts`) in folder-name order. Each folder's
 * default export must be a TestPlugin; anything else is an error naming the folder, so a broken
 * plugin stops the start rather than silently vanishing from the catalogue.
 */
export async function discoverPlugins(dir: string = BUILTIN_PLUGIN_DIR): Promise<TestPlugin[]> {
  const folders: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    if (e.name.startsWith('.')) continue;
    // A linked folder counts as one (a plugin developed elsewhere, linked in).
    if (e.isDirectory() || (e.isSymbolicLink() && (await stat(path.join(dir, e.name))).isDirectory())) folders.push(e.name);
  }
  folders.sort();
  const out: TestPlugin[] = [];
  for (const folder of folders) {
    // The built JavaScript: plugins/<folder>/index.ts is dist/plugins/<folder>/index.js.
    const index = path.join(dir, folder, 'index.js');
    if (!existsSync(index)) throw new Error(`Plugin folder ${path.join(dir, folder)} has no index.js`);
    const mod = (await import(pathToFileURL(index).href)) as { default?: unknown };
    const plugin = mod.default as TestPlugin;
    if (!plugin || typeof plugin !== 'object' || !('meta' in plugin) || !('run' in plugin)) {
      throw new Error(`${path.relative(PROJECT_ROOT, index)}: the default export is not a test plugin (an object with meta and run())`);
    }
    try {
      assertValidPlugin(plugin);
    } catch (err) {
      throw new Error(`${path.relative(PROJECT_ROOT, index)}: ${(err as Error).message}`);
    }
    out.push(plugin);
  }
  return out.sort((a, b) => a.meta.id - b.meta.id);
}

/** Imports third-party plugins by package name (resolved from the project) or file path. */
export async function loadExternalPlugins(specifiers: readonly string[]): Promise<TestPlugin[]> {
  const require = createRequire(path.join(PROJECT_ROOT, 'package.json'));
  const out: TestPlugin[] = [];
  for (const spec of specifiers) {
    const target = spec.startsWith('.') || path.isAbsolute(spec) ? pathToFileURL(path.resolve(PROJECT_ROOT, spec)).href : pathToFileURL(require.resolve(spec)).href;
    const mod = await import(target);
    const exported = mod.default ?? mod.plugin ?? mod.plugins;
    const list = Array.isArray(exported) ? exported : [exported];
    for (const p of list) {
      assertValidPlugin(p);
      out.push(p);
    }
  }
  return out;
}

export interface LoadPluginsOptions {
  /** The folder to discover built-in plugins in (default plugins/). */
  dir?: string;
  /** npm package names or paths of third-party plugins (config.plugins). */
  external?: readonly string[];
}

/** The registry a service runs with: the discovered built-ins plus the configured third-party plugins. */
export async function loadPlugins(options: LoadPluginsOptions = {}): Promise<PluginRegistry> {
  const registry = new PluginRegistry(await discoverPlugins(options.dir));
  for (const p of await loadExternalPlugins(options.external ?? [])) registry.register(p);
  return registry;
}
