/**
 * core/net/charset.ts: bodies decoded as a browser decodes them, and the probes reading every
 * body so, against a site of the test world (https on 443 under its name): a Latin-1 404 page,
 * a page whose <meta> names its charset, a robots.txt with a UTF-8 byte-order mark and a plain
 * text whose <meta>-like line must not count.
 */
import t from 'tap';
import { decodeBody, encodingOf } from '../../core/net/charset.js';
import { createProbes } from '../../core/net/probes.js';
import { testWorld } from '../helpers/world/index.js';

const latin1 = (text: string) => Buffer.from(text, 'latin1');
const utf16le = (text: string) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);

t.test('the order a browser uses: byte-order mark, Content-Type charset, <meta> in HTML only, else UTF-8', async (t) => {
  const page = (head: string) => latin1(`<!DOCTYPE html><html><head>${head}<title>Förenlig</title></head></html>`);
  t.equal(encodingOf(Buffer.from('\ufeffhej'), 'text/html; charset=iso-8859-1'), 'utf-8', 'the byte-order mark wins over the header');
  t.equal(encodingOf(utf16le('hej'), undefined), 'utf-16le');
  t.equal(encodingOf(page(''), 'text/html; charset=ISO-8859-1'), 'windows-1252', 'ISO-8859-1 is read as windows-1252, as browsers read it');
  t.equal(encodingOf(page('<meta charset="utf-8">'), 'text/html; charset="latin1"'), 'windows-1252', 'the header wins over the <meta>');
  t.equal(encodingOf(page('<meta charset=windows-1252>'), 'text/html'), 'windows-1252');
  t.equal(encodingOf(page('<meta http-equiv="Content-Type" content="text/html; charset=ISO-8859-1">'), 'text/html'), 'windows-1252');
  t.equal(encodingOf(page('<meta charset="windows-1252">'), undefined), 'windows-1252', 'no type: sniffed as HTML');
  t.equal(encodingOf(page('<meta charset="windows-1252">'), 'text/plain'), 'utf-8', 'plain text is not prescanned');
  t.equal(encodingOf(page('<meta charset="utf-16">'), 'text/html'), 'utf-8', 'a <meta> naming UTF-16 means UTF-8');
  t.equal(encodingOf(page('<meta charset="klingon">'), 'text/html; charset=nonsense'), 'utf-8', 'unknown labels are passed over');
  t.equal(encodingOf(Buffer.concat([Buffer.alloc(1024, 0x20), latin1('<meta charset="windows-1252">')]), 'text/html'), 'utf-8', 'the prescan reads the first 1024 bytes only');

  t.equal(decodeBody(page(''), 'text/html; charset=iso-8859-1'), '<!DOCTYPE html><html><head><title>Förenlig</title></head></html>');
  t.equal(decodeBody(Buffer.from('\ufeffUser-agent: *'), 'text/plain'), 'User-agent: *', 'without its byte-order mark');
  t.equal(decodeBody(utf16le('Åtkomst'), undefined), 'Åtkomst');
  t.equal(decodeBody(latin1('f\u00f6renlig'), 'text/plain'), 'f\ufffdrenlig', 'undeclared Latin-1 in plain text stays UTF-8, as a browser shows it');
});

t.test('the probes read each body in its encoding', async (t) => {
  const world = await testWorld();
  const site = await world.site('teckenkodning.test', {
    handler: (req, res) => {
      if (req.url === '/saknas') return void res.writeHead(404, { 'content-type': 'text/html; charset=iso-8859-1' }).end(latin1('<h1>Sidan finns inte längre</h1>'));
      if (req.url === '/meta') return void res.writeHead(200, { 'content-type': 'text/html' }).end(latin1('<meta charset="windows-1252"><p>Tillgänglighetsredogörelse</p>'));
      if (req.url === '/robots.txt') return void res.writeHead(200, { 'content-type': 'text/plain' }).end(Buffer.from('\ufeffUser-agent: *\nDisallow: /sök\n'));
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<p>Välkommen</p>');
    },
  });
  t.teardown(() => site.close());
  const probes = createProbes(world.guard([site.origin]));
  const [gone, meta, robots, start] = await Promise.all(['/saknas', '/meta', '/robots.txt', '/'].map((p) => probes.fetch(`${site.origin}${p}`)));
  t.same([gone.status, gone.body], [404, '<h1>Sidan finns inte längre</h1>']);
  t.equal(meta.body, '<meta charset="windows-1252"><p>Tillgänglighetsredogörelse</p>');
  t.equal(robots.body, 'User-agent: *\nDisallow: /sök\n');
  t.equal(start.body, '<p>Välkommen</p>');
});
