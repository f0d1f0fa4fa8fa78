/**
 * Page visitors for the crawl: the audit's (the run pipeline's one guarded load with Lighthouse,
 * axe and the plugins, reading the rendered page's links in the same load) and a crawl-only one
 * (a guarded load that reads links only; for testing the crawl's link logic without Lighthouse).
 */
import type { Browser, Page } from 'puppeteer-core';
import { testPage, type EngineDeps } from '../engine.js';
import { runAxe } from '../gather/axe.js';
import { guardRequests } from '../gather/gather.js';
import { openGuardedPage } from '../gather/guarded-context.js';
import type { TargetGuard } from '../net/target-guard.js';
import type { TestPlugin } from '../plugin-api.js';
import type { PhaseTimes } from '../phase-times.js';
import type { TestOutcome } from '../pipeline.js';
import { summarisePage } from './page-result.js';
import type { Visited } from './crawl.js';

interface RenderedLinks {
  links: string[];
  robots: string;
}

/** Links (absolute, rel=nofollow ones left out) and meta robots of the rendered page. */
export async function readRenderedLinks(page: Page): Promise<{ links: string[]; noindex: boolean; nofollow: boolean }> {
  const found = (await page.evaluate(`(() => ({
    links: [...document.querySelectorAll('a[href], area[href]')]
      .filter((a) => !/\\bnofollow\\b/i.test(a.getAttribute('rel') || ''))
      .map((a) => a.href),
    robots: [...document.querySelectorAll('meta[name="robots" i], meta[name="webperf" i]')].map((m) => m.content || '').join(','),
  }))()`)) as RenderedLinks;
  const robots = found.robots.toLowerCase();
  return { links: found.links, noindex: /\b(noindex|none)\b/.test(robots), nofollow: /\b(nofollow|none)\b/.test(robots) };
}

/** The audit's visitor: one load per page, tested the way the run pipeline tests a page. */
export function testingVisitor(plugins: readonly TestPlugin[], deps: EngineDeps, times?: PhaseTimes): (url: string) => Promise<Visited> {
  return async (url) => {
    let rendered = { links: [] as string[], noindex: false, nofollow: false };
    const { artifacts, outcomes } = await testPage(url, plugins, deps, {
      afterLoad: async (page) => {
        rendered = await readRenderedLinks(page);
      },
      times,
    });
    const lap = times?.laps('summarise');
    const result = summarisePage(artifacts, outcomes as TestOutcome[]);
    lap?.end();
    return { ...rendered, result };
  };
}

/** A guarded load that reads links only (and with `axe`, runs axe-core), in a clean browser context. */
export function crawlOnlyVisitor(browser: Browser | (() => Promise<Browser>), guard: TargetGuard, timeoutMs = 30_000, options: { axe?: boolean } = {}): (url: string) => Promise<Visited> {
  return async (url) => {
    await guard.assertUrl(url);
    const guarded = await openGuardedPage(typeof browser === 'function' ? await browser() : browser, guard);
    try {
      const { page } = guarded;
      await guardRequests(page, guard, []);
      await page.goto(url, { waitUntil: 'load', timeout: timeoutMs });
      const rendered = await readRenderedLinks(page);
      if (!options.axe) return { ...rendered, result: {} };
      const axe = await runAxe(page);
      return { ...rendered, result: { final_url: page.url(), axe: axe.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, help_url: v.helpUrl, nodes: v.nodes.length })) } };
    } finally {
      await guarded.close();
    }
  };
}
