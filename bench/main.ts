/**
 * A bench file run by itself (`node dist/bench/<name>.js …`, as `npm run bench -- <name>` does not):
 * runs the bench, prints its report and exits, 1 with the error when it fails. One place for what
 * every bench file did at its end.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/** Whether the module at `url` is the script node was started with. */
export function isMain(url: string): boolean {
  return process.argv[1] !== undefined && url === pathToFileURL(path.resolve(process.argv[1])).href;
}

/** When the module at `url` is the script node was started with: runs `bench`, prints its report, exits. */
export function runIfMain(url: string, bench: () => Promise<string>): void {
  if (!isMain(url)) return;
  bench().then(
    (report) => {
      console.log(report);
      process.exit(0);
    },
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}

/**
 * A report's table as lines: its head, a rule, its rows; the first column left-aligned, the others
 * right-aligned, except a last column of free text (`lastFree`), left as it is.
 */
export function textTable(head: string[], rows: string[][], options: { lastFree?: boolean } = {}): string[] {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (options.lastFree && i === cells.length - 1 ? c : i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)];
}

/** The median of some measurements. */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}
