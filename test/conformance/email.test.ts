/**
 * Type 24's parsers (plugins/email) against the RFCs' own examples and hand-made zone answers,
 * the expected parse written out: SPF (RFC 7208 appendix A), DMARC (RFC 7489 appendix B),
 * MTA-STS (RFC 8461 sections 3.1, 3.2 and 4.1) and TLS-RPT (RFC 8460 section 3). The SPF walk
 * reads DNS through a hand-made zone here; the plugin test (test/plugins/email.test.ts) asks the
 * test world's DNS server.
 */
import t from 'tap';
import type { DnsAnswer, DnsRecordType } from '../../core/plugin-api.js';
import { siteOf } from '../../core/gather/site.js';
import { isDmarcRecord, isDmarcUri, mailtoDomain, parseDmarc } from '../../plugins/email/dmarc.js';
import { isMtaStsRecord, mxMatches, parseMtaStsPolicy, parseMtaStsRecord } from '../../plugins/email/mta-sts.js';
import { checkSpf, expandDomainSpec, isDomainSpec, isSpfRecord, parseSpf, type SpfCheck, type SpfMechanism, type SpfQualifier } from '../../plugins/email/spf.js';
import { isTlsRptRecord, parseTlsRpt } from '../../plugins/email/tls-rpt.js';

/** Hand-made answers: name → type → records; a name not listed is NXDOMAIN, 'servfail' fails every question. */
type Zone = Record<string, Partial<Record<DnsRecordType, string[]>> | 'servfail'>;

function zoneAsk(zone: Zone) {
  const asked: string[] = [];
  const ask = async (name: string, type: DnsRecordType): Promise<DnsAnswer> => {
    asked.push(`${name} ${type}`);
    const entry = zone[name];
    if (entry === undefined) return { name, type, status: 'nxdomain', records: [] };
    if (entry === 'servfail') return { name, type, status: 'error', records: [], error: 'SERVFAIL' };
    return { name, type, status: 'ok', records: entry[type] ?? [] };
  };
  return { ask, asked };
}

async function spfOf(zone: Zone, domain: string): Promise<SpfCheck> {
  return (await spfAsking(zone, domain)).spf;
}

/** The check, and the questions it asked (the domain's own TXT first). */
async function spfAsking(zone: Zone, domain: string): Promise<{ spf: SpfCheck; asked: string[] }> {
  const { ask, asked } = zoneAsk(zone);
  return { spf: await checkSpf(domain, await ask(domain, 'TXT'), ask), asked };
}

const m = (term: string, qualifier: SpfQualifier, mechanism: SpfMechanism['mechanism'], target: string | null, cidr4: number | null = null, cidr6: number | null = null): SpfMechanism =>
  ({ term, qualifier, mechanism, target, cidr4, cidr6 });

const NOTHING = { modifiers: [], redirect: null, exp: null, afterAll: [], problems: [], multipleSpaces: false };

t.test('SPF: which TXT records are SPF records (RFC 7208 section 4.5)', async (t) => {
  for (const txt of ['v=spf1', 'v=spf1 -all', 'V=SPF1 -all', 'v=spf1  a -all']) t.ok(isSpfRecord(txt), txt);
  for (const txt of ['v=spf10 -all', 'v=spf1-all', ' v=spf1 -all', 'spf2.0/pra -all', 'google-site-verification=abc']) t.notOk(isSpfRecord(txt), txt);
});

t.test('SPF: the records of RFC 7208 appendix A.1 parse as written', async (t) => {
  const cases: [string, SpfMechanism[], SpfQualifier | null][] = [
    ['v=spf1 +all', [m('+all', '+', 'all', null)], '+'],
    ['v=spf1 a -all', [m('a', '+', 'a', null), m('-all', '-', 'all', null)], '-'],
    ['v=spf1 a:example.org -all', [m('a:example.org', '+', 'a', 'example.org'), m('-all', '-', 'all', null)], '-'],
    ['v=spf1 mx -all', [m('mx', '+', 'mx', null), m('-all', '-', 'all', null)], '-'],
    ['v=spf1 mx:example.org -all', [m('mx:example.org', '+', 'mx', 'example.org'), m('-all', '-', 'all', null)], '-'],
    ['v=spf1 mx mx:example.org -all', [m('mx', '+', 'mx', null), m('mx:example.org', '+', 'mx', 'example.org'), m('-all', '-', 'all', null)], '-'],
    ['v=spf1 mx/30 mx:example.org/30 -all', [m('mx/30', '+', 'mx', null, 30), m('mx:example.org/30', '+', 'mx', 'example.org', 30), m('-all', '-', 'all', null)], '-'],
    ['v=spf1 ptr -all', [m('ptr', '+', 'ptr', null), m('-all', '-', 'all', null)], '-'],
    ['v=spf1 ip4:192.0.2.128/28 -all', [m('ip4:192.0.2.128/28', '+', 'ip4', '192.0.2.128', 28), m('-all', '-', 'all', null)], '-'],
  ];
  for (const [record, mechanisms, all] of cases) t.same(parseSpf(record), { ...NOTHING, mechanisms, all }, record);
});

t.test('SPF: appendix A.2 to A.4 (include, redirect, macros, qualifiers on include)', async (t) => {
  t.same(parseSpf('v=spf1 include:example.com include:example.net -all'), {
    ...NOTHING,
    mechanisms: [m('include:example.com', '+', 'include', 'example.com'), m('include:example.net', '+', 'include', 'example.net'), m('-all', '-', 'all', null)],
    all: '-',
  });
  t.same(parseSpf('v=spf1 redirect=example.org'), {
    ...NOTHING, mechanisms: [], all: null, redirect: 'example.org', modifiers: [{ term: 'redirect=example.org', name: 'redirect', value: 'example.org' }],
  });
  t.same(parseSpf('v=spf1 mx include:mobile-users._spf.%{d} include:remote-users._spf.%{d} -all').mechanisms, [
    m('mx', '+', 'mx', null),
    m('include:mobile-users._spf.%{d}', '+', 'include', 'mobile-users._spf.%{d}'),
    m('include:remote-users._spf.%{d}', '+', 'include', 'remote-users._spf.%{d}'),
    m('-all', '-', 'all', null),
  ]);
  t.same(parseSpf('v=spf1 exists:%{ir}.%{l1r+}.%{d}'), { ...NOTHING, mechanisms: [m('exists:%{ir}.%{l1r+}.%{d}', '+', 'exists', '%{ir}.%{l1r+}.%{d}')], all: null });
  // A qualifier on include is allowed (upstream calls "?include:" non-standard).
  t.same(parseSpf('v=spf1 -include:ip4._spf.%{d} -include:ptr._spf.%{d} +all'), {
    ...NOTHING,
    mechanisms: [m('-include:ip4._spf.%{d}', '-', 'include', 'ip4._spf.%{d}'), m('-include:ptr._spf.%{d}', '-', 'include', 'ptr._spf.%{d}'), m('+all', '+', 'all', null)],
    all: '+',
  });
  t.same(parseSpf('v=spf1 -ptr +all').mechanisms, [m('-ptr', '-', 'ptr', null), m('+all', '+', 'all', null)]);
});

t.test('SPF: the ABNF beyond the appendix (dual CIDR, ip6, case, spaces, modifiers, errors)', async (t) => {
  t.same(parseSpf('v=spf1 ip6:2001:db8::/32 a//64 a/24//64 ?all').mechanisms, [
    m('ip6:2001:db8::/32', '+', 'ip6', '2001:db8::', null, 32),
    m('a//64', '+', 'a', null, null, 64),
    m('a/24//64', '+', 'a', null, 24, 64),
    m('?all', '?', 'all', null),
  ]);
  t.same(parseSpf('v=spf1 INCLUDE:Example.COM -ALL').mechanisms, [m('INCLUDE:Example.COM', '+', 'include', 'Example.COM'), m('-ALL', '-', 'all', null)]);
  // Terms are separated by 1*SP: more spaces are allowed (upstream rates them 1.5), noted only.
  t.same(parseSpf('v=spf1  a   -all '), { ...NOTHING, mechanisms: [m('a', '+', 'a', null), m('-all', '-', 'all', null)], all: '-', multipleSpaces: true });
  // An unknown modifier is ignored (section 6); mechanisms after all are never evaluated (5.1).
  t.same(parseSpf('v=spf1 foo=bar -all mx'), {
    ...NOTHING,
    mechanisms: [m('-all', '-', 'all', null), m('mx', '+', 'mx', null)],
    modifiers: [{ term: 'foo=bar', name: 'foo', value: 'bar' }],
    all: '-',
    afterAll: ['mx'],
  });
  const bad = parseSpf('v=spf1 ip4:300.1.1.1 bogus:x a:localhost include: ip4:192.0.2.0/33 exp=a.example exp=b.example -redirect=x.example ~all');
  t.same(bad.problems, [
    { term: 'ip4:300.1.1.1', reason: 'syntax' },
    { term: 'bogus:x', reason: 'unknown-mechanism' },
    { term: 'a:localhost', reason: 'syntax' }, // a domain-spec ends in "." toplabel
    { term: 'include:', reason: 'syntax' },
    { term: 'ip4:192.0.2.0/33', reason: 'syntax' },
    { term: 'exp=b.example', reason: 'duplicate-modifier' },
    { term: '-redirect=x.example', reason: 'unknown-mechanism' }, // a modifier takes no qualifier
  ]);
  t.equal(bad.exp, 'a.example');
  t.equal(bad.all, '~');
});

t.test('SPF: every malformed mechanism of the ABNF is a syntax problem (RFC 7208 sections 5 and 12)', async (t) => {
  const record = parseSpf('v=spf1 a/024 mx/33 a//129 1abc all:x include ptr: a.b ip6:2001:db8::/129 ip6:zz ip4:192.0.2.1/01 ptr:example.com a:example.com/24 -all');
  t.same(record.problems.map((p) => `${p.term} ${p.reason}`), [
    'a/024 syntax', // a leading zero in a CIDR length
    'mx/33 syntax',
    'a//129 syntax',
    '1abc syntax', // a name begins with a letter
    'all:x syntax',
    'include syntax', // include needs its domain-spec
    'ptr: syntax',
    'a.b syntax',
    'ip6:2001:db8::/129 syntax',
    'ip6:zz syntax',
    'ip4:192.0.2.1/01 syntax',
  ]);
  t.same(record.mechanisms, [m('ptr:example.com', '+', 'ptr', 'example.com'), m('a:example.com/24', '+', 'a', 'example.com', 24), m('-all', '-', 'all', null)]);
  t.equal(expandDomainSpec('%%.%_.%-.%{d}', 'example.com'), null, 'a space or a percent sign is no name');
  t.equal(expandDomainSpec('x%-y.%{d}', 'example.com'), null);
  t.equal(expandDomainSpec('%{d2r}.%{d}', 'a.b.example.com'), 'b.a.a.b.example.com', 'reversed, then the right-hand two');
  t.equal(expandDomainSpec('%{d-}', 'mail-out.example.com'), 'mail.out.example.com', 'another delimiter');
});

t.test('SPF: domain-specs and the macros that can be expanded without a message', async (t) => {
  for (const spec of ['example.com', '_spf.example.com.', 'ip4._spf.%{d}', '%{ir}.%{l1r+}.%{d}', 'x.%{d2}', 'a-b.c-d']) t.ok(isDomainSpec(spec), spec);
  for (const spec of ['localhost', 'example.123', 'ex ample.com', 'bad.%{x}', 'a.%z.com', '']) t.notOk(isDomainSpec(spec), spec);
  t.equal(expandDomainSpec('ip4._spf.%{d}', 'example.com'), 'ip4._spf.example.com');
  t.equal(expandDomainSpec('%{d2}', 'a.b.example.com'), 'example.com');
  t.equal(expandDomainSpec('%{dr}', 'a.example.com'), 'com.example.a');
  t.equal(expandDomainSpec('Example.COM.', 'x.test'), 'example.com');
  t.equal(expandDomainSpec('%{ir}.bl.%{d}', 'example.com'), null, '%{i} needs the sender');
  t.equal(expandDomainSpec('%{l1r+}.%{d}', 'example.com'), null, '%{l} needs the sender');
});

t.test('SPF: a digit transformer is non-zero (section 7.3); c, r and t are exp text only (section 7.2)', async (t) => {
  t.notOk(isDomainSpec('%{d0}.example.com'), '%{d0}');
  t.notOk(isDomainSpec('x.%{d0r}'), '%{d0r}');
  t.ok(isDomainSpec('%{d1}.example.com'), '%{d1}');
  t.ok(isDomainSpec('%{d10}.example.com'), '%{d10}');
  for (const letter of ['c', 'r', 't', 'C']) {
    t.notOk(isDomainSpec(`%{${letter}}.example.com`), `%{${letter}} outside exp`);
    t.ok(isDomainSpec(`%{${letter}}.example.com`, { exp: true }), `%{${letter}} in exp`);
  }
  const outside = parseSpf('v=spf1 exists:%{c}.example.com a:%{d0}.example.com include:%{r}.example.com redirect=%{t}.example.com foo=%{c} -all');
  t.same(outside.problems, [
    { term: 'exists:%{c}.example.com', reason: 'syntax' },
    { term: 'a:%{d0}.example.com', reason: 'syntax' },
    { term: 'include:%{r}.example.com', reason: 'syntax' },
    { term: 'redirect=%{t}.example.com', reason: 'syntax' },
    { term: 'foo=%{c}', reason: 'syntax' },
  ]);
  const inExp = parseSpf('v=spf1 -all exp=%{c}.%{r}.%{t}.%{d2}.example.com');
  t.same([inExp.problems, inExp.exp], [[], '%{c}.%{r}.%{t}.%{d2}.example.com']);
  t.same(parseSpf('v=spf1 -all exp=%{d0}.example.com').problems, [{ term: 'exp=%{d0}.example.com', reason: 'syntax' }], '%{d0} is invalid in exp too');
});

// RFC 7208 appendix A's zone, as far as the walk reads it.
const APPENDIX_A: Zone = {
  'example.com': { MX: ['mail-a.example.com', 'mail-b.example.com'], A: ['192.0.2.10', '192.0.2.11'] },
  'example.org': { MX: ['mail-c.example.org'] },
  'mail-a.example.com': { A: ['192.0.2.129'] },
  'mail-b.example.com': { A: ['192.0.2.130'] },
  'mail-c.example.org': { A: ['192.0.2.140'] },
};

const CHECK = {
  status: 'found', all: null, all_from: null, dns_lookups: 0, void_lookups: 0, stopped: null, ptr: false, followed: [], problems: [], unexpanded: [],
  lookup_failures: [], ip4: [], ip6: [], multiple_spaces: false,
};

t.test('SPF walk: appendix A.3 (includes named by %{d}, exists with sender macros)', async (t) => {
  const record = 'v=spf1 mx include:mobile-users._spf.%{d} include:remote-users._spf.%{d} -all';
  const spf = await spfOf({
    ...APPENDIX_A,
    'example.com': { ...(APPENDIX_A['example.com'] as object), TXT: [record] },
    'mobile-users._spf.example.com': { TXT: ['v=spf1 exists:%{l1r+}.%{d}'] },
    'remote-users._spf.example.com': { TXT: ['v=spf1 exists:%{ir}.%{l1r+}.%{d}'] },
  }, 'example.com');
  // mx 1, include 1 + exists 1, include 1 + exists 1: 5. The exists names need the sender: counted, not asked.
  t.same(spf, {
    ...CHECK, record, records: [record], all: '-', all_from: 'example.com', dns_lookups: 5,
    followed: ['mobile-users._spf.example.com', 'remote-users._spf.example.com'],
    unexpanded: ['exists:%{l1r+}.%{d}', 'exists:%{ir}.%{l1r+}.%{d}'],
  });
});

t.test('SPF walk: appendix A.4 (ptr in an include; the top record ends in +all)', async (t) => {
  const record = 'v=spf1 -include:ip4._spf.%{d} -include:ptr._spf.%{d} +all';
  const spf = await spfOf({
    ...APPENDIX_A,
    'example.com': { TXT: [record] },
    'ip4._spf.example.com': { TXT: ['v=spf1 -ip4:192.0.2.0/24 +all'] },
    'ptr._spf.example.com': { TXT: ['v=spf1 -ptr +all'] },
  }, 'example.com');
  t.same(spf, {
    ...CHECK, record, records: [record], all: '+', all_from: 'example.com', dns_lookups: 3, ptr: true,
    followed: ['ip4._spf.example.com', 'ptr._spf.example.com'], ip4: ['192.0.2.0/24'],
  });
});

t.test('SPF walk: appendix A.2 (redirect is followed, its all ends the evaluation)', async (t) => {
  // example.com's and example.net's records are hand-made (A.2 names them only).
  const spf = await spfOf({
    'la.example.org': { TXT: ['v=spf1 redirect=example.org'] },
    'example.org': { TXT: ['v=spf1 include:example.com include:example.net -all'] },
    'example.com': { TXT: ['v=spf1 ip4:192.0.2.0/24 -all'] },
    'example.net': { TXT: ['v=spf1 ip6:2001:db8::/32 ~all'] },
  }, 'la.example.org');
  // redirect 1 + include 1 + include 1: 3 (upstream counts neither the redirect nor what follows it).
  t.same(spf, {
    ...CHECK, record: 'v=spf1 redirect=example.org', records: ['v=spf1 redirect=example.org'], all: '-', all_from: 'example.org', dns_lookups: 3,
    followed: ['example.org', 'example.com', 'example.net'], ip4: ['192.0.2.0/24'], ip6: ['2001:db8::/32'],
  });
});

t.test('SPF walk: every lookup term counts, redirect only without all (section 4.6.4, 6.1)', async (t) => {
  const zone: Zone = {
    'count.test': { TXT: ['v=spf1 a mx ptr exists:e.count.test include:i.count.test redirect=r.count.test'], A: ['192.0.2.1'], MX: ['mx.count.test'] },
    'e.count.test': { A: ['127.0.0.2'] },
    'i.count.test': { TXT: ['v=spf1 a:h.count.test ip4:192.0.2.1 -all'] },
    'h.count.test': { AAAA: ['2001:db8::1'] },
    'r.count.test': { TXT: ['v=spf1 mx:m.count.test ?all'] },
    'm.count.test': { MX: ['mx.count.test'] },
    'with-all.test': { TXT: ['v=spf1 redirect=r.count.test -all'] },
  };
  // a 1, mx 2, ptr 3, exists 4, include 5 (its a: 6), redirect 7 (its mx: 8). Upstream would say 2.
  const spf = await spfOf(zone, 'count.test');
  t.equal(spf.dns_lookups, 8);
  t.equal(spf.void_lookups, 0, 'h.count.test has an AAAA: an a mechanism is void only when neither family exists');
  t.equal(spf.all, '?');
  t.equal(spf.all_from, 'r.count.test');
  const withAll = await spfOf(zone, 'with-all.test');
  t.equal(withAll.dns_lookups, 0, 'a redirect beside all is ignored, not counted');
  t.same([withAll.all, withAll.all_from, withAll.followed], ['-', 'with-all.test', []]);
});

t.test('SPF walk: 10 lookups are allowed, the 11th is one too many', async (t) => {
  const chain = (last: string): Zone => {
    const zone: Zone = {};
    for (let i = 0; i < 10; i++) zone[`d${i}.test`] = { TXT: [`v=spf1 include:d${i + 1}.test -all`] };
    zone['d10.test'] = { TXT: [last], A: ['192.0.2.1'] };
    return zone;
  };
  t.equal((await spfOf(chain('v=spf1 -all'), 'd0.test')).dns_lookups, 10);
  t.equal((await spfOf(chain('v=spf1 a -all'), 'd0.test')).dns_lookups, 11);
});

t.test('SPF walk: past 10 lookups the terms are counted, not asked (section 4.6.4)', async (t) => {
  // 3,000 a terms: the first 10 are asked (A and AAAA each), the rest only counted.
  const wide = Array.from({ length: 3000 }, (_, i) => `a:x${i}.wide.test`).join(' ');
  const many = await spfAsking({ 'wide.test': { TXT: [`v=spf1 ${wide} -all`] }, ...Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [`x${i}.wide.test`, { A: ['192.0.2.1'] }])) }, 'wide.test');
  t.same([many.spf.dns_lookups, many.spf.void_lookups, many.spf.stopped, many.spf.all], [3000, 0, 'dns-lookup-limit', '-']);
  t.equal(many.asked.length, 1 + 10 * 2);
  t.same(many.asked.slice(-2), ['x9.wide.test A', 'x9.wide.test AAAA'], 'the 11th term is not asked');

  // 40 includes of 500 mx terms each: the first include and 9 of its mx terms are asked, the
  // other 39 includes counted and not followed (their terms are not known, so at least 540).
  const zone: Zone = { 'deep.test': { TXT: [`v=spf1 ${Array.from({ length: 40 }, (_, i) => `include:i${i}.deep.test`).join(' ')} -all`] } };
  for (let i = 0; i < 40; i++) zone[`i${i}.deep.test`] = { TXT: [`v=spf1 ${Array.from({ length: 500 }, (_, j) => `mx:m${i}-${j}.deep.test`).join(' ')} -all`] };
  for (let j = 0; j < 500; j++) zone[`m0-${j}.deep.test`] = { MX: ['mx.deep.test'] };
  const deep = await spfAsking(zone, 'deep.test');
  t.same([deep.spf.dns_lookups, deep.spf.stopped, deep.spf.followed], [1 + 500 + 39, 'dns-lookup-limit', ['i0.deep.test']]);
  t.same(deep.asked, ['deep.test TXT', 'i0.deep.test TXT', ...Array.from({ length: 9 }, (_, j) => `m0-${j}.deep.test MX`)]);

  // A redirect past the limit is counted and not followed: its all is not known.
  const late = await spfAsking({ 'late.test': { TXT: [`v=spf1 ${Array.from({ length: 10 }, (_, i) => `exists:e${i}.late.test`).join(' ')} redirect=r.late.test`] }, ...Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`e${i}.late.test`, { A: ['127.0.0.2'] }])), 'r.late.test': { TXT: ['v=spf1 -all'] } }, 'late.test');
  t.same([late.spf.dns_lookups, late.spf.stopped, late.spf.all, late.spf.followed], [11, 'dns-lookup-limit', null, []]);
  t.notOk(late.asked.includes('r.late.test TXT'));
});

t.test('SPF walk: after the third void lookup nothing more is asked (section 4.6.4)', async (t) => {
  const record = 'v=spf1 a:n1.void.test mx:n2.void.test exists:n3.void.test include:n4.void.test a:real.void.test -all';
  const three = await spfAsking({ 'void.test': { TXT: [record] }, 'real.void.test': { A: ['192.0.2.1'] } }, 'void.test');
  t.same([three.spf.dns_lookups, three.spf.void_lookups, three.spf.stopped, three.spf.problems], [5, 3, 'void-lookup-limit', []]);
  t.same(three.asked, ['void.test TXT', 'n1.void.test A', 'n1.void.test AAAA', 'n2.void.test MX', 'n3.void.test A'], 'n4 and real are counted, not asked');
  const two = await spfAsking({ 'void.test': { TXT: ['v=spf1 a:n1.void.test mx:n2.void.test a:real.void.test -all'] }, 'real.void.test': { A: ['192.0.2.1'] } }, 'void.test');
  t.same([two.spf.void_lookups, two.spf.stopped], [2, null]);
  t.ok(two.asked.includes('real.void.test A'), 'two void lookups do not end the evaluation');
});

t.test('SPF walk: void lookups, targets without a record, loops, large MX sets, failures', async (t) => {
  const voids = await spfOf({
    'void.test': { TXT: ['v=spf1 a:n1.void.test include:n2.void.test include:plain.void.test -all'] },
    'plain.void.test': { TXT: ['a TXT record that is not SPF'] },
  }, 'void.test');
  t.equal(voids.dns_lookups, 3);
  t.equal(voids.void_lookups, 2, 'the two names that do not exist; plain.void.test answers, if not with SPF');
  t.same(voids.problems, [
    { domain: 'void.test', term: 'include:n2.void.test', reason: 'include-no-record' },
    { domain: 'void.test', term: 'include:plain.void.test', reason: 'include-no-record' },
  ]);
  t.equal(voids.stopped, null);

  const loop = await spfOf({
    'a.test': { TXT: ['v=spf1 include:b.test -all'] },
    'b.test': { TXT: ['v=spf1 include:a.test ~all'] },
  }, 'a.test');
  t.same(loop.problems, [{ domain: 'b.test', term: 'include:a.test', reason: 'loop' }]);
  t.equal(loop.dns_lookups, 2);

  const several = await spfOf({
    'multi.test': { TXT: ['v=spf1 include:two.test redirect=gone.test'] },
    'two.test': { TXT: ['v=spf1 -all', 'v=spf1 ~all'] },
  }, 'multi.test');
  t.same(several.problems, [
    { domain: 'multi.test', term: 'include:two.test', reason: 'include-multiple-records' },
    { domain: 'multi.test', term: 'redirect=gone.test', reason: 'redirect-no-record' },
  ]);
  t.same([several.all, several.void_lookups], [null, 1]);

  const exchangers = Array.from({ length: 11 }, (_, i) => `mx${i}.big.test`);
  const big = await spfOf({ 'big.test': { TXT: ['v=spf1 mx -all'], MX: exchangers } }, 'big.test');
  t.same(big.problems, [{ domain: 'big.test', term: 'mx', reason: 'mx-too-many' }]);

  const failing = await spfOf({ 'f.test': { TXT: ['v=spf1 include:down.test a:down.test -all'] }, 'down.test': 'servfail' }, 'f.test');
  t.same(failing.lookup_failures, ['down.test TXT', 'down.test A']);
  t.same([failing.void_lookups, failing.problems], [0, []], 'a failed lookup is a temperror, neither void nor a missing record');
});

t.test('SPF: the domain answer itself (none, several records, a failed lookup)', async (t) => {
  t.same(await spfOf({ 'none.test': { TXT: ['google-site-verification=abc'] } }, 'none.test'), { ...CHECK, status: 'missing', record: null, records: [] });
  const two = await spfOf({ 'two.test': { TXT: ['v=spf1 -all', 'v=spf1 include:x.test ~all'] } }, 'two.test');
  t.same([two.status, two.record, two.records, two.dns_lookups], ['multiple', 'v=spf1 -all', ['v=spf1 -all', 'v=spf1 include:x.test ~all'], 0]);
  const down = await spfOf({ 'down.test': 'servfail' }, 'down.test');
  t.same([down.status, down.error], ['error', 'SERVFAIL']);
});

const DMARC = { sp: null, adkim: null, aspf: null, fo: [], rf: [], ri: null, ruf: [], unknown: [], errors: [], warnings: [] };

t.test('DMARC: which TXT records are DMARC records (RFC 7489 section 6.6.3)', async (t) => {
  for (const txt of ['v=DMARC1; p=none', 'v=DMARC1', 'V = DMARC1 ; p=reject', 'v=DMARC1;p=reject']) t.ok(isDmarcRecord(txt), txt);
  for (const txt of ['v=dmarc1; p=none', 'v=DMARC10; p=none', 'p=none; v=DMARC1', 'v=spf1 -all']) t.notOk(isDmarcRecord(txt), txt);
});

t.test('DMARC: the records of RFC 7489 appendix B parse as written', async (t) => {
  // B.2.1
  t.same(parseDmarc('v=DMARC1; p=none; rua=mailto:dmarc-feedback@example.com'), {
    ...DMARC,
    tags: [{ name: 'v', value: 'DMARC1' }, { name: 'p', value: 'none' }, { name: 'rua', value: 'mailto:dmarc-feedback@example.com' }],
    p: 'none', pct: 100, rua: ['mailto:dmarc-feedback@example.com'],
  });
  // B.2.2
  const b22 = parseDmarc('v=DMARC1; p=none; rua=mailto:dmarc-feedback@example.com; ruf=mailto:auth-reports@example.com');
  t.same([b22.rua, b22.ruf, b22.errors, b22.warnings], [['mailto:dmarc-feedback@example.com'], ['mailto:auth-reports@example.com'], [], []]);
  // B.2.3: the third party's address; its consent (example.com._report._dmarc.thirdparty.example.net) is the plugin's lookup.
  const b23 = parseDmarc('v=DMARC1; p=none; rua=mailto:dmarc-feedback@example.com; ruf=mailto:auth-reports@thirdparty.example.net');
  t.same(b23.ruf, ['mailto:auth-reports@thirdparty.example.net']);
  t.equal(mailtoDomain(b23.ruf[0]!), 'thirdparty.example.net');
  t.not(siteOf('thirdparty.example.net'), siteOf('example.com'), 'another organisation: its consent is asked');
  // B.2.4: two report URIs, the second with a size limit; pct 25.
  t.same(parseDmarc('v=DMARC1; p=quarantine; rua=mailto:dmarc-feedback@example.com,mailto:tld-test@thirdparty.example.net!10m; pct=25'), {
    ...DMARC,
    tags: [
      { name: 'v', value: 'DMARC1' }, { name: 'p', value: 'quarantine' },
      { name: 'rua', value: 'mailto:dmarc-feedback@example.com,mailto:tld-test@thirdparty.example.net!10m' }, { name: 'pct', value: '25' },
    ],
    p: 'quarantine', pct: 25, rua: ['mailto:dmarc-feedback@example.com', 'mailto:tld-test@thirdparty.example.net!10m'],
  });
  t.equal(mailtoDomain('mailto:tld-test@thirdparty.example.net!10m'), 'thirdparty.example.net');
  // B.3.1: aspf=r is the default written out, which upstream warns about.
  const b31 = parseDmarc('v=DMARC1; p=reject; aspf=r; rua=mailto:dmarc-feedback@example.com');
  t.same([b31.p, b31.aspf, b31.errors, b31.warnings], ['reject', 'r', [], [{ rule: 'dmarc-aspf-default', tag: 'aspf', value: 'r' }]]);
});

t.test('DMARC: every error and warning the plugin rates', async (t) => {
  const issues = (record: string) => {
    const d = parseDmarc(record);
    return { errors: d.errors.map((e) => e.rule), warnings: d.warnings.map((w) => w.rule) };
  };
  const rua = 'rua=mailto:d@example.com';
  t.same(issues(`v=DMARC1; p=reject; ${rua}`), { errors: [], warnings: [] });
  t.same(issues(`v=DMARC1; p=reject;; ${rua}`), { errors: ['dmarc-empty-section'], warnings: [] });
  t.same(issues(`v=DMARC1; p=reject; nonsense; ${rua}`), { errors: ['dmarc-malformed'], warnings: [] });
  t.same(issues(`v=DMARC1; p=reject; p=none; ${rua}`), { errors: ['dmarc-duplicate-tag'], warnings: [] });
  t.same(issues(`v=DMARC1; p=block; ${rua}`), { errors: ['dmarc-policy-invalid'], warnings: [] });
  t.same(issues(`v=DMARC1; p=reject; sp=maybe; ${rua}`), { errors: ['dmarc-subpolicy-invalid'], warnings: [] });
  // Upstream never reads adkim (its key is "adkim:"): both its error and its default warning are new.
  t.same(issues(`v=DMARC1; p=reject; adkim=x; ${rua}`), { errors: ['dmarc-adkim-invalid'], warnings: [] });
  t.same(issues(`v=DMARC1; p=reject; adkim=r; ${rua}`), { errors: [], warnings: ['dmarc-adkim-default'] });
  t.same(issues(`v=DMARC1; p=reject; adkim=s; aspf=s; ${rua}`), { errors: [], warnings: [] });
  t.same(issues(`v=DMARC1; p=reject; aspf=strict; ${rua}`), { errors: ['dmarc-aspf-invalid'], warnings: [] });
  // pct out of 0..100 (upstream's test "100 < pct < 0" is never true), and not a number.
  t.same(issues(`v=DMARC1; p=reject; pct=150; ${rua}`), { errors: ['dmarc-pct-invalid'], warnings: [] });
  t.same(issues(`v=DMARC1; p=reject; pct=half; ${rua}`), { errors: ['dmarc-pct-invalid'], warnings: [] });
  t.same(issues(`v=DMARC1; p=reject; pct=100; ${rua}`), { errors: [], warnings: ['dmarc-pct-default'] });
  t.equal(parseDmarc(`v=DMARC1; p=reject; pct=150; ${rua}`).pct, null);
  t.equal(parseDmarc(`v=DMARC1; p=reject; pct=0; ${rua}`).pct, 0);
  // fo and rf are colon-separated lists (upstream splits fo on commas).
  t.same(issues(`v=DMARC1; p=reject; fo=1:d; ruf=mailto:f@example.com; ${rua}`), { errors: [], warnings: [] });
  t.same(issues(`v=DMARC1; p=reject; fo=1,d; ruf=mailto:f@example.com; ${rua}`), { errors: ['dmarc-fo-invalid'], warnings: [] });
  t.same(issues(`v=DMARC1; p=reject; fo=0; ruf=mailto:f@example.com; ${rua}`), { errors: [], warnings: ['dmarc-fo-default'] });
  t.same(issues(`v=DMARC1; p=reject; fo=1; ${rua}`), { errors: ['dmarc-fo-without-ruf'], warnings: [] });
  t.same(issues(`v=DMARC1; p=reject; rf=afrf; ${rua}`), { errors: [], warnings: ['dmarc-rf-default'] });
  t.same(issues(`v=DMARC1; p=reject; rf=iodef; ${rua}`), { errors: ['dmarc-rf-invalid'], warnings: [] });
  t.same(issues(`v=DMARC1; p=reject; ri=86400; ${rua}`), { errors: [], warnings: ['dmarc-ri-default'] });
  t.same(issues(`v=DMARC1; p=reject; ri=daily; ${rua}`), { errors: ['dmarc-ri-invalid'], warnings: [] });
  t.same(issues('v=DMARC1; p=reject; rua=mailto:nobody'), { errors: ['dmarc-rua-invalid'], warnings: [] });
  t.same(issues(`v=DMARC1; p=reject; ruf=dmarc@example.com; ${rua}`), { errors: ['dmarc-ruf-invalid'], warnings: [] });
  t.same(issues('v=DMARC1; p=reject'), { errors: [], warnings: ['dmarc-rua-missing'] });
  t.same(issues(`v=DMARC1; ${rua}; p=reject`), { errors: [], warnings: ['dmarc-policy-not-second'] });
  // Unknown tags are ignored (section 6.3); values are case-insensitive; spaces around "=" are allowed.
  const relaxed = parseDmarc(`v=DMARC1; P = Reject ; np=reject; ${rua}`);
  t.same([relaxed.p, relaxed.unknown, relaxed.errors], ['reject', ['np'], []]);
  t.same(parseDmarc(`v=DMARC1; ${rua}`).p, null, 'no p: the plugin rates the policy missing');
});

t.test('DMARC: report URIs (section 6.4 dmarc-uri)', async (t) => {
  for (const uri of ['mailto:a@example.com', 'mailto:a@example.com!10m', 'mailto:a@example.com!500', 'https://r.example.com/dmarc']) t.ok(isDmarcUri(uri), uri);
  for (const uri of ['a@example.com', 'mailto:nobody', 'mailto:a@example.com!10x', '']) t.notOk(isDmarcUri(uri), uri);
});

t.test('MTA-STS: the TXT record (RFC 8461 section 3.1)', async (t) => {
  // The RFC's example.
  t.ok(isMtaStsRecord('v=STSv1; id=20160831085700Z;'));
  t.same(parseMtaStsRecord('v=STSv1; id=20160831085700Z;'), { valid: true, id: '20160831085700Z', extensions: [], problems: [] });
  t.same(parseMtaStsRecord('v=STSv1;id=abc123;future=1'), { valid: true, id: 'abc123', extensions: ['future'], problems: [] });
  t.same(parseMtaStsRecord('v=STSv1;'), { valid: false, id: null, extensions: [], problems: ['id-missing'] });
  t.same(parseMtaStsRecord(`v=STSv1; id=${'a'.repeat(33)}`), { valid: false, id: null, extensions: [], problems: ['id-invalid'] });
  t.same(parseMtaStsRecord('v=STSv1; id=has-dash'), { valid: false, id: null, extensions: [], problems: ['id-invalid'] });
  t.same(parseMtaStsRecord('v=STSv1; id=1; what'), { valid: false, id: '1', extensions: [], problems: ['field-invalid'] });
  // Spaces around "=" and ";" (sts-field-delim, *WSP in sts-id and sts-extension), one ";" at the end.
  t.same(parseMtaStsRecord('v=STSv1 ;\tid = 20250101T1200 ; ext.v-2_x =\tv:1/2 ;'), { valid: true, id: '20250101T1200', extensions: ['ext.v-2_x'], problems: [] });
  t.same(parseMtaStsRecord(`v=STSv1; id=${'a'.repeat(32)}; ${'n'.repeat(32)}=1`), { valid: true, id: 'a'.repeat(32), extensions: ['n'.repeat(32)], problems: [] }, 'an id and a name of 32');
  t.same(parseMtaStsRecord('v=STSv1; id=abc; id=not-valid!'), { valid: true, id: 'abc', extensions: [], problems: [] }, 'of two ids the first counts');
  // Every way the grammar can be broken makes the record invalid.
  const invalid: [txt: string, id: string | null, extensions: string[], problems: string[]][] = [
    ['v=STSv1; id=2025-01-01_12:00', null, [], ['id-invalid']],
    ['v=STSv1; id=', null, [], ['id-invalid']],
    ['v=STSv1; id=åäö', null, [], ['id-invalid']],
    ['v=STSv1; id=a b', null, [], ['id-invalid']],
    ['v=STSv1; id=not-valid; id=abc', 'abc', [], ['id-invalid']],
    ['v=STSv1', null, [], ['id-missing']],
    ['v=STSv1; ext=1', null, ['ext'], ['id-missing']],
    ['v=STSv1;; id=1', '1', [], ['field-invalid']],
    ['v=STSv1; id=1;;', '1', [], ['field-invalid']],
    ['v=STSv1; id=1; =1', '1', [], ['field-invalid']],
    ['v=STSv1; id=1; _ext=1', '1', [], ['field-invalid']],
    [`v=STSv1; id=1; ${'n'.repeat(33)}=1`, '1', [], ['field-invalid']],
    ['v=STSv1; id=1; ext=', '1', [], ['field-invalid']],
    ['v=STSv1; id=1; ext=a=b', '1', [], ['field-invalid']],
    ['v=STSv1; id=1; ext=a b', '1', [], ['field-invalid']],
    ['v=STSv1; id=1; ext=ö', '1', [], ['field-invalid']],
    ['v=STSv1; id=1; e*t=1', '1', [], ['field-invalid']],
  ];
  for (const [txt, id, extensions, problems] of invalid) t.same(parseMtaStsRecord(txt), { valid: false, id, extensions, problems }, txt);
  for (const txt of ['v=STSv10; id=1', 'v=STSv1 id=1', 'v=stsv1; id=1', 'id=1; v=STSv1']) t.notOk(isMtaStsRecord(txt), txt);
});

t.test('MTA-STS: the policy file (RFC 8461 section 3.2)', async (t) => {
  const rfc = 'version: STSv1\r\nmode: enforce\r\nmx: mail.example.com\r\nmx: *.example.net\r\nmx: backupmx.example.com\r\nmax_age: 604800\r\n';
  const expected = { valid: true, version: 'STSv1', mode: 'enforce', max_age: 604800, mx: ['mail.example.com', '*.example.net', 'backupmx.example.com'], extensions: [], problems: [] };
  t.same(parseMtaStsPolicy(rfc), expected, "the RFC's example");
  t.same(parseMtaStsPolicy(rfc.replace(/\r\n/g, '\n')), expected, 'LF line ends are accepted');
  // Unknown fields are ignored (upstream calls the policy invalid); of a repeated field the first counts.
  t.same(parseMtaStsPolicy('version: STSv1\nmode: testing\nmode: enforce\nmx: MX.Example.COM.\nmax_age: 86400\nfuture: 1\n'), {
    valid: true, version: 'STSv1', mode: 'testing', max_age: 86400, mx: ['mx.example.com'], extensions: ['future'], problems: [],
  });
  t.same(parseMtaStsPolicy('version: STSv1\nmode: none\nmax_age: 0\n').problems, [], 'mode none needs no mx');
  t.same(parseMtaStsPolicy('version: STSv2\nmode: enforcing\nmax_age: 31557601\nthis is no pair\n').problems,
    ['line-invalid', 'version-invalid', 'mode-invalid', 'max-age-invalid', 'mx-missing']);
  t.same(parseMtaStsPolicy('<html><body>Not found</body></html>').problems, ['line-invalid', 'version-missing', 'mode-missing', 'max-age-missing', 'mx-missing']);
  t.same(parseMtaStsPolicy('version: STSv1\nmode: enforce\nmx: bad_host!\nmax_age: 86400\n').problems, ['mx-invalid']);
  t.equal(parseMtaStsPolicy('version: STSv1\nmode: enforce\nmx: a.example\nmax_age: 31557600\n').max_age, 31_557_600, 'a year is the longest max_age');
});

t.test('long runs of spaces and dots are read in one pass (no backtracking patterns)', async (t) => {
  // Each took seconds with patterns such as /(.*?)[ \t]*$/ or /[^@]+\.[^@]+$/; the results stand here, not the time.
  const spaces = ' '.repeat(64_000);
  t.same(parseMtaStsPolicy(`version: STSv1\nmode: enforce\nmx: a${spaces}x\nmax_age: 86400\n`), {
    valid: false, version: 'STSv1', mode: 'enforce', max_age: 86400, mx: [], extensions: [], problems: ['mx-invalid'],
  });
  t.same(parseMtaStsPolicy(`version: STSv1${spaces}\nmode:${spaces}enforce${spaces}\nmx: mx.example.com\t\nmax_age: 86400\n`), {
    valid: true, version: 'STSv1', mode: 'enforce', max_age: 86400, mx: ['mx.example.com'], extensions: [], problems: [],
  }, 'spaces around a value are no part of it');
  t.same(parseMtaStsPolicy(`mx: ${'a.'.repeat(32_000)}!\n`).problems, ['mx-invalid', 'version-missing', 'mode-missing', 'max-age-missing']);
  t.same(parseMtaStsRecord(`v=STSv1; id=1;${spaces}x`), { valid: false, id: '1', extensions: [], problems: ['field-invalid'] });
  t.same(parseTlsRpt(`v=TLSRPTv1; rua=mailto:a@b.example;${'\t'.repeat(64_000)}x`), { valid: false, rua: ['mailto:a@b.example'], extensions: [], problems: ['field-invalid'] });
  t.same(parseTlsRpt(`v=TLSRPTv1; rua=mailto:a@${'.'.repeat(64_000)} x`), { valid: false, rua: [], extensions: [], problems: ['rua-invalid'] });
  t.notOk(isDmarcUri(`mailto:a@${'.'.repeat(64_000)}@`));
  t.same(parseDmarc(`v=DMARC1; p=none; rua=mailto:a@${'.'.repeat(64_000)}@`).errors.map((e) => e.rule), ['dmarc-rua-invalid']);
});

t.test('MTA-STS: mx patterns (RFC 8461 section 4.1)', async (t) => {
  t.ok(mxMatches('mail.example.com', 'mail.example.com'));
  t.ok(mxMatches('Mail.Example.COM.', 'mail.example.com'));
  t.ok(mxMatches('mx1.example.net', '*.example.net'));
  t.notOk(mxMatches('example.net', '*.example.net'), 'the wildcard stands for one label');
  t.notOk(mxMatches('a.b.example.net', '*.example.net'), 'exactly one label');
  t.notOk(mxMatches('mail.example.org', 'mail.example.com'));
});

t.test('TLS-RPT: the record (RFC 8460 section 3)', async (t) => {
  // The RFC's two examples.
  t.same(parseTlsRpt('v=TLSRPTv1;rua=mailto:reports@example.com'), { valid: true, rua: ['mailto:reports@example.com'], extensions: [], problems: [] });
  t.same(parseTlsRpt('v=TLSRPTv1; rua=https://reporting.example.com/v1/tlsrpt'), { valid: true, rua: ['https://reporting.example.com/v1/tlsrpt'], extensions: [], problems: [] });
  t.same(parseTlsRpt('v=TLSRPTv1; rua=mailto:a@example.com, https://r.example.com/x; ext=value;'), {
    valid: true, rua: ['mailto:a@example.com', 'https://r.example.com/x'], extensions: ['ext'], problems: [],
  });
  t.same(parseTlsRpt('v=TLSRPTv1;'), { valid: false, rua: [], extensions: [], problems: ['rua-missing'] });
  t.same(parseTlsRpt('v=TLSRPTv1; rua=ftp://x.example.com'), { valid: false, rua: [], extensions: [], problems: ['rua-invalid'] });
  t.same(parseTlsRpt('v=TLSRPTv1; rua=http://r.example.com/'), { valid: false, rua: [], extensions: [], problems: ['rua-invalid'] }, 'https only');
  t.same(parseTlsRpt('v=TLSRPTv1; garbage; rua=mailto:a@example.com'), { valid: false, rua: ['mailto:a@example.com'], extensions: [], problems: ['field-invalid'] });
  t.ok(isTlsRptRecord('v=TLSRPTv1;rua=mailto:reports@example.com'));
  for (const txt of ['v=TLSRPTv10; rua=mailto:a@example.com', 'v=tlsrptv1; rua=mailto:a@example.com', 'v=spf1 -all']) t.notOk(isTlsRptRecord(txt), txt);
});
