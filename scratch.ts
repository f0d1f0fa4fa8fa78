import { loadFixture } from './test/helpers/fixture-artifacts.js';
import { runPlugin } from './core/pipeline.js';
import httpNetwork from './plugins/http-network/index.js';
import tracking from './plugins/tracking/index.js';
const td: (() => unknown)[] = [];
const t = { teardown: (f: () => unknown) => td.push(f) };
for (const [name, path] of [['infosec-tracking', 'index.html']]) {
  const { artifacts, probes } = await loadFixture(t, name, path);
  console.log('=====', name, artifacts.finalUrl);
  console.log(JSON.stringify(artifacts.cookies), artifacts.network.map((r) => [r.url, r.resourceType, r.status, r.protocol, r.setCookies]));
  for (const p of [httpNetwork, tracking]) {
    const o = await runPlugin(p, artifacts, { probes });
    console.log(p.meta.id, o.error, o.rating, o.ratings, JSON.stringify(o.data, null, 1).slice(0, 3000));
    console.log(o.reports.sv.sec, '\n', o.reports.en.sec, '\n', o.reports.en.stand, '\n', o.reports.en.overall);
  }
}
for (const f of td) await f();
