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

/**
 * What the rendered document links and declares for privacy (type 31): every `<script src>` and
 * `<link rel=stylesheet href>` with its integrity attribute (URLs as the DOM resolves them), and the
 * content of every `<meta name=referrer>`. The rendered DOM, not the served HTML: elements a script
 * inserted load as well.
 */
export function extractLinks(): { subresourceLinks: { kind: 'script' | 'stylesheet'; url: string; integrity: string | null }[]; referrerMetas: string[] } {
  const subresourceLinks: { kind: 'script' | 'stylesheet'; url: string; integrity: string | null }[] = [];
  document.querySelectorAll('script[src], link[href]').forEach((el) => {
    if (el instanceof HTMLScriptElement) subresourceLinks.push({ kind: 'script', url: el.src, integrity: el.getAttribute('integrity') });
    else if (el instanceof HTMLLinkElement && el.relList.contains('stylesheet')) subresourceLinks.push({ kind: 'stylesheet', url: el.href, integrity: el.getAttribute('integrity') });
  });
  const referrerMetas = Array.from(document.querySelectorAll('meta[name]'))
    .filter((m) => (m.getAttribute('name') ?? '').trim().toLowerCase() === 'referrer')
    .map((m) => m.getAttribute('content') ?? '');
  return { subresourceLinks: subresourceLinks.slice(0, 2000), referrerMetas: referrerMetas.slice(0, 100) };
}

/** All three, as one expression for a single evaluation in the page (one round trip). */
export const EXTRACT_PAGE = `({ texts: (${extractTexts.toString()})(), inline: (${extractInline.toString()})(), links: (${extractLinks.toString()})() })`;
