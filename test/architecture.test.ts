/**
 * The shape of the code (STYLE.md): dependencies point inward, core imports neither Fastify nor
 * graphile-worker, plugins depend on core only, migrations never import app code, no import cycles.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import t from 'tap';
import { PROJECT_ROOT } from '../core/config.js';

const DIRS = ['core', 'plugins', 'api', 'runners', 'migrations'];
/** Where kysely is loaded from, for the whole project (its CommonJS build: see the module). */
const KYSELY = path.join('core', 'db', 'kysely.ts');

async function sourceFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(path.join(PROJECT_ROOT, dir), { withFileTypes: true })) {
    const rel = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await sourceFiles(rel)));
    else if (entry.name.endsWith('.ts')) out.push(rel);
  }
  return out;
}

const IMPORT_RE = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

async function importsOf(file: string): Promise<string[]> {
  const text = await readFile(path.join(PROJECT_ROOT, file), 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(IMPORT_RE)) out.push(m[1] ?? m[2]);
  return out;
}

function resolveLocal(from: string, spec: string): string | null {
  if (!spec.startsWith('.')) return null;
  return path.normalize(path.join(path.dirname(from), spec)).replace(/\.js$/, '.ts');
}

const files = (await Promise.all(DIRS.map(sourceFiles))).flat();
const graph = new Map<string, { local: string[]; packages: string[] }>();
for (const file of files) {
  const specs = await importsOf(file);
  graph.set(file, {
    local: specs.map((s) => resolveLocal(file, s)).filter((s): s is string => s !== null),
    packages: specs.filter((s) => !s.startsWith('.')),
  });
}

t.test('core imports neither Fastify nor graphile-worker, nor api/ runners/ plugins/', async (t) => {
  for (const [file, { local, packages }] of graph) {
    if (!file.startsWith('core/')) continue;
    t.notOk(packages.some((p) => p === 'fastify' || p.startsWith('@fastify/') || p === 'graphile-worker'), `${file}: no Fastify or graphile-worker`);
    t.notOk(local.some((l) => /^(api|runners|plugins)\//.test(l)), `${file}: depends inward only`);
  }
});

t.test('plugins depend on core only; migrations import no app code', async (t) => {
  for (const [file, { local }] of graph) {
    if (file.startsWith('plugins/')) t.notOk(local.some((l) => /^(api|runners)\//.test(l)), `${file}: no api/ or runners/`);
    // The one module they may import is kysely itself, as the project loads it (core/db/kysely.ts).
    if (file.startsWith('migrations/')) t.same(local.filter((l) => l !== KYSELY), [], `${file}: frozen in time`);
  }
});

t.test('api and runners do not reach into each other the wrong way', async (t) => {
  for (const [file, { local }] of graph) {
    if (file.startsWith('api/')) t.notOk(local.some((l) => l.startsWith('runners/')), `${file}: api does not import runners`);
  }
});

t.test('no import cycles', async (t) => {
  const state = new Map<string, 'visiting' | 'done'>();
  const cycles: string[] = [];
  const visit = (file: string, trail: string[]) => {
    if (state.get(file) === 'done') return;
    if (state.get(file) === 'visiting') {
      cycles.push([...trail.slice(trail.indexOf(file)), file].join(' → '));
      return;
    }
    state.set(file, 'visiting');
    for (const next of graph.get(file)?.local ?? []) if (graph.has(next)) visit(next, [...trail, file]);
    state.set(file, 'done');
  };
  for (const file of graph.keys()) visit(file, []);
  t.same(cycles, []);
});

t.test("kysely is loaded by core/db/kysely.ts only: one copy of it, from its CommonJS build", async (t) => {
  const everywhere = [...files, ...(await Promise.all(['test', 'bench', 'chaos'].map(sourceFiles))).flat()];
  const direct = [];
  for (const file of everywhere) {
    if (file === KYSELY) continue;
    const text = await readFile(path.join(PROJECT_ROOT, file), 'utf8');
    // A type-only import is erased: it loads nothing.
    if (/(?:^|\n)\s*(?:import|export)\s+(?!type\s)[^'"]*?from\s+['"]kysely['"]|import\(\s*['"]kysely['"]\s*\)/.test(text)) direct.push(file);
  }
  t.ok(everywhere.length > 200, `${everywhere.length} files read`);
  t.same(direct, [], 'no other file imports kysely itself');
});

t.test("lodash-es is the three-function shim (vendor/lodash-es), and Lighthouse imports nothing else from it", async (t) => {
  const lighthouse = path.join(PROJECT_ROOT, 'node_modules', 'lighthouse');
  const files = (await readdir(lighthouse, { recursive: true })).filter((f) => f.endsWith('.js') && !f.split(path.sep).includes('node_modules'));
  const imported = new Set<string>();
  const deep: string[] = [];
  for (const file of files) {
    const text = await readFile(path.join(lighthouse, file), 'utf8');
    if (!text.includes('lodash-es')) continue;
    for (const m of text.matchAll(/import\s*\{([^}]*)\}\s*from\s*['"]lodash-es['"]/g)) for (const name of m[1].split(',')) imported.add(name.trim().split(/\s+as\s+/)[0]);
    for (const m of text.matchAll(/(?:from\s*|import\s*\(\s*|require\s*\(\s*)['"](lodash-es[^'"]*)['"]/g)) if (m[1] !== 'lodash-es') deep.push(`${file}: ${m[1]}`);
    if (/import\s+\*\s+as\s+\w+\s+from\s*['"]lodash-es['"]|import\s+\w+\s+from\s*['"]lodash-es['"]/.test(text)) deep.push(`${file}: a default or namespace import`);
  }
  const shim = await import('lodash-es' as string);
  t.strictSame([...imported].sort(), ['get', 'isEqual', 'set'], "Lighthouse's named imports from lodash-es");
  t.strictSame(deep, [], 'no deep, default or namespace import of lodash-es');
  t.strictSame(Object.keys(shim).sort(), ['get', 'isEqual', 'set'], 'the installed lodash-es is the shim');
  t.equal(shim.isEqual({ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] }), true);
  t.equal(shim.get({ a: { b: [0, 7] } }, 'a.b[1]'), 7);
  t.strictSame(shim.set({}, 'a.b', 1), { a: { b: 1 } });
});
