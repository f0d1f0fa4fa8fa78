/**
 * Lighthouse's configuration as each page load resolves it (navigationGather calls
 * initializeConfig every time), with the audits' metadata as Lighthouse builds it (a getter that
 * formats each audit's ICU messages anew) and as this service keeps it (computed once per process,
 * core/gather/lighthouse-modules.ts): CPU time per resolution, for a full load's flags and a light
 * load's, side by side in one process. `node --enable-source-maps dist/bench/run.js lighthouse-config`.
 */
import { initializeConfig } from 'lighthouse/core/config/config.js';
import { LIGHTHOUSE_FLAGS, LIGHT_AUDITS } from '../core/gather/gather.js';
import { lighthouseModules } from '../core/gather/lighthouse-modules.js';

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** Median CPU ms of `rounds` resolutions with `flags`. */
async function resolveMs(flags: object, rounds: number): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const start = cpuMs();
    await initializeConfig('navigation', undefined, flags as any);
    times.push(cpuMs() - start);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

export async function benchLighthouseConfig(rounds = 7): Promise<string> {
  const light = { ...LIGHTHOUSE_FLAGS, onlyCategories: undefined, onlyAudits: LIGHT_AUDITS };
  // One resolution first, so that both sides have the audits' modules loaded.
  await initializeConfig('navigation', undefined, {});
  const before = { full: await resolveMs(LIGHTHOUSE_FLAGS, rounds), light: await resolveMs(light, rounds) };
  await lighthouseModules();
  const after = { full: await resolveMs(LIGHTHOUSE_FLAGS, rounds), light: await resolveMs(light, rounds) };
  const row = (name: 'full' | 'light') => `| ${name} load's flags | ${before[name].toFixed(1)} | ${after[name].toFixed(1)} | ${(after[name] / before[name]).toFixed(3)} |`;
  return [
    `Median CPU ms of ${rounds} resolutions each, one process.`,
    '',
    '| configuration | audits\' metadata built each time | kept once per process | ratio |',
    '|---|---|---|---|',
    row('full'),
    row('light'),
  ].join('\n');
}
