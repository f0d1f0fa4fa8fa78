/**
 * Conformance: type 21 against the MDN HTTP Observatory 1.4.8's own analysers and score table
 * (test/helpers/observatory.ts). Each case serves real answers in the file's test world (its own
 * hosts on ports 80 and 443 under .test names, certificates from the suite's CA or self-signed),
 * runs the plugin on the page as Chromium would record it (a repeated header joined by "\n"),
 * and hands the Observatory the same answers as its retriever would hold them (Node's headers,
 * joined by ", "; the http:// route, which must be the one the plugin's probes followed; the
 * https:// answer; the <meta> equivalents). Per test, result and modifier must be the same, and
 * observatory_like_score the Observatory's score over the six tests.
 *
 * A difference kept on purpose is named (OBSERVATORY_EXCEPTIONS, with reasons in the plugin's
 * header comment): the case that shows it declares it, with both results, and the score may then
 * differ by exactly what those results are worth. The findings are held to the severity the
 * Observatory's modifier maps to (−25/−20 error, −10/−5 warning, else none), unless the case
 * declares a named finding exception (FINDING_EXCEPTIONS) for that test.
 */
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import fc from 'fast-check';
import t from 'tap';
import { PROJECT_ROOT } from '../../core/config.js';
import { runPlugin } from '../../core/pipeline.js';
import { createProbes } from '../../core/net/probes.js';
import { TargetGuard } from '../../core/net/target-guard.js';
import httpNetwork from '../../plugins/http-network/index.js';
import {
  FINDING_EXCEPTIONS, OBSERVATORY_EXCEPTIONS, OBSERVATORY_TESTS, observatoryHeaders, observatoryResults, redirectionResult,
} from '../../plugins/http-network/observatory.js';
import { readMetaTags } from '../../plugins/http-network/meta-tags.js';
import { makeArtifacts } from '../helpers/fixture-artifacts.js';
import { networkRecord } from '../helpers/infosec-tls.js';
import { observatory, TESTS, type ObservedAnswer, type ObservedSession, type TestName } from '../helpers/observatory.js';
import { startWorld, type World } from '../helpers/world/index.js';

type ScoreException = (typeof OBSERVATORY_EXCEPTIONS)[number];
type FindingException = (typeof FINDING_EXCEPTIONS)[number];

const obs = await observatory();
t.equal(obs.version, '1.4.8', 'the Observatory release type 21 follows');
t.same([...OBSERVATORY_TESTS], [...TESTS], 'the same six tests, in its scanner order');

// ── The cases ───────────────────────────────────────────────────────────────────────────────────

/** A fixed answer; header values given as a list are sent as that many header lines. */
interface Answer {
  status?: number;
  headers?: Record<string, string | string[]>;
  /** Extra markup in <head> (meta tags). */
  head?: string;
}

interface HostSpec {
  /** What https answers on every path; false: port 443 closed. */
  https?: Answer | false;
  /** The certificate (default: issued by the suite's CA). */
  cert?: 'self-signed';
  /** What http answers: 'redirect' (301 to the same URL on https, the default with https), 'none' (port 80 closed), or an answer. */
  http?: 'redirect' | 'none' | Answer;
}

interface Case {
  name: string;
  /** The address asked for: its host is the host the Observatory would scan. */
  requested: string;
  hosts: Record<string, HostSpec>;
  /** Spot checks: the Observatory's results this case is meant to show. */
  shows: Partial<Record<TestName, string>>;
  /** Named score differences: our result and the Observatory's, per test. */
  differs?: { exception: ScoreException; test: TestName; ours: string; theirs: string }[];
  /** Named finding differences, per test. */
  findings?: { exception: FindingException | ScoreException; test: TestName }[];
  /** Hosts on the Observatory's preload list. */
  preloaded?: string[];
}

const CSP = "default-src 'self'; object-src 'none'; base-uri 'self'; frame-ancestors 'none'";
const CSP_NO_FRAMING = "default-src 'self'; object-src 'none'; base-uri 'self'";
const HSTS = 'max-age=63072000; includeSubDomains; preload';
/** Every header in place. */
const GOOD = {
  'strict-transport-security': HSTS,
  'content-security-policy': CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'strict-origin-when-cross-origin',
  'permissions-policy': 'camera=()',
};
const good = (headers: Record<string, string | string[] | undefined>, head = ''): Answer => {
  const all: Record<string, string | string[] | undefined> = { ...GOOD, ...headers };
  return { headers: Object.fromEntries(Object.entries(all).filter((e): e is [string, string | string[]] => e[1] !== undefined)), head };
};
/** A case of one host, https://<name>/, http redirecting to it. */
const onePage = (c: Omit<Case, 'requested' | 'hosts'> & { slug: string; answer: Answer; cert?: 'self-signed' }): Case => ({
  name: c.name, shows: c.shows, differs: c.differs, findings: c.findings, preloaded: c.preloaded,
  requested: `https://${c.slug}.test/`,
  hosts: { [`${c.slug}.test`]: { https: c.answer, ...(c.cert ? { cert: c.cert } : {}) } },
});

const CASES: Case[] = [
  onePage({
    name: 'a strict site', slug: 'strict',
    answer: good({ 'content-security-policy': "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'", 'referrer-policy': 'no-referrer', 'x-frame-options': 'DENY' }),
    shows: {
      'content-security-policy': 'csp-implemented-with-no-unsafe-default-src-none', redirection: 'redirection-to-https', 'referrer-policy': 'referrer-policy-private',
      'strict-transport-security': 'hsts-implemented-max-age-at-least-six-months', 'x-content-type-options': 'x-content-type-options-nosniff',
      'x-frame-options': 'x-frame-options-implemented-via-csp',
    },
  }),
  onePage({
    name: 'no security headers', slug: 'bare', answer: {},
    shows: {
      'content-security-policy': 'csp-not-implemented', 'referrer-policy': 'referrer-policy-not-implemented', 'strict-transport-security': 'hsts-not-implemented',
      'x-content-type-options': 'x-content-type-options-not-implemented', 'x-frame-options': 'x-frame-options-not-implemented',
    },
    findings: [{ exception: 'referrer-policy-missing', test: 'referrer-policy' }],
  }),

  // HSTS
  onePage({
    name: 'HSTS of 300 s', slug: 'hsts-short', answer: good({ 'strict-transport-security': 'max-age=300' }),
    shows: { 'strict-transport-security': 'hsts-implemented-max-age-less-than-six-months' },
  }),
  onePage({
    name: 'HSTS of 15551999 s, a second short of six months', slug: 'hsts-almost', answer: good({ 'strict-transport-security': 'max-age=15551999; includeSubDomains; preload' }),
    shows: { 'strict-transport-security': 'hsts-implemented-max-age-less-than-six-months' },
  }),
  onePage({
    name: 'HSTS of six months (15552000 s)', slug: 'hsts-six-months', answer: good({ 'strict-transport-security': 'max-age=15552000; includeSubDomains; preload' }),
    shows: { 'strict-transport-security': 'hsts-implemented-max-age-at-least-six-months' },
    findings: [{ exception: 'hsts-one-year', test: 'strict-transport-security' }],
  }),
  onePage({
    name: 'HSTS of a year, without includeSubDomains and preload', slug: 'hsts-year', answer: good({ 'strict-transport-security': 'max-age=31536000' }),
    shows: { 'strict-transport-security': 'hsts-implemented-max-age-at-least-six-months' },
    findings: [{ exception: 'hsts-include-subdomains', test: 'strict-transport-security' }],
  }),
  onePage({
    name: 'HSTS of a year, with includeSubDomains and preload', slug: 'hsts-year-all', answer: good({ 'strict-transport-security': 'max-age=31536000; includeSubDomains; preload' }),
    shows: { 'strict-transport-security': 'hsts-implemented-max-age-at-least-six-months' },
  }),
  onePage({
    name: 'HSTS sent twice', slug: 'hsts-twice', answer: good({ 'strict-transport-security': [HSTS, HSTS] }),
    shows: { 'strict-transport-security': 'hsts-header-invalid' },
  }),
  onePage({
    name: 'HSTS with max-age=0', slug: 'hsts-zero', answer: good({ 'strict-transport-security': 'max-age=0' }),
    shows: { 'strict-transport-security': 'hsts-implemented-max-age-less-than-six-months' },
    findings: [{ exception: 'hsts-max-age-zero', test: 'strict-transport-security' }],
  }),
  onePage({
    name: 'HSTS without max-age', slug: 'hsts-no-max-age', answer: good({ 'strict-transport-security': 'includeSubDomains; preload' }),
    shows: { 'strict-transport-security': 'hsts-header-invalid' },
  }),
  onePage({
    name: 'HSTS with a max-age that is no number', slug: 'hsts-nan', answer: good({ 'strict-transport-security': 'max-age=forever; includeSubDomains; preload' }),
    shows: { 'strict-transport-security': 'hsts-implemented-max-age-at-least-six-months' },
    findings: [{ exception: 'hsts-max-age-unreadable', test: 'strict-transport-security' }],
  }),
  onePage({
    name: 'HSTS with a quoted max-age', slug: 'hsts-quoted', answer: good({ 'strict-transport-security': 'max-age="31536000"; includeSubDomains; preload' }),
    shows: { 'strict-transport-security': 'hsts-implemented-max-age-at-least-six-months' },
  }),
  onePage({
    name: 'an untrusted certificate', slug: 'self-signed', cert: 'self-signed', answer: good({}),
    shows: { 'strict-transport-security': 'hsts-invalid-cert', redirection: 'redirection-invalid-cert' },
    findings: [{ exception: 'escalated-to-critical', test: 'strict-transport-security' }, { exception: 'escalated-to-critical', test: 'redirection' }],
  }),

  // CSP
  onePage({
    name: 'CSP only in a <meta> element', slug: 'csp-meta', answer: good({ 'content-security-policy': undefined, 'x-frame-options': 'DENY' }, `<meta http-equiv="Content-Security-Policy" content="${CSP_NO_FRAMING}">`),
    shows: { 'content-security-policy': 'csp-implemented-with-no-unsafe', 'x-frame-options': 'x-frame-options-sameorigin-or-deny' },
  }),
  onePage({
    name: 'frame-ancestors only in a <meta> element', slug: 'csp-meta-framing', answer: good({ 'content-security-policy': undefined }, `<meta http-equiv="Content-Security-Policy" content="${CSP}">`),
    shows: { 'content-security-policy': 'csp-implemented-with-no-unsafe', 'x-frame-options': 'x-frame-options-implemented-via-csp' },
    findings: [{ exception: 'frame-ancestors-not-protecting', test: 'x-frame-options' }],
  }),
  onePage({
    name: "CSP with 'unsafe-inline' scripts", slug: 'csp-unsafe-inline', answer: good({ 'content-security-policy': `${CSP}; script-src 'self' 'unsafe-inline'` }),
    shows: { 'content-security-policy': 'csp-implemented-with-unsafe-inline' },
  }),
  onePage({
    name: "CSP with 'unsafe-eval' scripts", slug: 'csp-unsafe-eval', answer: good({ 'content-security-policy': `${CSP}; script-src 'self' 'unsafe-eval'` }),
    shows: { 'content-security-policy': 'csp-implemented-with-unsafe-eval' },
  }),
  onePage({
    name: "CSP with 'unsafe-eval' in style-src", slug: 'csp-style-eval', answer: good({ 'content-security-policy': `${CSP}; style-src 'self' 'unsafe-eval'` }),
    shows: { 'content-security-policy': 'csp-implemented-with-unsafe-eval' },
    findings: [{ exception: 'csp-browser-view', test: 'content-security-policy' }],
  }),
  onePage({
    name: "CSP with 'unsafe-inline' styles only", slug: 'csp-style-inline', answer: good({ 'content-security-policy': `${CSP}; style-src 'self' 'unsafe-inline'` }),
    shows: { 'content-security-policy': 'csp-implemented-with-unsafe-inline-in-style-src-only' },
  }),
  onePage({
    name: 'CSP allowing http: images', slug: 'csp-passive', answer: good({ 'content-security-policy': `${CSP}; img-src 'self' http:` }),
    shows: { 'content-security-policy': 'csp-implemented-with-insecure-scheme-in-passive-content-only' },
  }),
  onePage({
    name: 'CSP allowing http: scripts', slug: 'csp-active', answer: good({ 'content-security-policy': `${CSP}; script-src 'self' http://cdn.csp-active.test` }),
    shows: { 'content-security-policy': 'csp-implemented-with-insecure-scheme' },
  }),
  onePage({
    name: 'CSP with a directive twice', slug: 'csp-repeated-directive', answer: good({ 'content-security-policy': `${CSP}; script-src 'self'; script-src 'unsafe-inline'` }),
    shows: { 'content-security-policy': 'csp-header-invalid', 'x-frame-options': 'x-frame-options-not-implemented' },
    findings: [{ exception: 'frame-ancestors-unread', test: 'x-frame-options' }],
  }),
  onePage({
    name: "CSP with 'strict-dynamic' and no nonce", slug: 'csp-strict-dynamic', answer: good({ 'content-security-policy': `${CSP}; script-src 'self' 'strict-dynamic'` }),
    shows: { 'content-security-policy': 'csp-header-invalid', 'x-frame-options': 'x-frame-options-implemented-via-csp' },
  }),
  onePage({
    name: 'CSP sent twice, joined into something invalid', slug: 'csp-twice-invalid',
    answer: good({ 'content-security-policy': [`script-src 'self' 'unsafe-inline'; ${CSP}`, `script-src 'self'; ${CSP}`] }),
    shows: { 'content-security-policy': 'csp-header-invalid', 'x-frame-options': 'x-frame-options-not-implemented' },
    findings: [{ exception: 'frame-ancestors-unread', test: 'x-frame-options' }],
  }),
  onePage({
    name: 'CSP sent twice, joined into one unsafe policy', slug: 'csp-twice-unsafe',
    answer: good({ 'content-security-policy': ["default-src 'self'", "script-src 'unsafe-inline'"], 'x-frame-options': 'DENY' }),
    shows: { 'content-security-policy': 'csp-implemented-with-unsafe-inline' },
    findings: [{ exception: 'csp-browser-view', test: 'content-security-policy' }],
  }),
  onePage({
    name: 'CSP in a header and a <meta> element', slug: 'csp-both',
    answer: good({}, `<meta http-equiv="Content-Security-Policy" content="script-src 'self' 'unsafe-eval'">`),
    shows: { 'content-security-policy': 'csp-implemented-with-no-unsafe' },
  }),
  onePage({
    name: 'CSP Report-Only only', slug: 'csp-report-only', answer: good({ 'content-security-policy': undefined, 'content-security-policy-report-only': CSP, 'x-frame-options': 'DENY' }),
    shows: { 'content-security-policy': 'csp-not-implemented-but-reporting-enabled' },
  }),
  onePage({
    name: "CSP with object-src 'self'", slug: 'csp-object-self', answer: good({ 'content-security-policy': "default-src 'self'; base-uri 'self'; frame-ancestors 'none'" }),
    shows: { 'content-security-policy': 'csp-implemented-with-no-unsafe' },
    findings: [{ exception: 'csp-object-src-none', test: 'content-security-policy' }],
  }),
  onePage({
    name: 'CSP without base-uri', slug: 'csp-no-base-uri', answer: good({ 'content-security-policy': "default-src 'self'; object-src 'none'; frame-ancestors 'none'" }),
    shows: { 'content-security-policy': 'csp-implemented-with-no-unsafe' },
    findings: [{ exception: 'csp-base-uri', test: 'content-security-policy' }],
  }),
  onePage({
    name: 'a <meta> policy with a character reference our tokeniser does not decode', slug: 'csp-meta-entity',
    answer: good({ 'content-security-policy': undefined, 'x-frame-options': 'DENY' }, `<meta http-equiv="Content-Security-Policy" content="default-src 'none'&NewLine;">`),
    shows: { 'content-security-policy': 'csp-implemented-with-no-unsafe-default-src-none' },
    differs: [{ exception: 'meta-tags', test: 'content-security-policy', ours: 'csp-implemented-with-no-unsafe', theirs: 'csp-implemented-with-no-unsafe-default-src-none' }],
    findings: [{ exception: 'meta-tags', test: 'content-security-policy' }],
  }),

  // Referrer-Policy
  ...(['no-referrer', 'same-origin', 'strict-origin', 'strict-origin-when-cross-origin'] as const).map((policy) => onePage({
    name: `Referrer-Policy ${policy}`, slug: `referrer-${policy}`, answer: good({ 'referrer-policy': policy }),
    shows: { 'referrer-policy': 'referrer-policy-private' },
  })),
  ...(['no-referrer-when-downgrade', 'origin', 'origin-when-cross-origin', 'unsafe-url'] as const).map((policy) => onePage({
    name: `Referrer-Policy ${policy}`, slug: `referrer-${policy}`, answer: good({ 'referrer-policy': policy }),
    shows: { 'referrer-policy': 'referrer-policy-unsafe' },
  })),
  onePage({
    name: 'Referrer-Policy with no valid value', slug: 'referrer-invalid', answer: good({ 'referrer-policy': 'sometimes' }),
    shows: { 'referrer-policy': 'referrer-policy-header-invalid' },
  }),
  onePage({
    name: 'Referrer-Policy sent twice', slug: 'referrer-twice', answer: good({ 'referrer-policy': ['no-referrer', 'unsafe-url'] }),
    shows: { 'referrer-policy': 'referrer-policy-unsafe' },
  }),
  onePage({
    name: 'Referrer-Policy overridden by <meta name="referrer">', slug: 'referrer-meta', answer: good({ 'referrer-policy': 'no-referrer' }, '<meta name="referrer" content="unsafe-url">'),
    shows: { 'referrer-policy': 'referrer-policy-unsafe' },
  }),
  onePage({
    name: 'no Referrer-Policy', slug: 'referrer-missing', answer: good({ 'referrer-policy': undefined }),
    shows: { 'referrer-policy': 'referrer-policy-not-implemented' },
    findings: [{ exception: 'referrer-policy-missing', test: 'referrer-policy' }],
  }),

  // X-Content-Type-Options
  onePage({
    name: 'X-Content-Type-Options sent twice', slug: 'xcto-twice', answer: good({ 'x-content-type-options': ['nosniff', 'NoSniff'] }),
    shows: { 'x-content-type-options': 'x-content-type-options-header-invalid' },
  }),
  onePage({
    name: 'X-Content-Type-Options misspelt', slug: 'xcto-invalid', answer: good({ 'x-content-type-options': 'nosnif' }),
    shows: { 'x-content-type-options': 'x-content-type-options-header-invalid' },
  }),
  onePage({
    name: 'no X-Content-Type-Options', slug: 'xcto-missing', answer: good({ 'x-content-type-options': undefined }),
    shows: { 'x-content-type-options': 'x-content-type-options-not-implemented' },
  }),

  // X-Frame-Options (a CSP without frame-ancestors)
  ...([['DENY', 'deny'], ['sameorigin', 'sameorigin']] as const).map(([value, slug]) => onePage({
    name: `X-Frame-Options ${value}`, slug: `xfo-${slug}`, answer: good({ 'content-security-policy': CSP_NO_FRAMING, 'x-frame-options': value }),
    shows: { 'x-frame-options': 'x-frame-options-sameorigin-or-deny' },
  })),
  onePage({
    name: 'X-Frame-Options ALLOW-FROM', slug: 'xfo-allow-from', answer: good({ 'content-security-policy': CSP_NO_FRAMING, 'x-frame-options': 'ALLOW-FROM https://xfo-allow-from.test/' }),
    shows: { 'x-frame-options': 'x-frame-options-allow-from-origin' },
    findings: [{ exception: 'x-frame-options-allow-from', test: 'x-frame-options' }],
  }),
  onePage({
    name: 'X-Frame-Options sent twice', slug: 'xfo-twice', answer: good({ 'content-security-policy': CSP_NO_FRAMING, 'x-frame-options': ['DENY', 'DENY'] }),
    shows: { 'x-frame-options': 'x-frame-options-header-invalid' },
  }),
  onePage({
    name: 'X-Frame-Options with no valid value', slug: 'xfo-invalid', answer: good({ 'content-security-policy': CSP_NO_FRAMING, 'x-frame-options': 'ALLOWALL' }),
    shows: { 'x-frame-options': 'x-frame-options-header-invalid' },
  }),
  onePage({
    name: 'no framing protection', slug: 'xfo-missing', answer: good({ 'content-security-policy': CSP_NO_FRAMING }),
    shows: { 'x-frame-options': 'x-frame-options-not-implemented' },
  }),
  onePage({
    name: 'frame-ancestors allowing any source', slug: 'xfo-ancestors-any', answer: good({ 'content-security-policy': `${CSP_NO_FRAMING}; frame-ancestors *` }),
    shows: { 'x-frame-options': 'x-frame-options-implemented-via-csp' },
    findings: [{ exception: 'frame-ancestors-not-protecting', test: 'x-frame-options' }],
  }),

  // Redirection
  {
    name: 'http to https on the same host', requested: 'http://same.test/',
    hosts: { 'same.test': { https: good({}) } },
    shows: { redirection: 'redirection-to-https' },
  },
  {
    name: 'http to https on another host', requested: 'http://kommun.test/',
    hosts: {
      'kommun.test': { https: { status: 301, headers: { location: 'https://www.kommun.test/' } }, http: { status: 301, headers: { location: 'https://www.kommun.test/' } } },
      'www.kommun.test': { https: good({}) },
    },
    shows: { redirection: 'redirection-off-host-from-http' },
  },
  {
    name: 'http to http to https', requested: 'http://hop.test/',
    hosts: {
      'hop.test': { https: { status: 301, headers: { location: 'https://www.hop.test/' } }, http: { status: 301, headers: { location: 'http://www.hop.test/' } } },
      'www.hop.test': { https: good({}) },
    },
    shows: { redirection: 'redirection-not-to-https-on-initial-redirection' },
  },
  {
    name: 'http redirecting on http', requested: 'https://http-stays.test/',
    hosts: { 'http-stays.test': { https: good({}), http: { status: 302, headers: { location: 'http://http-stays.test/start' } } } },
    shows: { redirection: 'redirection-not-to-https' },
  },
  {
    name: 'http answering without a redirect', requested: 'https://no-redirect.test/',
    hosts: { 'no-redirect.test': { https: good({}), http: good({}) } },
    shows: { redirection: 'redirection-missing' },
  },
  {
    name: 'no http at all', requested: 'https://no-http.test/',
    hosts: { 'no-http.test': { https: good({}), http: 'none' } },
    shows: { redirection: 'redirection-not-needed-no-http' },
  },
  {
    name: 'http redirecting to https that does not answer', requested: 'https://broken.test/',
    hosts: {
      'broken.test': { https: good({}), http: { status: 301, headers: { location: 'https://www.broken.test/' } } },
      'www.broken.test': { https: false, http: 'none' },
    },
    shows: { redirection: 'redirection-not-needed-no-http' },
    findings: [{ exception: 'redirect-broken', test: 'redirection' }],
  },
  {
    name: 'http redirecting without a Location', requested: 'https://no-location.test/',
    hosts: { 'no-location.test': { https: good({}), http: { status: 302 } } },
    shows: { redirection: 'redirection-not-to-https' },
    differs: [{ exception: 'redirect-without-location', test: 'redirection', ours: 'redirection-missing', theirs: 'redirection-not-to-https' }],
  },
  {
    name: 'an http-only site', requested: 'http://plain.test/',
    hosts: { 'plain.test': { https: false, http: good({ 'strict-transport-security': undefined }) } },
    shows: { redirection: 'redirection-missing', 'strict-transport-security': 'hsts-not-implemented-no-https' },
    findings: [{ exception: 'escalated-to-critical', test: 'strict-transport-security' }],
  },
  {
    name: 'an http page whose host also answers https, differently', requested: 'http://both.test/',
    hosts: { 'both.test': { https: good({ 'x-frame-options': 'DENY' }), http: {} } },
    shows: { redirection: 'redirection-missing', 'strict-transport-security': 'hsts-implemented-max-age-at-least-six-months' },
    differs: [
      { exception: 'tested-page', test: 'content-security-policy', ours: 'csp-not-implemented', theirs: 'csp-implemented-with-no-unsafe' },
      { exception: 'tested-page', test: 'referrer-policy', ours: 'referrer-policy-not-implemented', theirs: 'referrer-policy-private' },
      { exception: 'tested-page', test: 'x-content-type-options', ours: 'x-content-type-options-not-implemented', theirs: 'x-content-type-options-nosniff' },
      { exception: 'tested-page', test: 'x-frame-options', ours: 'x-frame-options-not-implemented', theirs: 'x-frame-options-implemented-via-csp' },
    ],
    findings: [
      { exception: 'tested-page', test: 'content-security-policy' },
      { exception: 'tested-page', test: 'x-content-type-options' },
      { exception: 'tested-page', test: 'x-frame-options' },
      { exception: 'tested-page', test: 'referrer-policy' },
    ],
  },
  {
    name: 'a host on the HSTS preload list', requested: 'https://preloaded.test/', preloaded: ['preloaded.test'],
    hosts: { 'preloaded.test': { https: good({}) } },
    shows: { redirection: 'redirection-all-redirects-preloaded', 'strict-transport-security': 'hsts-preloaded' },
    differs: [
      { exception: 'preload-list', test: 'redirection', ours: 'redirection-to-https', theirs: 'redirection-all-redirects-preloaded' },
      { exception: 'preload-list', test: 'strict-transport-security', ours: 'hsts-implemented-max-age-at-least-six-months', theirs: 'hsts-preloaded' },
    ],
  },
];

// ── Serving and fetching ────────────────────────────────────────────────────────────────────────

const page = (name: string, head = '') =>
  `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">${head}<title>${name}</title></head><body><main><h1>${name}</h1></main></body></html>`;

function handler(name: string, answer: Answer) {
  return (_req: http.IncomingMessage, res: http.ServerResponse) => {
    const status = answer.status ?? 200;
    const redirect = status >= 300 && status < 400;
    res.writeHead(status, { ...(redirect ? {} : { 'content-type': 'text/html; charset=utf-8' }), ...answer.headers });
    res.end(redirect ? '' : page(name, answer.head));
  };
}

async function serve(world: World, hosts: Case['hosts']) {
  for (const [name, spec] of Object.entries(hosts)) {
    const http = spec.http === undefined || spec.http === 'redirect' || spec.http === 'none' ? spec.http : handler(name, spec.http);
    await world.site(name, {
      https: spec.https === false ? false : { cert: spec.cert },
      ...(spec.https ? { handler: handler(name, spec.https) } : {}),
      ...(http ? { http } : {}),
    });
  }
}

interface Fetched extends ObservedAnswer {
  rawHeaders: string[];
}

/** GETs a URL as the Observatory's retriever would (no certificate check, redirects not followed); null when nothing answers. */
function fetcher() {
  const memo = new Map<string, Promise<Fetched | null>>();
  return (url: string): Promise<Fetched | null> => {
    let hit = memo.get(url);
    if (!hit) {
      hit = new Promise((resolve) => {
        const u = new URL(url);
        const req = (u.protocol === 'https:' ? https : http).request(u, {
          lookup: guard.lookupFor(u) as any, rejectUnauthorized: false, timeout: 5_000,
          headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' },
        }, (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (body += c));
          res.on('end', () => resolve({ url, status: res.statusCode ?? 0, headers: res.headers, rawHeaders: res.rawHeaders, body }));
        });
        req.on('timeout', () => req.destroy(new Error('timeout')));
        req.on('error', () => resolve(null));
        req.end();
      });
      memo.set(url, hit);
    }
    return hit;
  };
}

/** The headers as Chromium records them: lower-case names, a repeated header's values joined by "\n". */
function chromiumHeaders(rawHeaders: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i].toLowerCase();
    out[name] = name in out ? `${out[name]}\n${rawHeaders[i + 1]}` : rawHeaders[i + 1];
  }
  return out;
}

/**
 * A session as its retriever makes one (retriever/session.js): 301, 302, 303, 307 and 308 followed
 * to `new URL(location, url)` (a missing Location is the string "undefined"), ten at most.
 */
async function retrieverSession(get: ReturnType<typeof fetcher>, start: string, trusted: (url: string) => boolean): Promise<ObservedSession | null> {
  const route: { url: string; status: number }[] = [];
  let url = start;
  for (let redirects = 0; ; redirects++) {
    const answer = await get(url);
    if (!answer) return null;
    route.push({ url, status: answer.status });
    if (redirects >= 10 || ![301, 302, 303, 307, 308].includes(answer.status)) {
      return { route, final: answer, verified: route.every((hop) => trusted(hop.url)) };
    }
    url = new URL(String(answer.headers.location), url).href;
  }
}

/** Where Chromium ends up from `start`, and its answer there. */
async function browserLoad(get: ReturnType<typeof fetcher>, start: string): Promise<Fetched> {
  let url = start;
  for (let i = 0; i < 20; i++) {
    const answer = await get(url);
    if (!answer) throw new Error(`${url} does not answer`);
    if (![301, 302, 303, 307, 308].includes(answer.status) || !answer.headers.location) return answer;
    url = new URL(answer.headers.location, url).href;
  }
  throw new Error(`too many redirects from ${start}`);
}

// ── Comparing ───────────────────────────────────────────────────────────────────────────────────

const SEVERITY_RANK: Record<string, number> = { none: 0, warning: 1, error: 2, critical: 3 };
/** The severity a modifier maps to (index.ts): −25/−20 error, −10/−5 warning, else no finding. */
const mappedSeverity = (modifier: number) => (modifier <= -20 ? 'error' : modifier < 0 ? 'warning' : 'none');

/** The findings that speak to an Observatory test. */
function family(test: TestName, rule: string, theirResult: string): boolean {
  if (rule === 'tls-cert-untrusted') return theirResult.endsWith('-invalid-cert');
  switch (test) {
    case 'content-security-policy': return rule.startsWith('csp-');
    case 'redirection': return rule === 'http-not-redirected' || rule.startsWith('http-redirect-');
    case 'strict-transport-security': return rule.startsWith('hsts-') || rule === 'https-missing';
    case 'referrer-policy': return rule.startsWith('referrer-policy-');
    case 'x-content-type-options': return rule.startsWith('x-content-type-options-');
    case 'x-frame-options': return rule === 'framing-unprotected' || rule.startsWith('x-frame-options-');
  }
}

const declared = { score: new Set<string>(), findings: new Set<string>() };
// One world for the file: every case has names of its own.
const world = await startWorld(t);
// The world's guard: its resolver, and the suite's CA trusted beside Node's roots.
const guard = new TargetGuard(['127.0.0.0/8'], { resolver: world.resolver, trust: world.trust });

for (const c of CASES) {
  t.test(c.name, async (t) => {
    await serve(world, c.hosts);
    for (const host of c.preloaded ?? []) obs.preload(host);
    const get = fetcher();
    const trusted = (url: string) => {
      const u = new URL(url);
      return u.protocol !== 'https:' || c.hosts[u.hostname]?.cert !== 'self-signed';
    };

    // Type 21 on the page as Chromium would have recorded it.
    const loaded = await browserLoad(get, c.requested);
    const headers = chromiumHeaders(loaded.rawHeaders);
    const artifacts = makeArtifacts(loaded.url, {
      requestedUrl: c.requested,
      finalUrl: loaded.url,
      mainDocument: { url: loaded.url, status: loaded.status, headers, html: loaded.body },
      network: [networkRecord(loaded.url, 'Document', { responseHeaders: headers })],
    });
    const outcome = await runPlugin(httpNetwork, artifacts, { probes: createProbes(guard) });
    t.equal(outcome.error, null);
    const data = outcome.data as any;
    const ours = data.observatory_modifiers as { test: TestName; result: string; modifier: number }[];

    // The Observatory on the same answers.
    const host = new URL(c.requested).hostname;
    const httpSession = await retrieverSession(get, `http://${host}/`, trusted);
    const httpsSession = await retrieverSession(get, `https://${host}/`, trusted);
    const seen = data.redirect.error === null ? data.redirect.chain.map((h: any) => ({ url: h.url, status: h.status })) : null;
    if (c.differs?.some((d) => d.exception === 'redirect-without-location')) {
      t.not(JSON.stringify(seen), JSON.stringify(httpSession?.route ?? null), 'redirect-without-location: the routes part');
    } else {
      t.same(seen, httpSession?.route ?? null, 'our probes followed the route its retriever follows');
    }
    const theirs = obs.scan({ hostname: host, http: httpSession, https: httpsSession });

    for (const [test, result] of Object.entries(c.shows)) {
      t.equal(theirs.results.find((r) => r.test === test)!.result, result, `the case shows ${result}`);
    }
    for (const test of TESTS) {
      const o = ours.find((r) => r.test === test)!;
      const r = theirs.results.find((x) => x.test === test)!;
      const d = c.differs?.find((x) => x.test === test);
      if (d) {
        declared.score.add(d.exception);
        t.same([o.result, r.result], [d.ours, d.theirs], `${test}: ${d.exception}`);
      } else {
        t.same([o.result, o.modifier], [r.result, r.modifier], `${test}: ${r.result} (${r.modifier})`);
      }
    }
    const expectedScore = c.differs?.length ? theirs.scoreWith(c.differs.map((d) => ({ test: d.test, result: d.ours }))) : theirs.score;
    t.equal(data.observatory_like_score, expectedScore, `observatory_like_score: the Observatory's ${theirs.score}${c.differs?.length ? ', priced with the named differences' : ''}`);

    // Findings: the severity the Observatory's modifier maps to, or a named exception.
    for (const test of TESTS) {
      const r = theirs.results.find((x) => x.test === test)!;
      const worst = (outcome.findings as { rule: string; severity: string }[])
        .filter((f) => f.severity !== 'info' && f.severity !== 'resolved' && family(test, f.rule, r.result))
        .reduce((w, f) => (SEVERITY_RANK[f.severity] > SEVERITY_RANK[w] ? f.severity : w), 'none');
      const wanted = mappedSeverity(r.modifier);
      const exception = c.findings?.find((x) => x.test === test);
      if (exception) {
        declared.findings.add(exception.exception);
        t.not(worst, wanted, `${test}: ${exception.exception} (ours ${worst}, the Observatory's ${r.result} maps to ${wanted})`);
      } else {
        t.equal(worst, wanted, `${test}: findings at ${wanted}, as ${r.result} (${r.modifier}) maps`);
      }
    }
  });
}

t.test('every named exception is shown by a case and explained in the plugin header', async (t) => {
  const header = (await readFile(path.join(PROJECT_ROOT, 'plugins', 'http-network', 'index.ts'), 'utf8')).split('*/')[0];
  for (const name of OBSERVATORY_EXCEPTIONS) {
    t.ok(declared.score.has(name), `${name}: a case shows it`);
    t.match(header, `- ${name}:`, `${name}: explained in index.ts`);
  }
  for (const name of FINDING_EXCEPTIONS) {
    t.ok(declared.findings.has(name), `${name}: a case shows it`);
    t.match(header, `- ${name}:`, `${name}: explained in index.ts`);
  }
});

// ── The same on generated headers ───────────────────────────────────────────────────────────────

const sources = ["'self'", "'none'", "'unsafe-inline'", "'unsafe-eval'", "'strict-dynamic'", "'nonce-AbC1'", "'sha256-Xyz='", 'https:', 'http:', 'data:', '*',
  'ftp:', 'https://*', 'https://cdn.example/', 'https://cdn.example/lib', 'http://cdn.example', 'blob:', "'Self'", 'HTTPS:'];
const directives = ['default-src', 'script-src', 'style-src', 'object-src', 'img-src', 'media-src', 'frame-ancestors', 'base-uri', 'form-action',
  'report-uri', 'upgrade-insecure-requests', 'Script-Src'];
const policy = fc.array(fc.tuple(fc.constantFrom(...directives), fc.array(fc.constantFrom(...sources), { maxLength: 4 })), { minLength: 1, maxLength: 6 })
  .map((ds) => ds.map(([d, s]) => [d, ...s].join(' ')).join('; '));
const lines = <T>(value: fc.Arbitrary<T>) => fc.option(fc.array(value, { minLength: 1, maxLength: 2 }), { nil: undefined });

t.test('generated headers and <meta> policies: the same results as its analysers', async (t) => {
  const answer = fc.record({
    https: fc.boolean(),
    csp: lines(policy),
    reportOnly: fc.option(policy, { nil: undefined }),
    metaCsp: fc.array(policy, { maxLength: 2 }),
    metaReferrer: fc.option(fc.constantFrom('no-referrer', 'unsafe-url', 'no-referrer-when-downgrade', 'sometimes'), { nil: undefined }),
    referrer: lines(fc.constantFrom('no-referrer', 'same-origin', 'origin', 'unsafe-url', 'no-referrer-when-downgrade', 'strict-origin-when-cross-origin', 'bogus', '')),
    xcto: lines(fc.constantFrom('nosniff', 'NoSniff', ' nosniff ', 'sniff', '')),
    xfo: lines(fc.constantFrom('DENY', 'sameorigin', 'ALLOW-FROM https://a.example', 'allowall', '')),
    hsts: lines(fc.constantFrom('max-age=31536000', 'max-age=15552000; includeSubDomains', 'max-age=15551999', 'max-age=0', 'max-age=abc', 'max-age="300"',
      'includeSubDomains', 'max-age=300abc; preload', 'MAX-AGE=20000000', '')),
  });
  await fc.assert(fc.asyncProperty(answer, async (a) => {
    const raw: [string, string][] = [];
    const add = (name: string, values: string[] | undefined) => values?.forEach((v) => raw.push([name, v]));
    add('content-type', ['text/html; charset=utf-8']);
    add('content-security-policy', a.csp);
    add('content-security-policy-report-only', a.reportOnly === undefined ? undefined : [a.reportOnly]);
    add('referrer-policy', a.referrer);
    add('x-content-type-options', a.xcto);
    add('x-frame-options', a.xfo);
    add('strict-transport-security', a.hsts);
    const escape = (s: string) => s.replaceAll('&', '&amp;').replaceAll('"', '&quot;');
    const head = [...a.metaCsp.map((p) => `<meta http-equiv="Content-Security-Policy" content="${escape(p)}">`),
      ...(a.metaReferrer ? [`<meta name="referrer" content="${a.metaReferrer}">`] : [])].join('');
    const body = page('generated', head);
    // Node's view (what its axios holds) and Chromium's (what type 21 reads), of the same header lines.
    const node: http.IncomingHttpHeaders = {};
    for (const [name, value] of raw) node[name] = node[name] === undefined ? value : `${node[name]}, ${value}`;
    const chromium = chromiumHeaders(raw.flat());
    const answer = { url: `${a.https ? 'https' : 'http'}://generated.test/`, status: 200, headers: node, body };
    const session = { route: [{ url: answer.url, status: 200 }], final: answer, verified: true };
    const theirs = obs.scan({ hostname: 'generated.test', http: a.https ? null : session, https: a.https ? session : null });

    const headers = observatoryHeaders(chromium);
    const meta = readMetaTags(body);
    const ours = observatoryResults({
      http: a.https ? null : session,
      https: a.https ? { headers, verified: true } : null,
      page: { https: a.https, headers, metaCsp: meta.csp, metaReferrer: meta.referrer },
    }).results;
    for (const test of TESTS.filter((x) => x !== 'redirection')) {
      const o = ours.find((r) => r.test === test)!;
      const r = theirs.results.find((x) => x.test === test)!;
      if (o.result !== r.result || o.modifier !== r.modifier) {
        throw new Error(`${test}: ours ${o.result} (${o.modifier}), the Observatory's ${r.result} (${r.modifier}) for ${JSON.stringify(raw)} ${head}`);
      }
    }
  }), { numRuns: 400, seed: 21 });
  t.pass('400 generated answers agree');
});

t.test('generated routes: the same redirection results as its analyser', async (t) => {
  const hop = fc.record({
    scheme: fc.constantFrom('http', 'https'),
    host: fc.constantFrom('kommun.test', 'www.kommun.test', 'other.test'),
    status: fc.constantFrom(200, 301, 302),
  });
  await fc.assert(fc.asyncProperty(fc.array(hop, { minLength: 1, maxLength: 4 }), fc.boolean(), async (hops, verified) => {
    const route = [{ url: 'http://kommun.test/', status: hops.length > 1 ? 301 : hops[0].status }, ...hops.slice(1).map((h) => ({ url: `${h.scheme}://${h.host}/`, status: h.status }))];
    const final = { url: route[route.length - 1].url, status: 200, headers: {}, body: '' };
    const theirs = obs.scan({ hostname: 'kommun.test', http: { route, final, verified }, https: null }).results.find((r) => r.test === 'redirection')!.result;
    const ours = redirectionResult({ route, verified });
    if (ours !== theirs) throw new Error(`ours ${ours}, the Observatory's ${theirs} for ${JSON.stringify(route)} (verified ${verified})`);
  }), { numRuns: 300, seed: 21 });
  t.equal(redirectionResult(null), obs.scan({ hostname: 'kommun.test', http: null, https: null }).results.find((r) => r.test === 'redirection')!.result);
});
