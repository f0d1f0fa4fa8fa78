/**
 * The real API in a process of its own, for the chaos harness (chaos/bad-input/service-process.ts):
 * `startService` with the API only, configured from the environment (DATABASE_URL, PORT 0,
 * WEBPERF_RATE_LIMIT, WEBPERF_HTTP_*), on loopback. Its own process so that its memory is
 * measured apart from the client that attacks it, and so that a crash shows as an exit.
 *
 * IPC: sends { type: 'ready', url, routes } once listening; answers { type: 'memory' } with its
 * memory usage after a full garbage collection (started with --expose-gc); { type: 'stop' } stops.
 */
import { loadConfig } from '../../core/config.js';
import { startService } from '../../runners/service.js';

const config = loadConfig(process.env);
const service = await startService(config, { api: true, runner: false });
const send = (msg: unknown) => process.send?.(msg);
send({ type: 'ready', url: service.apiUrl, routes: (service.app?.routeTable ?? []).map(({ schema: _schema, ...route }) => route) });

process.on('message', (msg: { type?: string }) => {
  if (msg.type === 'memory') {
    const gc = (globalThis as { gc?: () => void }).gc;
    gc?.();
    send({ type: 'memory', ...process.memoryUsage() });
  } else if (msg.type === 'stop') {
    void service.stop().finally(() => process.exit(0));
  }
});
process.on('disconnect', () => void service.stop().finally(() => process.exit(0)));
