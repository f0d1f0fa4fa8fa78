/**
 * The trend chart of monthly scores per category: a model computed here and drawn by
 * views/partials/chart.eta as server-rendered SVG (role="img" with a title and a description)
 * followed by the same numbers in a table. Chosen over a chart library: it needs no JavaScript
 * (pages work without it and the CSP forbids inline script), weighs a few hundred bytes, and the
 * table is what screen readers and keyboard users read; the SVG is the glance.
 */

/** The five monthly score types, in the order the chart and its table show them. */
export const SCORE_TYPES = ['kat-total', 'kat-a11y', 'kat-perf', 'kat-infosec', 'kat-webstandard'] as const;
export type ScoreType = (typeof SCORE_TYPES)[number];

/** One stored monthly score (as core/store/results-read.ts readMonthlyScores gives it). */
export interface MonthlyScore {
  timeperiod: string;
  typeOfScore: string;
  score: number;
}

export interface ChartPoint {
  x: number;
  y: number;
  month: string;
  score: number;
}

export interface ChartSeries {
  type: ScoreType;
  colour: string;
  /** SVG stroke-dasharray, so that series differ by more than colour. */
  dash: string;
  points: ChartPoint[];
  /** SVG path through the points; empty with fewer than two. */
  path: string;
}

export interface ChartModel {
  width: number;
  height: number;
  plot: { left: number; right: number; top: number; bottom: number };
  series: ChartSeries[];
  yTicks: { y: number; value: number }[];
  /** Month labels; the first and last are anchored at their ends so that they stay inside. */
  xTicks: { x: number; label: string; anchor: 'start' | 'middle' | 'end' }[];
  /** One row per month that has a score, oldest first: the table under the chart. */
  rows: { month: string; scores: Record<ScoreType, number | null> }[];
  first: string | null;
  last: string | null;
}

// Dark enough for 3:1 against white (WCAG 1.4.11), and told apart by dash pattern as well.
const STYLE: Record<ScoreType, { colour: string; dash: string }> = {
  'kat-total': { colour: '#1a1a1a', dash: '' },
  'kat-a11y': { colour: '#1f5fa8', dash: '6 3' },
  'kat-perf': { colour: '#a3341f', dash: '2 3' },
  'kat-infosec': { colour: '#1d6b36', dash: '10 3 2 3' },
  'kat-webstandard': { colour: '#6b3fa0', dash: '1 5' },
};

const WIDTH = 640;
const HEIGHT = 260;
const PLOT = { left: 36, right: WIDTH - 12, top: 12, bottom: HEIGHT - 32 };
const MIN = 1;
const MAX = 5;

/** Months from first to last inclusive (yyyy-mm), so that the time axis has no gaps. */
function monthRange(first: string, last: string): string[] {
  const out: string[] = [];
  let [y, m] = first.split('-').map(Number);
  const [ly, lm] = last.split('-').map(Number);
  while (y < ly || (y === ly && m <= lm)) {
    out.push(`${y}-${String(m).padStart(2, '0')}`);
    m += 1;
    if (m === 13) { m = 1; y += 1; }
  }
  return out;
}

const round1 = (v: number) => Math.round(v * 10) / 10;

export function buildChart(scores: readonly MonthlyScore[]): ChartModel {
  const known = scores.filter((s): s is MonthlyScore & { typeOfScore: ScoreType } => (SCORE_TYPES as readonly string[]).includes(s.typeOfScore));
  const months = [...new Set(known.map((s) => s.timeperiod))].sort();
  const first = months[0] ?? null;
  const last = months[months.length - 1] ?? null;
  const axis = first && last ? monthRange(first, last) : [];
  const step = axis.length > 1 ? (PLOT.right - PLOT.left) / (axis.length - 1) : 0;
  const xOf = (month: string) => round1(axis.length > 1 ? PLOT.left + axis.indexOf(month) * step : (PLOT.left + PLOT.right) / 2);
  const yOf = (score: number) => round1(PLOT.bottom - ((Math.min(MAX, Math.max(MIN, score)) - MIN) / (MAX - MIN)) * (PLOT.bottom - PLOT.top));

  const series = SCORE_TYPES.map((type) => {
    const points = known
      .filter((s) => s.typeOfScore === type)
      .sort((a, b) => a.timeperiod.localeCompare(b.timeperiod))
      .map((s) => ({ x: xOf(s.timeperiod), y: yOf(s.score), month: s.timeperiod, score: s.score }));
    const path = points.length > 1 ? points.map((p, i) => `${i === 0 ? 'M' : 'L'}${p.x} ${p.y}`).join(' ') : '';
    return { type, ...STYLE[type], points, path };
  });

  const every = Math.max(1, Math.ceil(axis.length / 8));
  const shown = axis.filter((_, i) => i % every === 0 || i === axis.length - 1);
  const xTicks = shown.map((month, i) => ({
    x: xOf(month),
    label: month,
    anchor: shown.length === 1 ? ('middle' as const) : i === 0 ? ('start' as const) : i === shown.length - 1 ? ('end' as const) : ('middle' as const),
  }));
  const yTicks = [1, 2, 3, 4, 5].map((value) => ({ y: yOf(value), value }));
  const rows = months.map((month) => ({
    month,
    scores: Object.fromEntries(SCORE_TYPES.map((type) => [type, known.find((s) => s.timeperiod === month && s.typeOfScore === type)?.score ?? null])) as Record<ScoreType, number | null>,
  }));
  return { width: WIDTH, height: HEIGHT, plot: PLOT, series, yTicks, xTicks, rows, first, last };
}
