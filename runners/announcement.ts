/**
 * A process's announcement in the data folder: a small JSON file holding its pid and what it
 * offers (pg-owner.json: the process that owns the embedded PostgreSQL; api-address.json: the
 * address the API listens on). Written whole or not at all; removed by its process when it stops,
 * and read by others, who check that the pid still runs (a crashed process leaves its file).
 */
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** Announces this process in `file` with `fields`; returns the removal, which leaves a file another process has written since alone. */
export function announce(file: string, fields: Record<string, unknown> = {}): () => void {
  mkdirSync(path.dirname(file), { recursive: true });
  // Whole or not at all: a reader never sees half a file.
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify({ pid: process.pid, ...fields }) + '\n');
  renameSync(tmp, file);
  return () => {
    if (readAnnouncement(file)?.pid === process.pid) rmSync(file, { force: true });
  };
}

/** The announcement in `file`: its pid and fields; null when there is none or it is not one. */
export function readAnnouncement(file: string): ({ pid: number } & Record<string, unknown>) | null {
  try {
    const found = JSON.parse(readFileSync(file, 'utf8')) as { pid?: unknown };
    return Number.isInteger(found.pid) ? (found as { pid: number } & Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
