// Pasted HTML from web pages, Google Docs and Word, cleaned before the
// editor's schema reads it: Google Docs' whole-document `<b
// style="font-weight:normal">` wrapper unwrapped (it is not bold), Word's
// `<o:p>` and conditional comments dropped, and every inline style, class
// and id removed, so only structure (headings, lists, tables, links,
// emphasis) comes through.

export function cleanPastedHtml(html) {
  const doc = new DOMParser().parseFromString(html, 'text/html');
  for (const b of doc.querySelectorAll('b[id^="docs-internal-guid"]')) {
    b.replaceWith(...b.childNodes);
  }
  // Google Docs marks emphasis with styles on spans.
  for (const span of doc.querySelectorAll('span[style]')) {
    const style = span.getAttribute('style') ?? '';
    let node = doc.createDocumentFragment();
    node.append(...span.childNodes);
    if (/font-weight:\s*(bold|[6-9]00)/.test(style)) {
      const strong = doc.createElement('strong');
      strong.append(node);
      node = strong;
    }
    if (/font-style:\s*italic/.test(style)) {
      const em = doc.createElement('em');
      em.append(node);
      node = em;
    }
    span.replaceWith(node);
  }
  for (const el of doc.querySelectorAll('o\\:p, style, meta, link, script')) el.remove();
  for (const el of doc.querySelectorAll('[style], [class], [id], [lang]')) {
    el.removeAttribute('style');
    el.removeAttribute('class');
    el.removeAttribute('id');
    el.removeAttribute('lang');
  }
  return doc.body.innerHTML.replace(/<!--\[if[\s\S]*?<!\[endif\]-->/g, '');
}
