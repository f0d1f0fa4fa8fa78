/**
 * Reads tap's TAP output line by line and keeps each failed assertion with the subtests it sits in
 * (`file > subtest > assertion`) and the first lines of its diagnostic, so that the end of a long
 * run says what failed: a CI log that shows only its last lines still names the failure. Also
 * keeps tap's closing counts (`# { total: 175, pass: 170, fail: 3, skip: 2 }`).
 */
const INDENT = 4;
const DIAGNOSTIC_LINES = 12;
/** YAML keys of tap's diagnostic left out of the summary: long, and the location is kept apart. */
const SKIPPED_KEYS = new Set(['at', 'stack', 'source', 'compare']);

export interface TapFailure {
  path: string[];
  /** `file:line` of the failed assertion, when tap says. */
  at: string | null;
  diagnostic: string[];
}

interface OpenDiagnostic {
  failure: TapFailure;
  indent: number;
  /** The YAML key whose value the lines now belong to. */
  key: string;
  fileName?: string;
}

export class TapFailures {
  readonly #failures: TapFailure[] = [];
  readonly #subtests: string[] = [];
  #partial = '';
  #diagnosticOf: OpenDiagnostic | null = null;
  #counts: Record<string, number> = {};

  /** tap's closing counts (pass, fail, skip, todo...); empty until its last line. */
  get counts(): Readonly<Record<string, number>> {
    return this.#counts;
  }

  /** Feeds a chunk of output; lines may be split across chunks. */
  write(chunk: string): void {
    const lines = (this.#partial + chunk).split('\n');
    this.#partial = lines.pop() ?? '';
    for (const line of lines) this.#line(line);
  }

  #line(line: string): void {
    const trimmed = line.trimStart();
    const indent = line.length - trimmed.length;
    const diagnostic = this.#diagnosticOf;
    if (diagnostic) {
      if (indent >= diagnostic.indent + 2 && trimmed !== '...') {
        if (trimmed !== '---') this.#diagnosticLine(diagnostic, line.slice(diagnostic.indent + 2));
        return;
      }
      this.#diagnosticOf = null;
      if (trimmed === '...') return;
    }
    const totals = indent === 0 ? /^# \{ (total: .*) \}$/.exec(line) : null;
    if (totals) {
      this.#counts = Object.fromEntries(totals[1].split(', ').map((pair) => pair.split(': ')).map(([k, v]) => [k, Number(v)]));
      return;
    }
    const level = Math.floor(indent / INDENT);
    const subtest = /^# Subtest: (.*)$/.exec(trimmed);
    if (subtest) {
      this.#subtests.length = level;
      this.#subtests[level] = subtest[1];
      return;
    }
    const failed = /^not ok \d+ - (.*?)(?: # (?:time=.*|TODO.*|SKIP.*))?$/.exec(trimmed);
    if (failed) {
      const failure: TapFailure = { path: [...this.#subtests.slice(0, level), failed[1]], at: null, diagnostic: [] };
      this.#failures.push(failure);
      this.#diagnosticOf = { failure, indent, key: '' };
    }
  }

  #diagnosticLine(diagnostic: OpenDiagnostic, yaml: string): void {
    const key = /^([A-Za-z_]+):/.exec(yaml);
    if (key) diagnostic.key = key[1];
    if (diagnostic.key === 'at') {
      const value = /^\s+(fileName|lineNumber): (.*)$/.exec(yaml);
      if (value?.[1] === 'fileName') diagnostic.fileName = value[2];
      if (value?.[1] === 'lineNumber' && diagnostic.fileName) diagnostic.failure.at = `${diagnostic.fileName}:${value[2]}`;
      return;
    }
    if (SKIPPED_KEYS.has(diagnostic.key) || diagnostic.failure.diagnostic.length >= DIAGNOSTIC_LINES) return;
    diagnostic.failure.diagnostic.push(yaml);
  }

  /** The failures that are not only the parent of another failure, in the order they were printed. */
  leaves(): TapFailure[] {
    const isParent = (f: TapFailure) =>
      this.#failures.some((other) => other.path.length > f.path.length && f.path.every((name, i) => other.path[i] === name));
    return this.#failures.filter((f) => !isParent(f));
  }

  /** Lines to print at the end of a run, none when nothing failed. */
  summary(): string[] {
    const leaves = this.leaves();
    if (!leaves.length) return [];
    return [`# failed (${leaves.length}):`, ...leaves.flatMap((f) => [`#   ${f.path.join(' > ')}${f.at ? ` (${f.at})` : ''}`, ...f.diagnostic.map((d) => `#       ${d}`)])];
  }
}
