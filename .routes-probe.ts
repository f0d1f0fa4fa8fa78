import { buildApp } from '/work/main/api/app.js';
import { loadConfig } from '/work/main/core/config.js';
import { createDb } from '/work/main/core/db/database.js';
import { PluginRegistry } from '/work/main/core/registry.js';
const db = createDb('postgres://x:y@127.0.0.1:1/x');
const app = await buildApp({ db, config: loadConfig({ NODE_ENV: 'test' }, { rateLimitPerMinute: 0 }), registry: new PluginRegistry([]), version: '1' });
await app.ready();
console.log(app.printRoutes({ commonPrefix: false }).split('\n').filter((l) => /stats|0\.1|quota|categ/.test(l)).join('\n'));
await app.close(); await db.destroy();
