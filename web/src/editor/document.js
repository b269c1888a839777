// Between the API's JSON document (GitBook's `JSONDocument`: blocks,
// inlines, text nodes of leaves with marks) and the editor's ProseMirror
// document. Blocks the editor has a view for become editable nodes; every
// other block (files, cards, includes, embeds, OpenAPI, HTML kept as
// written, ...) travels as an `opaque` node holding its JSON untouched, so
// what is saved reads back identical whether or not the editor knows the
// block.

/// JSON with its object keys sorted, so the same block is the same text
/// whichever side wrote it.
export function canonical(value) {
  const sort = (v) =>
    Array.isArray(v)
      ? v.map(sort)
      : v && typeof v === 'object'
        ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, sort(v[k])]))
        : v;
  return JSON.stringify(sort(value));
}

/// GitBook's containers (JSON type to the editor's node): each keeps its
/// `data` whole and holds blocks (see `containers.js`).
const CONTAINER_NODES = {
  stepper: 'stepper',
  'stepper-step': 'stepperStep',
  columns: 'columns',
  column: 'column',
  updates: 'updates',
  update: 'update',
  if: 'conditional',
  prompt: 'prompt',
};
const CONTAINER_TYPES = Object.fromEntries(Object.entries(CONTAINER_NODES).map(([json, name]) => [name, json]));

/// What each container's children must be in the editor (a stepper holds
/// steps only, a prompt one code block); a block that breaks it stays whole.
const CONTAINER_CHILDREN = { stepper: 'stepper-step', columns: 'column', updates: 'update', prompt: 'code' };

const MARKS = { bold: 'bold', italic: 'italic', strikethrough: 'strike', code: 'code' };
const MARKS_BACK = Object.fromEntries(Object.entries(MARKS).map(([k, v]) => [v, k]));

function leafText(leaf) {
  const marks = (leaf.marks ?? []).map((m) => MARKS[m.type]).filter(Boolean).map((type) => ({ type }));
  return leaf.text ? [{ type: 'text', text: leaf.text, ...(marks.length ? { marks } : {}) }] : [];
}

/// Inline nodes (text, links) as ProseMirror inline content.
/// HTML tags GitBook writes around text (`<kbd>`, `<sup>`, `<sub>`,
/// `<mark style=…>`…) that the editor shows as a mark on that text.
const HTML_MARK_TAGS = /^<(kbd|sup|sub|mark|u|small|ins|del|s|span)(\s[^>]*)?>$/i;

/// The tag a kept inline HTML node holds, when it is one.
function htmlTagOf(node) {
  if (node.type !== 'opaqueInline') return null;
  const inline = JSON.parse(node.attrs.json);
  if (inline.object !== 'text' || !inline.key?.startsWith('quire-html-')) return null;
  return (inline.leaves ?? []).map((l) => l.text).join('');
}

/// An opening tag and its closing tag around nothing but text become an
/// `htmlTag` mark on that text (holding both tags as written, so they are
/// written back the same); any other tag stays a kept inline.
function htmlMarks(content) {
  const out = [];
  for (let i = 0; i < content.length; i += 1) {
    const open = htmlTagOf(content[i]);
    const name = open && HTML_MARK_TAGS.exec(open)?.[1];
    if (name) {
      let j = i + 1;
      while (j < content.length && content[j].type === 'text') j += 1;
      const close = j < content.length ? htmlTagOf(content[j]) : null;
      if (j > i + 1 && close && close.toLowerCase() === `</${name.toLowerCase()}>`) {
        const mark = { type: 'htmlTag', attrs: { open, close } };
        for (const text of content.slice(i + 1, j)) out.push({ ...text, marks: [...(text.marks ?? []), mark] });
        i = j;
        continue;
      }
    }
    out.push(content[i]);
  }
  return out;
}

function inlines(nodes = []) {
  return htmlMarks(inlineNodes(nodes));
}

function inlineNodes(nodes = []) {
  const out = [];
  for (const node of nodes) {
    if (node.object === 'text' && node.key?.startsWith('quire-html-')) {
      // An HTML tag as written (`<mark …>`, `<kbd>`): kept whole.
      out.push({ type: 'opaqueInline', attrs: { json: canonical(node) } });
    } else if (node.object === 'text') {
      for (const leaf of node.leaves ?? []) out.push(...leafText(leaf));
    } else if (node.object === 'inline' && node.type === 'link' && inlines(node.nodes).some((inner) => inner.type !== 'text')) {
      // A link around an image (or another inline without text): kept
      // whole, since the shared document keeps marks on text only.
      out.push({ type: 'opaqueInline', attrs: { json: canonical(node) } });
    } else if (node.object === 'inline' && node.type === 'link') {
      const ref = node.data?.ref ?? {};
      const href = ref.kind === 'url' ? ref.url : null;
      for (const inner of inlines(node.nodes)) {
        const marks = [...(inner.marks ?? []), { type: 'link', attrs: { href, gitbookRef: href ? null : canonical(ref) } }];
        out.push({ ...inner, marks });
      }
    } else {
      out.push({ type: 'opaqueInline', attrs: { json: canonical(node) } });
    }
  }
  return out;
}

/// The text of a heading's editor content, what its anchor was made for.
export function headingText(content = []) {
  return content.map((n) => (n.type === 'text' ? n.text : n.type === 'opaqueInline' ? n.attrs.json : '')).join('');
}

/// A top-level block without the key the server gives it (which names the
/// block as written, for comments): the editor's blocks are compared and
/// saved by what they hold, and a block typed here has none. The key of
/// HTML kept as written says what the block is, and stays.
function withoutServerKey(node) {
  if (!node?.key || node.key.startsWith('quire-html-')) return node;
  const { key: _key, ...rest } = node;
  return rest;
}

function blocks(nodes = []) {
  return nodes.map(blockToEditor);
}

function blockToEditor(node) {
  const data = node.data ?? {};
  switch (node.type) {
    case 'paragraph':
      // HTML kept as written (GitBook's card tables, say) travels as a
      // keyed paragraph: kept whole, never edited as text.
      if (node.key?.startsWith('quire-html-')) return { type: 'opaque', attrs: { json: canonical(node) } };
      return { type: 'paragraph', content: inlines(node.nodes) };
    case 'heading-1':
    case 'heading-2':
    case 'heading-3': {
      // The anchor travels with the text it was made for: a heading whose
      // text is changed gets one from its new text.
      const content = inlines(node.nodes);
      return { type: 'heading', attrs: { level: Number(node.type.slice(-1)), anchor: data.id ?? null, anchorText: headingText(content) }, content };
    }
    case 'blockquote':
      return { type: 'blockquote', content: blocks(node.nodes) };
    case 'divider':
      return { type: 'horizontalRule' };
    case 'hint':
      return { type: 'hint', attrs: { style: data.style ?? 'info' }, content: blocks(node.nodes) };
    case 'table': {
      const grid = tableToEditor(node);
      return grid ?? { type: 'opaque', attrs: { json: canonical(node) } };
    }
    case 'tabs':
      return {
        type: 'tabs',
        content: (node.nodes ?? []).map((item) => {
          const content = blocks(item.nodes);
          return { type: 'tabItem', attrs: { title: item.data?.title ?? '' }, content: content.length ? content : [{ type: 'paragraph' }] };
        }),
      };
    case 'expandable': {
      const fragment = (name) => (node.fragments ?? []).find((f) => f.fragment === name);
      const title = inlines(fragment('expandable-title')?.nodes?.[0]?.nodes);
      // Only a plain-text summary is edited as text; any other stays as is.
      if (title.some((t) => t.type !== 'text' || t.marks)) return { type: 'opaque', attrs: { json: canonical(node) } };
      const body = blocks(fragment('expandable-body')?.nodes);
      return {
        type: 'expandable',
        attrs: { title: title.map((t) => t.text).join(''), open: Boolean(data.defaultExpanded) },
        content: body.length ? body : [{ type: 'paragraph' }],
      };
    }
    case 'code': {
      const text = (node.nodes ?? [])
        .map((line) => (line.nodes ?? []).flatMap((t) => (t.leaves ?? []).map((l) => l.text)).join(''))
        .join('\n');
      return {
        type: 'codeBlock',
        attrs: { language: data.syntax ?? null, title: data.title ?? null, extra: extraCodeData(data) },
        content: text ? [{ type: 'text', text }] : [],
      };
    }
    case 'list-unordered':
    case 'list-ordered':
    case 'list-tasks': {
      const tasks = node.type === 'list-tasks';
      const items = (node.nodes ?? []).map((item) => ({
        type: tasks ? 'taskItem' : 'listItem',
        ...(tasks ? { attrs: { checked: Boolean(item.data?.checked) } } : {}),
        content: listItemContent(item.nodes),
      }));
      if (tasks) return { type: 'taskList', content: items };
      if (node.type === 'list-ordered') return { type: 'orderedList', attrs: { start: data.start ?? 1 }, content: items };
      return { type: 'bulletList', content: items };
    }
    default: {
      const name = CONTAINER_NODES[node.type];
      const child = CONTAINER_CHILDREN[node.type];
      const nodes = node.nodes ?? [];
      const fits = child ? nodes.length > 0 && nodes.every((n) => n.type === child) && !(node.type === 'prompt' && nodes.length > 1) : true;
      if (name && fits) {
        const content = blocks(nodes);
        return { type: name, attrs: { data: canonical(data) }, content: content.length ? content : [{ type: 'paragraph' }] };
      }
      return { type: 'opaque', attrs: { json: canonical(node) } };
    }
  }
}

/// A grid table whose cells each hold one paragraph, as the editor's table
/// (its header row the column titles); null for any other table, which
/// stays as it is.
function tableToEditor(node) {
  const data = node.data ?? {};
  const columns = data.view?.columns ?? [];
  const definition = data.definition ?? {};
  if (data.view?.type !== 'grid' || data.view?.hideHeader || columns.length === 0) return null;
  if (columns.some((c) => definition[c]?.type !== 'text')) return null;
  const fragments = Object.fromEntries((node.fragments ?? []).map((f) => [f.fragment, f.nodes ?? []]));
  const records = Object.values(data.records ?? {}).sort((a, b) => (a.orderIndex < b.orderIndex ? -1 : 1));
  const cell = (type, content) => ({ type, content: [{ type: 'paragraph', content }] });
  const rows = [{ type: 'tableRow', content: columns.map((c) => cell('tableHeader', definition[c].title ? [{ type: 'text', text: definition[c].title }] : [])) }];
  for (const record of records) {
    const cells = [];
    for (const c of columns) {
      const nodes = fragments[record.values?.[c]] ?? [];
      if (nodes.length > 1 || (nodes[0] && nodes[0].type !== 'paragraph')) return null;
      cells.push(cell('tableCell', inlines(nodes[0]?.nodes)));
    }
    rows.push({ type: 'tableRow', content: cells });
  }
  const align = columns.map((c) => definition[c].textAlignment ?? 'left');
  return { type: 'table', attrs: { extra: canonical({ align }) }, content: rows };
}

/// A list item starts with a paragraph in the editor's schema.
function listItemContent(nodes) {
  const content = blocks(nodes);
  // Marked as filling in, so that it goes again on the way back while
  // nobody wrote in it (an empty item, one beginning with a heading).
  if (content[0]?.type !== 'paragraph') content.unshift({ type: 'paragraph', attrs: { filler: true }, content: [] });
  return content;
}

/// A list item's blocks back, without the paragraph that only filled in.
function itemBack(item) {
  const [first, ...rest] = item.content ?? [];
  const filler = first?.type === 'paragraph' && first.attrs?.filler && !(first.content ?? []).length;
  return blocksBack(filler ? rest : item.content);
}

function extraCodeData(data) {
  const { syntax, title, ...extra } = data;
  return Object.keys(extra).length ? JSON.stringify(extra) : null;
}

/// The API's document as the editor's.
export function toEditor(document) {
  const content = blocks((document?.nodes ?? []).map(withoutServerKey));
  return { type: 'doc', content: content.length ? content : [{ type: 'paragraph' }] };
}

// Back to the API's form.

function block(type, data, nodes) {
  return { object: 'block', type, isVoid: false, data, nodes };
}

function sameMarks(a, b) {
  return JSON.stringify(a) === JSON.stringify(b);
}

/// Editor inline content as text nodes and link inlines.
function inlinesBack(content = []) {
  const out = [];
  let leaves = [];
  const flush = () => {
    if (leaves.length) out.push({ object: 'text', leaves });
    leaves = [];
  };
  let i = 0;
  while (i < content.length) {
    const node = content[i];
    const link = node.marks?.find((m) => m.type === 'link');
    if (link) {
      flush();
      const run = [];
      while (i < content.length && sameMarks(content[i].marks?.find((m) => m.type === 'link'), link)) {
        run.push({ ...content[i], marks: content[i].marks.filter((m) => m.type !== 'link') });
        i += 1;
      }
      const ref = link.attrs.gitbookRef ? JSON.parse(link.attrs.gitbookRef) : { kind: 'url', url: link.attrs.href };
      out.push({ object: 'inline', type: 'link', isVoid: false, data: { ref }, nodes: inlinesBack(run) });
      continue;
    }
    const tag = node.marks?.find((m) => m.type === 'htmlTag');
    if (tag) {
      // The text between its tags as written.
      flush();
      const run = [];
      while (i < content.length && sameMarks(content[i].marks?.find((m) => m.type === 'htmlTag'), tag)) {
        run.push({ ...content[i], marks: content[i].marks.filter((m) => m.type !== 'htmlTag') });
        i += 1;
      }
      const html = (text) => ({ object: 'text', key: 'quire-html-inline', leaves: [{ object: 'leaf', text, marks: [] }] });
      out.push(html(tag.attrs.open), ...inlinesBack(run), html(tag.attrs.close));
      continue;
    }
    if (node.type === 'text') {
      const marks = (node.marks ?? []).map((m) => MARKS_BACK[m.type]).filter(Boolean).map((type) => ({ object: 'mark', type }));
      const last = leaves[leaves.length - 1];
      if (last && sameMarks(last.marks, marks)) last.text += node.text;
      else leaves.push({ object: 'leaf', text: node.text, marks });
    } else if (node.type === 'opaqueInline') {
      flush();
      out.push(JSON.parse(node.attrs.json));
    } else if (node.type === 'hardBreak') {
      const last = leaves[leaves.length - 1];
      if (last && last.marks.length === 0) last.text += '\n';
      else leaves.push({ object: 'leaf', text: '\n', marks: [] });
    }
    i += 1;
  }
  flush();
  return out;
}

function paragraphBack(node) {
  const nodes = inlinesBack(node.content);
  return block('paragraph', {}, nodes.length ? nodes : [{ object: 'text', leaves: [{ object: 'leaf', text: '', marks: [] }] }]);
}

function blocksBack(content = []) {
  return content.map(blockBack);
}

function blockBack(node) {
  const attrs = node.attrs ?? {};
  switch (node.type) {
    case 'paragraph':
      return paragraphBack(node);
    case 'heading': {
      const keeps = attrs.anchor && headingText(node.content) === attrs.anchorText;
      return block(`heading-${Math.min(3, Math.max(1, attrs.level))}`, keeps ? { id: attrs.anchor } : {}, inlinesBack(node.content));
    }
    case 'blockquote':
      return block('blockquote', {}, blocksBack(node.content));
    case 'horizontalRule':
      return { object: 'block', type: 'divider', isVoid: true, data: {} };
    case 'hint':
      return block('hint', { style: attrs.style ?? 'info' }, blocksBack(node.content));
    case 'table': {
      const [header, ...rows] = node.content ?? [];
      const align = attrs.extra ? JSON.parse(attrs.extra).align ?? [] : [];
      const columns = (header?.content ?? []).map((_, i) => `c${i}`);
      const text = (cell) => (cell?.content?.[0]?.content ?? []).map((t) => t.text ?? '').join('');
      const definition = Object.fromEntries(
        columns.map((id, i) => [id, { id, title: text(header.content[i]), type: 'text', textAlignment: align[i] ?? 'left' }]),
      );
      const records = {};
      const fragments = [];
      rows.forEach((row, r) => {
        const values = {};
        columns.forEach((c, i) => {
          const key = `r${r}-${c}`;
          values[c] = key;
          const paragraph = row.content?.[i]?.content?.[0] ?? { content: [] };
          fragments.push({ object: 'fragment', fragment: key, nodes: [paragraphBack(paragraph)] });
        });
        records[`r${r}`] = { orderIndex: `a${String(r).padStart(6, '0')}`, values };
      });
      return {
        object: 'block',
        type: 'table',
        isVoid: true,
        data: { view: { type: 'grid', columns, hideHeader: false }, records, definition },
        fragments,
      };
    }
    case 'tabs':
      return block(
        'tabs',
        {},
        (node.content ?? []).map((item) => block('tabs-item', { title: item.attrs?.title ?? '' }, blocksBack(item.content))),
      );
    case 'expandable': {
      const fragment = (name, nodes) => ({ object: 'fragment', fragment: name, type: name, nodes });
      return {
        object: 'block',
        type: 'expandable',
        isVoid: true,
        data: { defaultExpanded: Boolean(attrs.open) },
        fragments: [
          fragment('expandable-title', [paragraphBack({ content: attrs.title ? [{ type: 'text', text: attrs.title }] : [] })]),
          fragment('expandable-body', blocksBack(node.content)),
        ],
      };
    }
    case 'codeBlock': {
      const text = (node.content ?? []).map((t) => t.text).join('');
      const data = { ...(attrs.extra ? JSON.parse(attrs.extra) : {}) };
      if (attrs.language) data.syntax = attrs.language;
      if (attrs.title) data.title = attrs.title;
      const lines = text.split('\n').map((line) =>
        block('code-line', { highlighted: false }, [{ object: 'text', leaves: [{ object: 'leaf', text: line, marks: [] }] }]),
      );
      return block('code', data, lines);
    }
    case 'bulletList':
      return block('list-unordered', {}, (node.content ?? []).map((item) => block('list-item', {}, itemBack(item))));
    case 'orderedList':
      return block('list-ordered', { start: attrs.start ?? 1 }, (node.content ?? []).map((item) => block('list-item', {}, itemBack(item))));
    case 'taskList':
      return block(
        'list-tasks',
        {},
        (node.content ?? []).map((item) => block('list-item', { checked: Boolean(item.attrs?.checked) }, itemBack(item))),
      );
    case 'opaque':
      return JSON.parse(attrs.json);
    default:
      if (CONTAINER_TYPES[node.type]) return block(CONTAINER_TYPES[node.type], JSON.parse(attrs.data ?? '{}'), blocksBack(node.content));
      return paragraphBack({ content: [] });
  }
}

/// The editor's document in the API's form.
export function fromEditor(doc) {
  return { object: 'document', data: { schemaVersion: 1 }, nodes: blocksBack(doc.content ?? []) };
}
