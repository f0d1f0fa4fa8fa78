/**
 * The registrable domain ("site") of a host name (core/gather/site.ts), as browsers read it from
 * the public suffix list: what first and third party, same-site links and the e-mail test's
 * organisational domain are decided by.
 */
import t from 'tap';
import { sameSite, siteOf, withoutWww } from '../../core/gather/site.js';

t.test('siteOf: eTLD+1 from the public suffix list, its private section included', async (t) => {
  const cases: [string, string][] = [
    ['kommun.se', 'kommun.se'],
    ['www.kommun.se', 'kommun.se'],
    ['e.tjanster.kommun.se', 'kommun.se'],
    ['WWW.Kommun.SE.', 'kommun.se'],
    ['www.kommun.gov.uk', 'kommun.gov.uk'],
    ['shop.example.co.uk', 'example.co.uk'],
    ['a.b.example.com.au', 'example.com.au'],
    ['user.github.io', 'user.github.io'],
    ['foo.user.github.io', 'user.github.io'],
    ['bucket.s3.amazonaws.com', 'bucket.s3.amazonaws.com'],
    ['www.kommun.test', 'kommun.test'],
    ['xn--stckholm-0za.se', 'xn--stckholm-0za.se'],
    ['localhost', 'localhost'],
    ['127.0.0.1', '127.0.0.1'],
    ['[::1]', '::1'],
  ];
  for (const [host, site] of cases) t.equal(siteOf(host), site, host);
});

t.test('sameSite and withoutWww', async (t) => {
  t.ok(sameSite('www.kommun.se', 'kommun.se'));
  t.notOk(sameSite('user.github.io', 'other.github.io'), 'two sites under a private suffix');
  t.notOk(sameSite('kommun.co.uk', 'other.co.uk'));
  t.equal(withoutWww('WWW.Kommun.se.'), 'kommun.se');
  t.equal(withoutWww('www2.kommun.se'), 'www2.kommun.se');
});
