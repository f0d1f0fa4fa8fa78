/**
 * axe-core in every frame of the loaded page, without loading it again. axe's own frame protocol
 * (runPartial in each frame, finishRun once) is driven from here through the DevTools protocol,
 * so cross-origin frames are reached the same way as same-origin ones: postMessage between
 * frames, which axe.run({ iframes: true }) relies on, would need every frame to trust every
 * origin. Open shadow roots are tested by axe itself.
 */
import { createRequire } from 'node:module';
import { readFile } from 'node:fs/promises';
import type { CDPSession, Page } from 'puppeteer-core';
import type { AxeArtifact } from '../plugin-api.js';

export const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];

/** The options every run uses, in every frame; the conformance tests pass the same to the reference. */
export const AXE_RUN_OPTIONS = { runOnly: { type: 'tag', values: AXE_TAGS }, resultTypes: ['violations'] } as const;

/** Frames nested deeper than this are not entered (a page framing itself endlessly). */
const MAX_FRAME_DEPTH = 5;

const require = createRequire(import.meta.url);
/** The axe-core version this service runs (the one loadAxe reads). */
const AXE_VERSION: string = require('axe-core/package.json').version;
/**
 * The isolated world Lighthouse's accessibility gatherer injects axe-core into (Lighthouse's
 * execution-context.js), in the top frame of the page it loaded. Lighthouse resolves the same
 * axe-core package; reusing that copy saves evaluating axe's ~560 KB source a second time in the
 * same page, most of axe's time per page (measured: injection 0.7–2.7 s vs runPartial 0.1–0.5 s
 * on a loaded 2-core machine).
 */
const LIGHTHOUSE_WORLD = 'lighthouse_isolated_context';
let axeSource: Promise<string> | undefined;
/** axe-core's browser build, read once. */
export function loadAxe(): Promise<string> {
  axeSource ??= readFile(require.resolve('axe-core/axe.min.js'), 'utf8');
  return axeSource;
}

/** A selector as axe gives it: a string, or the path through shadow roots to the element. */
type AxeSelector = string | string[];

/** A place to run script: the main world of one frame, through the session that owns it. */
interface FrameScope {
  session: CDPSession;
  contextId: number;
}

/**
 * Frames reached through the DevTools protocol itself. Puppeteer's own frame tree cannot be used:
 * after Lighthouse has driven the page it knows only the main frame. A frame in the page's process
 * is found among the page session's execution contexts; an out-of-process (cross-site) frame is
 * its own target, whose id is the frame id, attached to through the browser session.
 */
class Frames {
  private readonly contexts = new Map<CDPSession, Map<string, number>>();
  /** Lighthouse's isolated world per frame, per session. */
  private readonly lighthouseWorlds = new Map<CDPSession, Map<string, number>>();
  private readonly opened: CDPSession[] = [];
  private browserSession: CDPSession | null = null;

  constructor(private readonly page: Page) {}

  /** The top frame's main world, and Lighthouse's isolated world in it when there is one. */
  async top(): Promise<{ main: FrameScope; lighthouse: FrameScope | null }> {
    const session = await this.open(await this.page.createCDPSession());
    const { frameTree } = (await session.send('Page.getFrameTree')) as { frameTree: { frame: { id: string } } };
    const world = this.lighthouseWorlds.get(session)?.get(frameTree.frame.id);
    return { main: this.scope(session, frameTree.frame.id), lighthouse: world === undefined ? null : { session, contextId: world } };
  }

  /** The frame an iframe element (given by axe's selector in `parent`) shows, or null. */
  async child(parent: FrameScope, selector: AxeSelector): Promise<FrameScope | null> {
    const handle = (await parent.session.send('Runtime.callFunctionOn', {
      functionDeclaration: 'function (sel) { return window.axe.utils.shadowSelect(sel); }',
      executionContextId: parent.contextId,
      arguments: [{ value: selector }],
    })) as { result: { objectId?: string } };
    const objectId = handle.result.objectId;
    if (!objectId) return null;
    const { node } = (await parent.session.send('DOM.describeNode', { objectId })) as { node: { frameId?: string } };
    await parent.session.send('Runtime.releaseObject', { objectId }).catch(() => undefined);
    if (!node.frameId) return null;
    if (this.contexts.get(parent.session)?.has(node.frameId)) return this.scope(parent.session, node.frameId);
    this.browserSession ??= await this.page.browser().target().createCDPSession();
    const { sessionId } = (await this.browserSession.send('Target.attachToTarget', { targetId: node.frameId, flatten: true })) as { sessionId: string };
    const attached = this.browserSession.connection()?.session(sessionId);
    if (!attached) return null;
    return this.scope(await this.open(attached), node.frameId);
  }

  async call<T>(scope: FrameScope, fn: string, ...args: unknown[]): Promise<T> {
    const res = (await scope.session.send('Runtime.callFunctionOn', {
      functionDeclaration: fn,
      executionContextId: scope.contextId,
      arguments: args.map((value) => ({ value })),
      awaitPromise: true,
      returnByValue: true,
    })) as { result: { value: T }; exceptionDetails?: { text: string; exception?: { description?: string } } };
    if (res.exceptionDetails) throw new Error(res.exceptionDetails.exception?.description ?? res.exceptionDetails.text);
    return res.result.value;
  }

  async evaluate(scope: FrameScope, expression: string): Promise<void> {
    const res = (await scope.session.send('Runtime.evaluate', { expression, contextId: scope.contextId })) as { exceptionDetails?: { text: string } };
    if (res.exceptionDetails) throw new Error(res.exceptionDetails.text);
  }

  async close(): Promise<void> {
    for (const session of [...this.opened, ...(this.browserSession ? [this.browserSession] : [])]) await session.detach().catch(() => undefined);
  }

  /** Enables Runtime on a session; the contexts that already exist are announced before it answers. */
  private async open(session: CDPSession): Promise<CDPSession> {
    const byFrame = new Map<string, number>();
    const worlds = new Map<string, number>();
    this.contexts.set(session, byFrame);
    this.lighthouseWorlds.set(session, worlds);
    this.opened.push(session);
    session.on('Runtime.executionContextCreated', ({ context }) => {
      const aux = context.auxData as { frameId?: string; isDefault?: boolean } | undefined;
      if (aux?.frameId && aux.isDefault) byFrame.set(aux.frameId, context.id);
      else if (aux?.frameId && context.name === LIGHTHOUSE_WORLD) worlds.set(aux.frameId, context.id);
    });
    await session.send('Runtime.enable');
    return session;
  }

  private scope(session: CDPSession, frameId: string): FrameScope {
    const contextId = this.contexts.get(session)?.get(frameId);
    if (contextId === undefined) throw new Error(`No script context for frame ${frameId}`);
    return { session, contextId };
  }
}

/** One partial result per frame, depth first, null where a frame could not be tested. */
async function partials(frames: Frames, scope: FrameScope, context: unknown, source: string, depth: number, seen: NonNullable<AxeArtifact['frames']>, path: string[]): Promise<unknown[]> {
  const injected = await frames.call<boolean>(scope, "function () { return typeof window.axe?.runPartial === 'function'; }");
  if (!injected) await frames.evaluate(scope, source);
  const children = await frames.call<{ frameSelector: AxeSelector; frameContext: unknown }[]>(
    scope,
    'function (ctx) { return window.axe.utils.getFrameContexts(ctx); }',
    context,
  );
  // axe requires runPartial to finish in a frame before its child frames are asked.
  const own = await frames.call<{ frames?: { selector?: AxeSelector[] }[] } | null>(
    scope,
    'function (ctx, options) { return window.axe.runPartial(ctx, options); }',
    context,
    AXE_RUN_OPTIONS,
  );
  const results: unknown[][] = [];
  for (const [i, { frameSelector, frameContext }] of children.entries()) {
    // The frame's selector as axe writes it into results (short, e.g. '#map'), not the long one
    // getFrameContexts gives, so that the frames listed match the nodes' targets.
    const childPath = [...path, ...(own?.frames?.[i]?.selector ?? [frameSelector]).map(selectorText)];
    try {
      const child = depth < MAX_FRAME_DEPTH ? await frames.child(scope, frameSelector) : null;
      if (!child) {
        results.push([null]);
        continue;
      }
      const url = await frames.call<string>(child, 'function () { return location.href; }');
      seen.push({ path: childPath, url });
      results.push(await partials(frames, child, frameContext, source, depth + 1, seen, childPath));
    } catch {
      // A frame that navigated away or cannot be scripted is left out; axe counts it as not tested.
      results.push([null]);
    }
  }
  return [own, ...results.flat(1)];
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
  const seen: NonNullable<AxeArtifact['frames']> = [];
  const frames = new Frames(page);
  let result: any;
  try {
    const { main, lighthouse } = await frames.top();
    // Lighthouse's copy of axe, when it is ours, set back to axe's defaults (Lighthouse configures
    // its own branding and noHtml): the same rules and results as a fresh copy. axe reads only
    // the DOM, which an isolated world shares with the page.
    const reusable = lighthouse && await frames.call<boolean>(
      lighthouse,
      'function (version) { if (window.axe?.version !== version || typeof window.axe.runPartial !== "function") return false; window.axe.reset(); return true; }',
      AXE_VERSION,
    ).catch(() => false);
    const top = reusable ? lighthouse : main;
    const all = await partials(frames, top, { exclude: [] }, source, 0, seen, []);
    // finishRun only combines the partial results; it reads no DOM, so the top frame serves.
    result = await frames.call(top, 'function (results, options) { return window.axe.finishRun(results, options); }', all, AXE_RUN_OPTIONS);
  } finally {
    await frames.close();
  }
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
    frames: seen,
  };
}
