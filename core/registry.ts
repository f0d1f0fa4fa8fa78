/**
 * The plugin registry: built-in plugins plus third-party ones loaded by npm package name
 * (or path) from configuration. A third-party package's default export is a TestPlugin or an
 * array of them.
 */
import { pathToFileURL } from 'node:url';
import path from 'node:path';
import { createRequire } from 'node:module';
import { CATEGORIES, type TestPlugin } from './plugin-api.js';
import { LANGS } from './i18n/langs.js';
import { PROJECT_ROOT } from './config.js';

export class PluginRegistry {
  private readonly byId = new Map<number, TestPlugin>();

  constructor(plugins: readonly TestPlugin[] = []) {
    for (const p of plugins) this.register(p);
  }

  register(plugin: TestPlugin): void {
    assertValidPlugin(plugin);
    if (this.byId.has(plugin.meta.id)) throw new Error(`Two plugins claim type_of_test ${plugin.meta.id}`);
    this.byId.set(plugin.meta.id, plugin);
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
  for (const c of m.categories ?? []) {
    if (!(CATEGORIES as readonly string[]).includes(c)) throw new Error(`${where} names an unknown category ${c}`);
  }
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
