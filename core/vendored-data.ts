/**
 * A data file vendored in the source tree beside a JSON sidecar (`.meta.json`: its source, its
 * date, the SHA-256 of the file), which an operator's refresh command replaces (`webperf data
 * refresh-retire`, `refresh-trackers`: the data renamed in, then the sidecar). Read from disk, and
 * again when either file has changed. The sidecar is believed only when its SHA-256 is that of the
 * data read: a reader between the two renames, or after a refresh whose second rename failed, sees
 * new data beside the old sidecar, and the data is then dated by its file's own modification day.
 */
import { createHash } from 'node:crypto';
import { closeSync, fstatSync, openSync, readFileSync, statSync, type Stats } from 'node:fs';

export function sha256(text: string | Buffer): string {
  return createHash('sha256').update(text).digest('hex');
}

/** What every sidecar holds. */
export interface VendoredMeta {
  /** The day the data was taken (the snapshot's commit day, or the day it was downloaded). */
  date: string;
  /** SHA-256 of the stored file. */
  sha256: string;
}

/** One read of a data file and its sidecar. */
export interface VendoredRead<M extends VendoredMeta> {
  bytes: Buffer;
  /** The sidecar as written. */
  meta: M;
  /** SHA-256 of `bytes`. */
  digest: string;
  /** The sidecar is this file's (its SHA-256 is `digest`). */
  metaMatches: boolean;
  /** The data file's modification day (YYYY-MM-DD), its date when the sidecar is not its own. */
  fileDay: string;
}

/** A file's contents and the stat of the very file read (fstat of the open descriptor). */
function readWithStat(file: string): { bytes: Buffer; stat: Stats } {
  const fd = openSync(file, 'r');
  try {
    return { stat: fstatSync(fd), bytes: readFileSync(fd) };
  } finally {
    closeSync(fd);
  }
}

const stamp = (stat: Stats) => `${stat.ino}:${stat.mtimeMs}:${stat.size}`;

/**
 * A reader of one kind of vendored data: `build` makes what the callers use from a read, and its
 * result is kept until the data file or its sidecar changes on disk (keyed on the stats of the
 * very files read: one renamed in since is read at the next call).
 */
export function vendoredReader<M extends VendoredMeta, R>(metaFileOf: (file: string) => string, build: (read: VendoredRead<M>) => R): (file: string) => R {
  let cached: { file: string; key: string; value: R } | null = null;
  return (file) => {
    const metaFile = metaFileOf(file);
    if (cached && cached.file === file && cached.key === `${stamp(statSync(file))}|${stamp(statSync(metaFile))}`) return cached.value;
    const data = readWithStat(file);
    const sidecar = readWithStat(metaFile);
    const meta = JSON.parse(sidecar.bytes.toString('utf8')) as M;
    if (typeof meta.date !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(meta.date)) throw new Error(`${metaFile}: no date`);
    const digest = sha256(data.bytes);
    const value = build({ bytes: data.bytes, meta, digest, metaMatches: meta.sha256 === digest, fileDay: data.stat.mtime.toISOString().slice(0, 10) });
    cached = { file, key: `${stamp(data.stat)}|${stamp(sidecar.stat)}`, value };
    return value;
  };
}
