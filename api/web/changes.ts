/**
 * "What changed since the last test", as the dashboard's and the portal's site pages show it
 * (views/partials/changes.eta): per category, the findings added, resolved and changed between
 * each test type's latest public result and the one before it (core/store/changes-read.ts), each
 * with the test type it comes from.
 */
import type { ChangePair } from '../../core/store/changes-read.js';
import { CATEGORIES, type Category } from '../../core/plugin-api.js';
import type { PageLang } from './i18n/index.js';

export interface ChangesView {
  /** Test types with an earlier result to compare with. */
  compared: number;
  /** Test types whose results were stored before findings were kept. */
  unknown: number;
  categories: { category: Category; items: { change: 'added' | 'resolved' | 'changed'; text: string; type: string; before: string | null; after: string | null }[] }[];
}

const ORDER = { added: 0, changed: 1, resolved: 2 } as const;

/** Test types a site page compares (more than the service runs). */
export const CHANGES_SHOWN = 100;

export function changesView(pairs: readonly ChangePair[], lang: PageLang, typeName: (id: number) => string): ChangesView {
  const categories: ChangesView['categories'] = [];
  for (const category of CATEGORIES) {
    const items = pairs.flatMap((p) =>
      (p.changes ?? []).filter((c) => c.category === category).map((c) => ({
        change: c.change,
        text: c.text[lang],
        type: typeName(p.typeOfTest),
        before: c.before ? `${c.before.severity}${c.before.count > 1 ? ` ×${c.before.count}` : ''}` : null,
        after: c.after ? `${c.after.severity}${c.after.count > 1 ? ` ×${c.after.count}` : ''}` : null,
      })));
    items.sort((a, b) => ORDER[a.change] - ORDER[b.change] || a.type.localeCompare(b.type) || a.text.localeCompare(b.text));
    if (items.length) categories.push({ category, items });
  }
  return { compared: pairs.length, unknown: pairs.filter((p) => p.changes === null).length, categories };
}
