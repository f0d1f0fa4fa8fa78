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
