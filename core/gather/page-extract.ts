/**
 * Functions evaluated inside the tested page (after the Lighthouse run, same navigation).
 */

/** Rendered text, main text (without nav/header/footer/aside/hidden), and the lang attribute. */
export function extractTexts(): { renderedText: string; mainText: string; htmlLang: string } {
  const body = document.body;
  const renderedText = body ? body.innerText : '';
  const root = (document.querySelector('main, [role="main"]') as HTMLElement | null) ?? body;
  let mainText = '';
  if (root) {
    // Hide what is not main text, read the layout-aware innerText, then restore the page.
    const hidden: [HTMLElement, string][] = [];
    root
      .querySelectorAll<HTMLElement>('nav, header, footer, aside, [role="navigation"], [role="banner"], [role="contentinfo"], [aria-hidden="true"]')
      .forEach((el) => {
        hidden.push([el, el.style.display]);
        el.style.display = 'none';
      });
    mainText = root.innerText.replace(/[ \t\r\f\v]+/g, ' ').replace(/\s*\n\s*/g, '\n').trim();
    for (const [el, display] of hidden) el.style.display = display;
  }
  return { renderedText, mainText, htmlLang: document.documentElement.getAttribute('lang') ?? '' };
}

/** Inline stylesheets and scripts, which have no URL of their own. */
export function extractInline(): { styles: string[]; scripts: string[] } {
  return {
    styles: Array.from(document.querySelectorAll('style')).map((s) => s.textContent ?? ''),
    scripts: Array.from(document.querySelectorAll('script:not([src])')).map((s) => s.textContent ?? ''),
  };
}

/** Both, as one expression for a single evaluation in the page (one round trip). */
export const EXTRACT_PAGE = `({ texts: (${extractTexts.toString()})(), inline: (${extractInline.toString()})() })`;
