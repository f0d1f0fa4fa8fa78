/**
 * Does a page read well at a phone's, a tablet's and a desktop's width? Measured in the real
 * Chromium page as laid out, by one function every page test calls (checkLayout), at each width:
 *
 * - the document never scrolls sideways: `document.documentElement.scrollWidth` is at most its
 *   `clientWidth` (the viewport less a vertical scrollbar, so at most `innerWidth` too);
 * - no two pieces of rendered text overlap: the boxes of every visible text node
 *   (`Range.getClientRects`, one per line) are compared with those of every other text node;
 * - whatever scrolls sideways inside the page (a wide table) is a region a keyboard reaches and a
 *   screen reader names: tabindex="0", role="region", an accessible name;
 * - a table's caption is shown whole, also where its table scrolls;
 * - axe-core (WCAG 2.2 A/AA, the service's own runner and options) finds no violation.
 *
 * What counts as visible text, decided here:
 * - a text box is cut to what its ancestors' overflow clipping shows (positioned boxes escape
 *   the ancestors they escape in CSS), so text in a region that scrolls is compared only within
 *   the part of the region shown at its start position and text scrolled out of it not at all;
 * - text hidden for everyone but screen readers is left out: the visually-hidden pattern
 *   (`clip-path: inset(50%)` or `clip: rect(0 0 0 0)` on it or an ancestor), and the part of a
 *   box left of or above the page (the skip link waiting off-screen);
 * - `display: none`, `visibility: hidden`, `opacity: 0` and closed `<details>` hide text (tests
 *   open the details they want checked);
 * - two boxes overlap when they share more than 1 px across and more than a quarter of the shorter
 *   box's height: a font's ascent and descent reach past a tight line height (h1 at 1.2) into
 *   the lines above and below without any glyph touching another.
 * A region is measured where it is scrolled to: at its start, as a page loads.
 */
import type { Page } from 'puppeteer-core';
import { runAxe } from '../../core/gather/axe.js';

/** The widths every page is checked at: a phone, a tablet, a desktop. */
export const LAYOUT_WIDTHS = [360, 768, 1280] as const;

/** Viewport height per width, as the devices have them (it does not change what is checked). */
const HEIGHTS: Record<number, number> = { 320: 640, 360: 740, 768: 1024, 1280: 800 };

/** One thing that reads badly, in words a failing assertion can show. */
export type LayoutProblem = string;

/**
 * What reads badly on the page as it is laid out now: [] when nothing does. Runs in the page;
 * everything it needs is inside the function (puppeteer sends its source).
 */
export function layoutProblems(page: Page): Promise<LayoutProblem[]> {
  // A build with esbuild's keepNames (tsx's) wraps the named functions inside with `__name(fn, "name")`, a helper
  // of the test process the page does not have: the page gets a stand-in that returns fn.
  return page.evaluate(`(() => { const __name = (fn) => fn; return (${measure.toString()})(); })()`) as Promise<LayoutProblem[]>;
}

/** The measurement itself, run in the page (layoutProblems sends its source). */
function measure(): LayoutProblem[] {
  const problems: string[] = [];
  const root = document.documentElement;
  const px = (n: number) => Math.round(n);
  /** An element in a message: its tag, id or first class, first data-* attribute. */
  const short = (el: Element): string => {
    let name = el.tagName.toLowerCase();
    if (el.id) name += `#${el.id}`;
    else if (el.classList.length > 0) name += `.${el.classList[0]}`;
    const data = [...el.attributes].find((a) => a.name.startsWith('data-'));
    if (data) name += `[${data.name}${data.value ? `="${data.value.slice(0, 20)}"` : ''}]`;
    return name;
  };
  const describe = (el: Element): string => (el.parentElement && el.parentElement !== document.body ? `${short(el.parentElement)} > ${short(el)}` : short(el));

  interface Box { left: number; top: number; right: number; bottom: number }
  /** A client rect in page coordinates. */
  const onPage = (r: DOMRect): Box => ({ left: r.left + window.scrollX, top: r.top + window.scrollY, right: r.right + window.scrollX, bottom: r.bottom + window.scrollY });
  /**
   * The part of `box` (page coordinates) that the ancestors of `el` let show: each ancestor whose
   * overflow is not `visible` cuts it to its padding box, unless the box escapes it by being
   * positioned (absolute: only a positioned ancestor or one with a transform clips it; fixed:
   * only one with a transform). With `self`, `el`'s own overflow cuts too (the box is its text).
   */
  const clipped = (box: Box, el: Element, self: boolean): Box => {
    let b: Box = { ...box };
    let mode: 'flow' | 'absolute' | 'fixed' = 'flow';
    for (let a: Element | null = el; a && a !== document.body && a !== root; a = a.parentElement) {
      const cs = getComputedStyle(a);
      const contains = mode === 'flow' || cs.transform !== 'none' || (mode === 'absolute' && cs.position !== 'static');
      if (!contains) continue;
      if (a !== el || self) {
        const r = a.getBoundingClientRect();
        const left = r.left + window.scrollX + a.clientLeft;
        const top = r.top + window.scrollY + a.clientTop;
        if (cs.overflowX !== 'visible') b = { ...b, left: Math.max(b.left, left), right: Math.min(b.right, left + a.clientWidth) };
        if (cs.overflowY !== 'visible') b = { ...b, top: Math.max(b.top, top), bottom: Math.min(b.bottom, top + a.clientHeight) };
      }
      mode = cs.position === 'absolute' ? 'absolute' : cs.position === 'fixed' ? 'fixed' : 'flow';
    }
    return b;
  };

  // 1. The document does not scroll sideways.
  if (root.scrollWidth > root.clientWidth) {
    // The outermost elements that reach past the right edge where nothing clips them: where the
    // overflow starts (hidden ones too: an empty strip to scroll into is still a page too wide).
    const culprits: Element[] = [];
    for (const el of document.body.querySelectorAll('*')) {
      if (culprits.some((c) => c.contains(el))) continue;
      const r = el.getBoundingClientRect();
      if (r.width === 0 && r.height === 0) continue;
      if (clipped(onPage(r), el, false).right > root.clientWidth + 0.5) culprits.push(el);
    }
    const named = culprits.slice(0, 4).map((el) => `${describe(el)} (${px(el.getBoundingClientRect().width)} px wide, right edge at ${px(onPage(el.getBoundingClientRect()).right)})`);
    problems.push(`the page scrolls sideways: ${root.scrollWidth} px wide in a ${root.clientWidth} px viewport; past the edge: ${named.join('; ') || 'nothing found'}`);
  }

  // 2. Sideways scrolling regions inside the page: keyboard-reachable and named.
  for (const el of document.body.querySelectorAll('*')) {
    const cs = getComputedStyle(el);
    if (!['auto', 'scroll'].includes(cs.overflowX) || el.scrollWidth <= el.clientWidth) continue;
    const focusable = (el as HTMLElement).tabIndex >= 0 && el.hasAttribute('tabindex');
    const labelledBy = (el.getAttribute('aria-labelledby') ?? '').split(/\s+/).filter(Boolean).map((id) => document.getElementById(id)?.textContent?.trim() ?? '').join(' ').trim();
    const named = labelledBy !== '' || (el.getAttribute('aria-label') ?? '').trim() !== '';
    if (!focusable || el.getAttribute('role') !== 'region' || !named) {
      problems.push(`${describe(el)} scrolls sideways (${el.scrollWidth} px in ${el.clientWidth} px) but is not a focusable, named region (tabindex ${el.getAttribute('tabindex') ?? 'none'}, role ${el.getAttribute('role') ?? 'none'}, name ${named ? 'yes' : 'none'})`);
    }
  }

  // 3. No two pieces of visible text overlap.
  interface Piece extends Box { node: number; text: string; where: Element }
  /** Text shown only to screen readers: clipped away whole (the visually-hidden pattern). */
  const srOnly = (el: Element) => {
    for (let a: Element | null = el; a && a !== document.body; a = a.parentElement) {
      const cs = getComputedStyle(a);
      if (cs.clipPath.startsWith('inset(50%') || cs.clip === 'rect(0px, 0px, 0px, 0px)') return true;
    }
    return false;
  };
  const pieces: Piece[] = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const range = document.createRange();
  let index = 0;
  for (let node = walker.nextNode(); node; node = walker.nextNode(), index++) {
    const text = node.textContent ?? '';
    const parent = node.parentElement;
    if (!parent || text.trim() === '' || parent.closest('script, style, noscript, template')) continue;
    if (!parent.checkVisibility({ opacityProperty: true, visibilityProperty: true, checkOpacity: true, checkVisibilityCSS: true } as CheckVisibilityOptions) || srOnly(parent)) continue;
    range.selectNodeContents(node);
    for (const r of range.getClientRects()) {
      const whole = onPage(r);
      const box = clipped(whole, parent, true);
      // A table's caption says what the table is: shown whole, even where its table scrolls.
      if (parent.closest('caption') && (box.left > whole.left + 1 || box.right < whole.right - 1)) {
        problems.push(`the caption "${text.trim().slice(0, 40)}" is cut off: ${px(whole.right - whole.left)} px of text, ${px(Math.max(0, box.right - box.left))} px shown`);
      }
      // Nothing left of or above the page's origin can be scrolled to (an off-screen skip link).
      box.left = Math.max(box.left, 0);
      box.top = Math.max(box.top, 0);
      if (box.right - box.left > 1 && box.bottom - box.top > 1) pieces.push({ ...box, node: index, text: text.trim().replace(/\s+/g, ' ').slice(0, 40), where: parent });
    }
  }
  pieces.sort((a, b) => a.top - b.top);
  const seen = new Set<string>();
  for (let i = 0; i < pieces.length; i++) {
    const a = pieces[i];
    for (let j = i + 1; j < pieces.length && pieces[j].top < a.bottom; j++) {
      const b = pieces[j];
      if (a.node === b.node) continue;
      const across = Math.min(a.right, b.right) - Math.max(a.left, b.left);
      const down = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
      if (across <= 1 || down <= 0.25 * Math.min(a.bottom - a.top, b.bottom - b.top)) continue;
      const key = `${a.node}/${b.node}`;
      if (seen.has(key)) continue;
      seen.add(key);
      problems.push(`text "${a.text}" (${describe(a.where)}) overlaps "${b.text}" (${describe(b.where)}) by ${px(across)}×${px(down)} px at (${px(Math.max(a.left, b.left))}, ${px(Math.max(a.top, b.top))})`);
    }
  }
  // The first few say what is wrong; hundreds of rows of the same fault say no more.
  const MAX = 12;
  return problems.length > MAX ? [...problems.slice(0, MAX), `… and ${problems.length - MAX} more`] : problems;
}

/** The assertion the check needs from a tap test. */
interface Tap {
  strictSame(found: unknown, wanted: unknown, message: string): unknown;
}

/**
 * Checks the page as it is now at each width (LAYOUT_WIDTHS unless told): no layout problem at
 * each, and no axe violation at a phone's and a desktop's width (the narrowest and the widest: the
 * page's two layouts; the tablet's is checked for layout alone, where an axe run cost a third of the
 * page tests' time and found nothing the other two did not), one assertion each, named
 * `${name} at ${width} px`. The page is not reloaded (a page reached by a form stays what it is);
 * the viewport is put back afterwards.
 */
export async function checkLayout(t: Tap, page: Page, name: string, options: { widths?: readonly number[]; axe?: boolean } = {}): Promise<void> {
  const before = page.viewport();
  const widths = options.widths ?? LAYOUT_WIDTHS;
  const axeWidths = new Set([Math.min(...widths), Math.max(...widths)]);
  try {
    for (const width of widths) {
      await page.setViewport({ width, height: HEIGHTS[width] ?? 800 });
      t.strictSame(await layoutProblems(page), [], `${name} at ${width} px: no sideways scroll, no overlapping text`);
      if (options.axe !== false && axeWidths.has(width)) {
        // The service's own axe run (its rules, its options): axe is put into the page once and
        // run again at each width, where a new injection per run would cost most of the time.
        const result = await runAxe(page);
        const violations = result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
        // An axe that did not run finds nothing either: it ran when rules passed.
        t.strictSame({ violations, ran: result.passes > 0 }, { violations: [], ran: true }, `${name} at ${width} px: axe ran, no violation`);
      }
    }
  } finally {
    if (before) await page.setViewport(before);
  }
}
