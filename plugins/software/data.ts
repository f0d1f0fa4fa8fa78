/**
 * The plugin's vendored version data (data/README.md says where each file comes from): releases,
 * CVE ids and end-of-life branches of server software (data/server-software.json) and releases
 * and source-repository state of JavaScript libraries (data/js-libraries.json). A run never
 * fetches any of it. RetireJS's repository is read by retire-data.ts.
 */
import serverFile from './data/server-software.json' with { type: 'json' };
import jsFile from './data/js-libraries.json' with { type: 'json' };

/** A release branch that has reached, or will reach, its end of life. */
export interface EndOfLife {
  branch: string;
  /** The last day of support, YYYY-MM-DD; null when the branch has ended but the day is not recorded. */
  date: string | null;
  source: string;
}

/** Server software (and CMS) versions as data/server-software.json holds them. */
export interface ServerSoftware {
  name: string;
  /** Known releases, newest first. */
  releases: string[];
  /** CVE ids per exact release. */
  cves?: Record<string, string[]>;
  end_of_life: EndOfLife[];
  taken: string;
  releases_source?: string;
  cves_source?: string;
  note?: string;
}

/** A JavaScript library's releases and source-repository state (data/js-libraries.json). */
export interface JsLibrary {
  upstream_name: string;
  releases: string[];
  archived: boolean;
  last_pushed_year: number | null;
  source: string | null;
}

export const SERVER_DATA = serverFile as unknown as { taken: string; source: string; licence: string; software: Record<string, ServerSoftware> };
export const JS_DATA = jsFile as unknown as { taken: string; source: string; licence: string; libraries: Record<string, JsLibrary> };
