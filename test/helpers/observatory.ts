/**
 * The MDN HTTP Observatory (npm @mdn/mdn-http-observatory, 1.4.8, a dev dependency) as a
 * reference for type 21: its own analysers and score table, run on answers a test hands it, in
 * the object its scanner builds (a Requests with the http, https and auto responses, the http
 * redirect route and the <meta> equivalents). Nothing here touches the network.
 *
 * Its postinstall (denied in package.json's allowScripts) would download Chromium's HSTS
 * preload list to conf/hsts-preload.json and IANA's TLD list to conf/tld-list.json. Only the
 * first is read by the analysers used here (by analyzer/hsts.js, on the first preload check of
 * the redirection and HSTS tests), so an empty list is written when the file is missing: no host
 * is preloaded unless a test adds it (`preload`). The TLD list is read by its API only.
 * Importing the analysers loads its config (convict, from the environment: CONFIG_FILE and its
 * RETRIEVER_*, PG* and HTTPOBS_* variables, none of which the suite sets), axios and jsdom;
 * nothing starts or connects.
 */
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import type { IncomingHttpHeaders } from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/** The six tests type 21 implements, by the Observatory's test names. */
export const TESTS = [
  'content-security-policy', 'redirection', 'referrer-policy', 'strict-transport-security', 'x-content-type-options', 'x-frame-options',
] as const;
export type TestName = (typeof TESTS)[number];

/** One answer as axios on Node would hold it: Node's headers (a repeated header joined by ", "). */
export interface ObservedAnswer {
  url: string;
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A session as its retriever keeps one: every answer's URL and status, and the last answer. */
export interface ObservedSession {
  route: { url: string; status: number }[];
  final: ObservedAnswer;
  /** Every certificate on the route was trusted. */
  verified: boolean;
}

/** What its retriever would hold for a host. */
export interface ScannerInput {
  hostname: string;
  /** The http://<host>/ session; null when it had no answer. */
  http: ObservedSession | null;
  /** The https://<host>/ session; null when it had no answer. */
  https: ObservedSession | null;
}

export interface ReferenceResult {
  test: TestName;
  result: string;
  modifier: number;
}

export interface Reference {
  /** The six results in its scanner's order, each with its score modifier. */
  results: ReferenceResult[];
  /** Its score over the six. */
  score: number;
  /** Its score over the six, with some results replaced (to price a named difference). */
  scoreWith(results: readonly { test: TestName; result: string }[]): number;
}

const require = createRequire(import.meta.url);
const root = path.dirname(require.resolve('@mdn/mdn-http-observatory/package.json'));
const load = (file: string) => import(pathToFileURL(path.join(root, 'src', file)).href);

/** Its preload list, present so that its analysers can read it; empty unless it was there already. */
async function ensurePreloadList(): Promise<void> {
  const file = path.join(root, 'conf', 'hsts-preload.json');
  if (!existsSync(file)) await writeFile(file, '{}\n');
}

export interface Observatory {
  version: string;
  /** Runs the six analysers on what its retriever would hold, and scores them as its scanner does. */
  scan(input: ScannerInput): Reference;
  /** Puts a host on its preload list (force-https, with subdomains) for this process. */
  preload(hostname: string): void;
}

let loaded: Promise<Observatory> | null = null;

export function observatory(): Promise<Observatory> {
  loaded ??= (async () => {
    await ensurePreloadList();
    const [csp, redirection, referrer, hsts, xcto, xfo, types, grader, charts, preloadList, retrieverUtils, axios] = await Promise.all([
      load('analyzer/tests/csp.js'),
      load('analyzer/tests/redirection.js'),
      load('analyzer/tests/referrer-policy.js'),
      load('analyzer/tests/strict-transport-security.js'),
      load('analyzer/tests/x-content-type-options.js'),
      load('analyzer/tests/x-frame-options.js'),
      load('types.js'),
      load('grader/grader.js'),
      load('grader/charts.js'),
      load('analyzer/hsts.js'),
      load('retriever/utils.js'),
      // Its own axios, for the AxiosHeaders its responses carry.
      import(pathToFileURL(createRequire(path.join(root, 'package.json')).resolve('axios')).href),
    ]);
    const analysers: Record<TestName, (requests: unknown) => { result: string }> = {
      'content-security-policy': csp.contentSecurityPolicyTest,
      redirection: redirection.redirectionTest,
      'referrer-policy': referrer.referrerPolicyTest,
      'strict-transport-security': hsts.strictTransportSecurityTest,
      'x-content-type-options': xcto.xContentTypeOptionsTest,
      'x-frame-options': xfo.xFrameOptionsTest,
    };
    const AxiosHeaders = axios.AxiosHeaders ?? axios.default.AxiosHeaders;
    const version = (require(path.join(root, 'package.json')) as { version: string }).version;

    /** Its scanner's sum: every modifier, but penalties only below MINIMUM_SCORE_FOR_EXTRA_CREDIT; then its grade's floor of 0. */
    const score = (results: readonly { result: string }[]): number => {
      let withExtraCredit = 100;
      let uncurved = 100;
      for (const r of results) {
        const modifier: number = grader.getScoreModifier(r.result);
        withExtraCredit += modifier;
        if (modifier < 0) uncurved += modifier;
      }
      return grader.getGradeForScore(uncurved >= charts.MINIMUM_SCORE_FOR_EXTRA_CREDIT ? withExtraCredit : uncurved).score;
    };

    const response = (answer: ObservedAnswer, verified: boolean) => ({
      status: answer.status,
      headers: new AxiosHeaders(answer.headers),
      data: answer.body,
      verified,
    });

    return {
      version,
      preload(hostname) {
        preloadList.hsts().set(hostname, { includeSubDomains: true, includeSubDomainsForPinning: true, mode: 'force-https', pinned: false });
      },
      scan(input) {
        // As its retriever fills them (retriever/retriever.js): the http session's route for both
        // redirect lists, auto from https when that answered, the <meta> equivalents of an HTML auto.
        const requests = new types.Requests(input.hostname);
        const { responses } = requests;
        responses.http = input.http ? response(input.http.final, input.http.verified) : null;
        responses.https = input.https ? response(input.https.final, input.https.verified) : null;
        const route = (input.http?.route ?? []).map((hop) => ({ url: new URL(hop.url), status: hop.status }));
        responses.httpRedirects = route;
        responses.httpsRedirects = route;
        const auto = input.https ?? input.http;
        if (auto) {
          const sessionUrl = `${input.https ? 'https' : 'http'}://${input.hostname}/`;
          requests.session = { url: new URL(sessionUrl) };
          responses.auto = input.https ? responses.https : responses.http;
          const html = types.HTML_TYPES.has(String(auto.final.headers['content-type'] ?? '').split(';')[0]) && auto.final.body;
          responses.auto.httpEquiv = html ? retrieverUtils.parseHttpEquivHeaders(auto.final.body, sessionUrl) : new Map();
        }
        const results = TESTS.map((test) => {
          const result = analysers[test](requests).result;
          return { test, result, modifier: grader.getScoreModifier(result) as number };
        });
        return {
          results,
          score: score(results),
          scoreWith: (replaced) => score(results.map((r) => replaced.find((x) => x.test === r.test) ?? r)),
        };
      },
    } satisfies Observatory;
  })();
  return loaded;
}
