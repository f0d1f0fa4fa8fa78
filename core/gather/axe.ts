/**
 * axe-core in every frame of the loaded page, without loading it again. axe's own frame protocol
 * (runPartial in each frame, finishRun once) is driven from here through the DevTools protocol,
 * so cross-origin frames are reached the same way as same-origin ones: postMessage between
 * frames, which axe.run({ iframes: true }) relies on, would need every frame to trust every
 * origin. Open shadow roots are tested by axe itself.
 */
import { createRequire } from 'node:module';
import { readFile } from 'node:fs/promises';
import type { Frame, Page } from 'puppeteer-core';
import type { AxeArtifact } from '../plugin-api.js';

export const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];

/** The options every run uses, in every frame; the conformance tests pass the same to the reference. */
export const AXE_RUN_OPTIONS = { runOnly: { type: 'tag', values: AXE_TAGS }, resultTypes: ['violations'] } as const;

/** Frames nested deeper than this are not entered (a page framing itself endlessly). */
const MAX_FRAME_DEPTH = 5;

const require = createRequire(import.meta.url);
let axeSource: Promise<string> | undefined;
/** axe-core's browser build, read once. */
export function loadAxe(): Promise<string> {
  axeSource ??= readFile(require.resolve('axe-core/axe.min.js'), 'utf8');
  return axeSource;
}

/** A selector as axe gives it: a string, or the path through shadow roots to the element. */
type AxeSelector = string | string[];

/** One partial result per frame, depth first, null where a frame could not be tested. */
async function partials(frame: Frame, context: unknown, source: string, depth: number, frames: NonNullable<AxeArtifact['frames']>, path: string[]): Promise<unknown[]> {
  const injected = await frame.evaluate(() => typeof (window as any).axe?.runPartial === 'function');
  if (!injected) await frame.evaluate(source);
  const children = (await frame.evaluate((ctx) => (window as any).axe.utils.getFrameContexts(ctx), context as any)) as {
    frameSelector: AxeSelector;
    frameContext: unknown;
  }[];
  // axe requires runPartial to start in a frame before its child frames are asked.
  const own = frame.evaluate((ctx, options) => (window as any).axe.runPartial(ctx, options), context as any, AXE_RUN_OPTIONS as any);
  own.catch(() => undefined);
  const results: unknown[][] = [];
  for (const { frameSelector, frameContext } of children) {
    const childPath = [...path, selectorText(frameSelector)];
    try {
      const handle = await frame.evaluateHandle((sel) => (window as any).axe.utils.shadowSelect(sel), frameSelector as any);
      const child = depth < MAX_FRAME_DEPTH ? await handle.asElement()?.contentFrame() : null;
      await handle.dispose();
      if (!child) {
        results.push([null]);
        continue;
      }
      frames.push({ path: childPath, url: child.url() });
      results.push(await partials(child, frameContext, source, depth + 1, frames, childPath));
    } catch {
      // A frame that navigated away or cannot be scripted is left out; axe counts it as not tested.
      results.push([null]);
    }
  }
  return [await own, ...results.flat(1)];
}

function selectorText(selector: AxeSelector): string {
  return Array.isArray(selector) ? selector.join(' >>> ') : String(selector);
}

/**
 * Runs axe-core's WCAG 2.2 A/AA rules in the page and in every frame it embeds (same-origin and
 * cross-origin, up to MAX_FRAME_DEPTH deep). A node's `target` is axe's: the selectors of the
 * frames leading to it, then its own; `frame` repeats the frame part when there is one.
 */
export async function runAxe(page: Page): Promise<AxeArtifact> {
  const source = await loadAxe();
  const frames: NonNullable<AxeArtifact['frames']> = [];
  const top = page.mainFrame();
  const all = await partials(top, { exclude: [] }, source, 0, frames, []);
  // finishRun only combines the partial results; it reads no DOM, so the top frame serves.
  const result: any = await top.evaluate(
    (results, options) => (window as any).axe.finishRun(results, options),
    all as any,
    AXE_RUN_OPTIONS as any,
  );
  return {
    version: result.testEngine?.version ?? '',
    violations: result.violations.map((v: any) => ({
      id: v.id,
      impact: v.impact ?? null,
      tags: v.tags,
      help: v.help,
      helpUrl: v.helpUrl,
      nodes: v.nodes.map((n: any) => {
        const target: string[] = n.target.map(selectorText);
        return {
          target,
          html: String(n.html).slice(0, 300),
          ...(target.length > 1 ? { frame: target.slice(0, -1) } : {}),
        };
      }),
    })),
    passes: result.passes.length,
    incomplete: result.incomplete.length,
    frames,
  };
}
