// The editor's schema: Tiptap's starter kit (paragraphs, headings, lists,
// quotes, code, rules, bold, italic, strike, inline code, links, history,
// markdown shortcuts), task lists, and Quire's own nodes: hints, code
// titles, tabs, expandables, grid tables, GitBook's containers
// (`containers.js`), and opaque blocks and inlines that carry a block whole
// (with inputs for the fields of files, cards, includes, embeds, formulas
// and OpenAPI operations).
import { Extension, InputRule, Mark, Node, mergeAttributes } from '@tiptap/core';
import { Plugin, PluginKey, TextSelection } from '@tiptap/pm/state';
import { Decoration, DecorationSet } from '@tiptap/pm/view';
import { Fragment } from '@tiptap/pm/model';
import StarterKit from '@tiptap/starter-kit';
import CodeBlock from '@tiptap/extension-code-block';
import Link from '@tiptap/extension-link';
import { TaskList, TaskItem } from '@tiptap/extension-list';
import { canonical } from './document.js';
import { get } from '../api.js';
import {
  addColumnAfter,
  addColumnBefore,
  addRowAfter,
  addRowBefore,
  deleteColumn,
  deleteRow,
  deleteTable,
  goToNextCell,
  isInTable,
  selectedRect,
  tableEditing,
} from '@tiptap/pm/tables';
import { containerNodes, headedView } from './containers.js';

export const HINT_STYLES = ['info', 'success', 'warning', 'danger'];

const Hint = Node.create({
  name: 'hint',
  group: 'block',
  content: 'block+',
  defining: true,
  addAttributes() {
    return { style: { default: 'info', parseHTML: (el) => el.getAttribute('data-style') ?? 'info' } };
  },
  parseHTML() {
    return [{ tag: 'div[data-hint]' }];
  },
  renderHTML({ node, HTMLAttributes }) {
    return ['div', mergeAttributes(HTMLAttributes, { 'data-hint': '', 'data-style': node.attrs.style, class: `hint hint-${node.attrs.style}`, role: 'note' }), 0];
  },
});

/// Where a reference points: a URL, or the field naming a file or page.
const refField = (block) => `ref.${block.data?.ref?.kind === 'url' ? 'url' : block.data?.ref?.kind === 'page' ? 'page' : 'file'}`;

/// The fields of blocks without text that the editor lets one fill in
/// (a path into the block's `data`, and its label), by block type.
export const VOID_FIELDS = {
  embed: () => [['url', 'Embed URL']],
  math: () => [['formula', 'Formula (TeX)']],
  'openapi-operation': () => [['ref.spec', 'OpenAPI spec'], ['method', 'Method'], ['path', 'Path']],
  'openapi-schemas': () => [['ref.spec', 'OpenAPI spec'], ['schemas', 'Schemas (comma-separated)']],
  'reusable-content': () => [['ref.reusableContent', 'Reusable content']],
  file: (block) => [[refField(block), block.data?.ref?.kind === 'url' ? 'File URL' : 'File'], [CAPTION, 'Caption']],
  'content-ref': (block) => (block.data?.ref?.kind === 'url' ? [['ref.url', 'Link URL']] : []),
};

/// The field standing for a block's caption fragment (its text).
const CAPTION = '#caption';

function getField(block, path) {
  if (path === 'schemas') return (block.data?.schemas ?? []).join(', ');
  if (path !== CAPTION) return getPath(block.data, path);
  const caption = (block.fragments ?? []).find((f) => f.fragment === 'caption');
  return (caption?.nodes ?? [])
    .map((p) => (p.nodes ?? []).flatMap((t) => (t.leaves ?? []).map((l) => l.text ?? '')).join(''))
    .join('\n');
}

function setField(block, path, value) {
  if (path === 'schemas') {
    const names = value.split(',').map((name) => name.trim()).filter(Boolean);
    return { ...block, data: { ...block.data, schemas: names } };
  }
  if (path !== CAPTION) return { ...block, data: setPath(block.data, path, value) };
  const leaf = { object: 'leaf', text: value, marks: [] };
  const paragraph = { object: 'block', type: 'paragraph', isVoid: false, data: {}, nodes: [{ object: 'text', leaves: [leaf] }] };
  const fragments = (block.fragments ?? []).filter((f) => f.fragment !== 'caption');
  fragments.push({ object: 'fragment', fragment: 'caption', nodes: value ? [paragraph] : [] });
  return { ...block, fragments };
}

/// Titles of the space's pages by id, for the cards linking to them.
const pageTitles = new Map();
export function knowPages(pages) {
  pageTitles.clear();
  for (const page of pages) pageTitles.set(page.id, page.title);
}

/// Where the edited content's files are read (the change request's
/// `content`), and their download addresses once asked for, by id.
let filesBase = null;
const fileAddresses = new Map();
export function knowFiles(base) {
  if (base !== filesBase) fileAddresses.clear();
  filesBase = base;
}

/// The address an image's reference shows: a URL as is, a file of the
/// space by its download address (asked for once).
function imageAddress(ref) {
  if (ref?.kind === 'url') return Promise.resolve(ref.url);
  if (ref?.kind !== 'file' || !filesBase) return Promise.resolve(null);
  if (!fileAddresses.has(ref.file)) {
    fileAddresses.set(
      ref.file,
      get(`${filesBase}/files/${encodeURIComponent(ref.file)}`)
        .then((file) => file?.downloadURL ?? null)
        .catch(() => null),
    );
  }
  return fileAddresses.get(ref.file);
}

/// The text of a caption fragment.
function captionText(node) {
  const caption = (node.fragments ?? []).find((f) => f.fragment === 'caption');
  return (caption?.nodes ?? [])
    .map((p) => (p.nodes ?? []).flatMap((t) => (t.leaves ?? []).map((l) => l.text ?? '')).join(''))
    .join('\n');
}

/// An image with `text` as its caption (one paragraph, empty or not).
function withCaption(image, text) {
  const paragraph = { object: 'block', type: 'paragraph', isVoid: false, data: {}, nodes: [{ object: 'text', leaves: [{ object: 'leaf', text, marks: [] }] }] };
  const fragments = (image.fragments ?? []).filter((f) => f.fragment !== 'caption');
  fragments.push({ object: 'fragment', fragment: 'caption', nodes: [paragraph] });
  return { ...image, fragments };
}

/// An `images` block shown as its images, each with its caption, and (when
/// editable) inputs for the alternative text and caption.
function imagesView(dom, block, editable, change) {
  dom.classList.add('images-block');
  (block.nodes ?? []).forEach((image, i) => {
    const figure = document.createElement('figure');
    const img = document.createElement('img');
    img.alt = image.data?.alt ?? '';
    img.loading = 'lazy';
    imageAddress(image.data?.ref).then((src) => {
      if (src) img.src = src;
      else img.replaceWith(Object.assign(document.createElement('span'), { className: 'muted', textContent: 'Image not found' }));
    });
    figure.append(img);
    const caption = captionText(image);
    if (!editable) {
      if (caption) figure.append(Object.assign(document.createElement('figcaption'), { textContent: caption }));
    } else {
      for (const [label, read, write] of [
        ['Caption', () => caption, (value) => withCaption(image, value)],
        ['Alternative text', () => image.data?.alt ?? '', (value) => ({ ...image, data: { ...image.data, alt: value } })],
      ]) {
        const wrap = document.createElement('label');
        wrap.textContent = label;
        const input = document.createElement('input');
        input.value = read();
        input.addEventListener('input', () => {
          image = write(input.value);
          if (label === 'Alternative text') {
            img.alt = input.value;
            if (!input.value) delete image.data.alt;
          }
          const nodes = [...block.nodes];
          nodes[i] = image;
          block = { ...block, nodes };
          change(block);
        });
        wrap.append(input);
        figure.append(wrap);
      }
    }
    dom.append(figure);
  });
}

const BLOCK_NAMES = {
  embed: 'Embed',
  math: 'Math',
  'openapi-operation': 'OpenAPI operation',
  'openapi-schemas': 'OpenAPI schemas',
  tabs: 'Tabs',
  expandable: 'Expandable',
  table: 'Table',
  images: 'Images',
  file: 'File',
  'reusable-content': 'Included content',
  'content-ref': 'Link card',
  stepper: 'Stepper',
};

function getPath(data, path) {
  return path.split('.').reduce((v, k) => (v == null ? v : v[k]), data) ?? '';
}

function setPath(data, path, value) {
  const keys = path.split('.');
  const out = structuredClone(data ?? {});
  let at = out;
  for (const key of keys.slice(0, -1)) at = at[key] ??= {};
  at[keys[keys.length - 1]] = value;
  return out;
}

/// A block kept as its JSON: shown as a labelled card, moved and deleted
/// whole; for the blocks of `VOID_FIELDS`, with inputs for their fields.
const Opaque = Node.create({
  name: 'opaque',
  group: 'block',
  atom: true,
  selectable: true,
  draggable: true,
  addAttributes() {
    return { json: { default: '{}' } };
  },
  parseHTML() {
    return [{ tag: 'div[data-opaque]', getAttrs: (el) => ({ json: el.getAttribute('data-json') }) }];
  },
  renderHTML({ node }) {
    return ['div', { 'data-opaque': '', 'data-json': node.attrs.json, class: 'opaque' }, 'block'];
  },
  addNodeView() {
    return ({ node, getPos, editor }) => {
      let block = {};
      try {
        block = JSON.parse(node.attrs.json);
      } catch {
        /* shown as an unknown block */
      }
      const dom = document.createElement('div');
      dom.className = 'opaque';
      dom.setAttribute('data-opaque', '');
      dom.setAttribute('data-json', node.attrs.json);
      dom.contentEditable = 'false';
      const title = document.createElement('div');
      title.className = 'opaque-title';
      title.textContent = block.key?.startsWith('quire-html-') ? 'HTML' : (BLOCK_NAMES[block.type] ?? `${block.type ?? 'Unknown'} block`);
      if (block.type === 'images') {
        imagesView(dom, block, editor.isEditable, (changed) => {
          block = changed;
          const pos = getPos();
          if (typeof pos === 'number') editor.view.dispatch(editor.view.state.tr.setNodeMarkup(pos, undefined, { json: canonical(block) }));
        });
        return {
          dom,
          stopEvent: (event) => event.target instanceof HTMLInputElement,
          ignoreMutation: () => true,
          update: (updated) => updated.type.name === 'opaque' && updated.attrs.json === canonical(block),
        };
      }
      dom.append(title);
      if (block.key?.startsWith('quire-html-')) {
        // HTML kept as written (GitBook's card tables, tables with widths…):
        // its source, edited as text.
        const source = document.createElement('textarea');
        source.className = 'html-source';
        source.setAttribute('aria-label', 'HTML');
        source.spellcheck = false;
        source.readOnly = !editor.isEditable;
        source.value = (block.nodes ?? []).flatMap((t) => (t.leaves ?? []).map((l) => l.text ?? '')).join('');
        source.rows = Math.min(16, Math.max(3, source.value.split('\n').length + 1));
        source.addEventListener('input', () => {
          const leaf = { object: 'leaf', text: source.value, marks: [] };
          block = { ...block, nodes: [{ object: 'text', leaves: [leaf] }] };
          const pos = getPos();
          if (typeof pos === 'number') editor.view.dispatch(editor.view.state.tr.setNodeMarkup(pos, undefined, { json: canonical(block) }));
        });
        dom.append(source);
        return {
          dom,
          stopEvent: (event) => event.target === source,
          ignoreMutation: () => true,
          update: (updated) => updated.type.name === 'opaque' && updated.attrs.json === canonical(block),
        };
      }
      const fields = VOID_FIELDS[block.type]?.(block);
      const ref = block.data?.ref;
      if (block.type === 'content-ref' && ref?.kind !== 'url') {
        const target = document.createElement('div');
        target.className = 'card-target';
        target.textContent = pageTitles.get(ref?.page) ?? ref?.page ?? ref?.file ?? ref?.anchor ?? '';
        dom.append(target);
      }
      if (fields && editor.isEditable) {
        for (const [path, label] of fields) {
          const wrap = document.createElement('label');
          wrap.textContent = label;
          const input = document.createElement('input');
          input.value = getField(block, path);
          input.addEventListener('input', () => {
            block = setField(block, path, input.value);
            const pos = getPos();
            if (typeof pos === 'number') {
              editor.view.dispatch(editor.view.state.tr.setNodeMarkup(pos, undefined, { json: canonical(block) }));
            }
          });
          input.addEventListener('keydown', (event) => {
            if (event.key !== 'Enter') return;
            event.preventDefault();
            const pos = getPos();
            if (typeof pos !== 'number') return;
            editor.commands.setTextSelection(pos + node.nodeSize + 1);
            editor.view.focus();
          });
          wrap.append(input);
          dom.append(wrap);
        }
      } else if (fields) {
        const summary = document.createElement('div');
        summary.className = 'muted';
        summary.textContent = fields.map(([path]) => getField(block, path)).filter(Boolean).join(' ');
        dom.append(summary);
      } else {
        const hint = document.createElement('div');
        hint.className = 'muted';
        hint.textContent = editor.isEditable ? 'Edit this block in markdown mode.' : '';
        dom.append(hint);
      }
      return {
        dom,
        stopEvent: (event) => event.target instanceof HTMLInputElement,
        ignoreMutation: () => true,
        update: (updated) => {
          if (updated.type.name !== 'opaque') return false;
          dom.setAttribute('data-json', updated.attrs.json);
          return true;
        },
      };
    };
  },
});

/// A node view whose node has a text attribute edited in an input above its
/// content (a tab's title, an expandable's summary).
function titledView(className, attribute, label, extra) {
  return ({ node, getPos, editor }) => {
    const dom = document.createElement('div');
    dom.className = className;
    dom.setAttribute(`data-${attribute}`, node.attrs[attribute]);
    const head = document.createElement('div');
    head.className = `${className}-head`;
    head.contentEditable = 'false';
    const input = document.createElement('input');
    input.value = node.attrs[attribute];
    input.setAttribute('aria-label', label);
    input.readOnly = !editor.isEditable;
    input.addEventListener('input', () => {
      const pos = getPos();
      if (typeof pos === 'number') {
        editor.view.dispatch(editor.view.state.tr.setNodeAttribute(pos, attribute, input.value));
      }
    });
    head.append(input);
    extra?.(head, { node, getPos, editor });
    return headedView(dom, head, `${className}-body`, node, (updated) => {
      dom.setAttribute(`data-${attribute}`, updated.attrs[attribute]);
      if (input.value !== updated.attrs[attribute]) input.value = updated.attrs[attribute];
    });
  };
}

/// Tabs: titled panels, one after the other while editing.
const Tabs = Node.create({
  name: 'tabs',
  group: 'block',
  content: 'tabItem+',
  defining: true,
  parseHTML() {
    return [{ tag: 'div[data-tabs]' }];
  },
  renderHTML() {
    return ['div', { 'data-tabs': '', class: 'tabs-block', role: 'group', 'aria-label': 'Tabs' }, 0];
  },
});

const TabItem = Node.create({
  name: 'tabItem',
  content: 'block+',
  defining: true,
  addAttributes() {
    return { title: { default: 'Tab' } };
  },
  parseHTML() {
    return [{ tag: 'div[data-tab]', getAttrs: (el) => ({ title: el.getAttribute('data-title') ?? 'Tab' }) }];
  },
  renderHTML({ node }) {
    return ['div', { 'data-tab': '', 'data-title': node.attrs.title, class: 'tab-item' }, 0];
  },
  addNodeView() {
    return titledView('tab-item', 'title', 'Tab title', (head, { node, getPos, editor }) => {
      if (!editor.isEditable) return;
      const add = document.createElement('button');
      add.type = 'button';
      add.textContent = 'Add a tab after';
      add.addEventListener('click', () => {
        const pos = getPos();
        if (typeof pos !== 'number') return;
        editor
          .chain()
          .insertContentAt(pos + node.nodeSize, { type: 'tabItem', attrs: { title: 'New tab' }, content: [{ type: 'paragraph' }] })
          .run();
      });
      head.append(add);
    });
  },
});

/// An expandable: a summary (plain text) and the blocks it hides.
const Expandable = Node.create({
  name: 'expandable',
  group: 'block',
  content: 'block+',
  defining: true,
  addAttributes() {
    return { title: { default: 'Details' }, open: { default: false } };
  },
  parseHTML() {
    return [{ tag: 'div[data-expandable]', getAttrs: (el) => ({ title: el.getAttribute('data-title') ?? '' }) }];
  },
  renderHTML({ node }) {
    return ['div', { 'data-expandable': '', 'data-title': node.attrs.title, class: 'expandable' }, 0];
  },
  addNodeView() {
    return titledView('expandable', 'title', 'Expandable summary');
  },
});

/// Gives nodes their `tableRole` in the schema, which prosemirror-tables
/// reads to find tables, rows and cells.
const TableRoles = Extension.create({
  name: 'tableRoles',
  extendNodeSchema(extension) {
    return { tableRole: extension.config.tableRole ?? null };
  },
});

/// The attributes prosemirror-tables expects of every cell.
const cellAttributes = () => ({ colspan: { default: 1 }, rowspan: { default: 1 }, colwidth: { default: null } });

/// A table (GitBook's grid table): a header row of column titles, then rows
/// of cells holding one paragraph each. Tab and Shift-Tab move between
/// cells (Tab in the last cell adds a row), Mod-Enter adds a row.
const Table = Node.create({
  name: 'table',
  group: 'block',
  content: 'tableRow+',
  isolating: true,
  tableRole: 'table',
  addAttributes() {
    return { extra: { default: null } };
  },
  parseHTML() {
    return [{ tag: 'table' }];
  },
  renderHTML() {
    return ['table', { class: 'table-block' }, ['tbody', 0]];
  },
  addProseMirrorPlugins() {
    return [tableEditing()];
  },
  addKeyboardShortcuts() {
    const dispatch = (tr) => this.editor.view.dispatch(tr);
    const run = (command) => () => command(this.editor.state, dispatch);
    const next = () => {
      if (goToNextCell(1)(this.editor.state, dispatch)) return true;
      // The last cell: a new row, and the caret into its first cell.
      if (!isInTable(this.editor.state) || !addRowAfter(this.editor.state, dispatch)) return false;
      goToNextCell(1)(this.editor.state, dispatch);
      return true;
    };
    return { Tab: next, 'Shift-Tab': run(goToNextCell(-1)), 'Mod-Enter': run(addRowAfter) };
  },
});

const TableRow = Node.create({
  name: 'tableRow',
  content: '(tableHeader | tableCell)+',
  tableRole: 'row',
  parseHTML() {
    return [{ tag: 'tr' }];
  },
  renderHTML() {
    return ['tr', 0];
  },
});

const TableHeader = Node.create({
  name: 'tableHeader',
  content: 'paragraph',
  tableRole: 'header_cell',
  isolating: true,
  addAttributes: cellAttributes,
  parseHTML() {
    return [{ tag: 'th' }];
  },
  renderHTML() {
    return ['th', { scope: 'col' }, 0];
  },
});

const TableCell = Node.create({
  name: 'tableCell',
  content: 'paragraph',
  tableRole: 'cell',
  isolating: true,
  addAttributes: cellAttributes,
  parseHTML() {
    return [{ tag: 'td' }];
  },
  renderHTML() {
    return ['td', 0];
  },
});

/// A new block without text, as the API's JSON, for the slash menu.
export function voidBlock(type, data) {
  return { type: 'opaque', attrs: { json: canonical({ object: 'block', type, isVoid: true, data }) } };
}

const OpaqueInline = Node.create({
  name: 'opaqueInline',
  group: 'inline',
  inline: true,
  atom: true,
  addAttributes() {
    return { json: { default: '{}' } };
  },
  parseHTML() {
    return [{ tag: 'span[data-opaque]', getAttrs: (el) => ({ json: el.getAttribute('data-json') }) }];
  },
  renderHTML({ node }) {
    let kind = 'inline';
    try {
      const inline = JSON.parse(node.attrs.json);
      // An HTML tag as written shows as the tag.
      kind = inline.key?.startsWith('quire-html-')
        ? (inline.leaves ?? []).map((l) => l.text).join('')
        : inline.type === 'icon'
          ? `icon: ${inline.data?.icon ?? ''}`
          : inline.type === 'link'
            ? `linked image: ${inline.data?.ref?.url ?? inline.data?.ref?.page ?? ''}`
            : (inline.type ?? kind);
    } catch {
      /* shown as an inline */
    }
    return ['span', { 'data-opaque': '', 'data-json': node.attrs.json, class: 'opaque-inline' }, kind];
  },
});

/// Headings keep the anchor they were read with and the text it was made
/// for (`document.js` sends the anchor back only while the text is the
/// same); the anchor is the heading's `id`, so `#anchor` links find it.
const HeadingAnchors = Extension.create({
  name: 'headingAnchors',
  addGlobalAttributes() {
    return [
      {
        // A paragraph the editor added in front of a list item's first
        // block (its schema wants one), dropped again while empty.
        types: ['paragraph'],
        attributes: { filler: { default: null, renderHTML: () => ({}), parseHTML: () => null } },
      },
      {
        types: ['heading'],
        attributes: {
          anchor: { default: null, renderHTML: (attrs) => (attrs.anchor ? { id: attrs.anchor } : {}), parseHTML: () => null },
          anchorText: { default: null, renderHTML: () => ({}), parseHTML: () => null },
        },
      },
    ];
  },
});

/// The JSON of a code block's `extra` attribute (GitBook's code data the
/// editor does not edit as attributes: `lineNumbers`, `overflow`, ...).
export function codeExtra(node) {
  try {
    return JSON.parse(node.attrs.extra ?? 'null') ?? {};
  } catch {
    return {};
  }
}

/// The tags an `htmlTag` mark is drawn with (others draw as a span).
const HTML_MARK_ELEMENTS = new Set(['kbd', 'sup', 'sub', 'mark', 'u', 'small', 'ins', 'del', 's', 'span']);

/// A colour from a tag's style, when it is a plain colour value.
function styleColor(open, property) {
  const found = new RegExp(`(?:^|[;"'\\s])${property}\\s*:\\s*([^;"']+)`, 'i').exec(open)?.[1]?.trim();
  return found && /^(#[0-9a-f]{3,8}|[a-z]+|rgba?\([\d\s.,%]+\))$/i.test(found) ? found : null;
}

/// Text GitBook wrapped in an HTML tag (`<kbd>`, `<sup>`, `<mark
/// style="color:…">`…): drawn as that element, the tags kept as written
/// (`document.js` pairs them into the mark and back). Typing at its edges
/// does not extend it.
const HtmlTag = Mark.create({
  name: 'htmlTag',
  inclusive: false,
  addAttributes() {
    return { open: { default: '' }, close: { default: '' } };
  },
  parseHTML() {
    return [{ tag: '[data-html-open]', getAttrs: (el) => ({ open: el.getAttribute('data-html-open'), close: el.getAttribute('data-html-close') }) }];
  },
  renderHTML({ mark }) {
    const name = /^<([a-z]+)/i.exec(mark.attrs.open)?.[1]?.toLowerCase();
    const element = HTML_MARK_ELEMENTS.has(name) ? name : 'span';
    const color = styleColor(mark.attrs.open, 'color');
    const background = styleColor(mark.attrs.open, 'background-color');
    const style = [color && `color: ${color}`, background && `background-color: ${background}`].filter(Boolean).join('; ');
    return [element, { class: 'html-tag', 'data-html-open': mark.attrs.open, 'data-html-close': mark.attrs.close, title: mark.attrs.open, ...(style ? { style } : {}) }, 0];
  },
});

/// Code blocks keep a title (shown above the code) and the data the editor
/// does not show.
const CodeWithTitle = CodeBlock.extend({
  addAttributes() {
    return {
      ...this.parent?.(),
      title: {
        default: null,
        parseHTML: (el) => el.getAttribute('data-title'),
        renderHTML: (attrs) => (attrs.title ? { 'data-title': attrs.title } : {}),
      },
      extra: {
        default: null,
        parseHTML: (el) => el.getAttribute('data-extra'),
        renderHTML: (attrs) => {
          if (!attrs.extra) return {};
          return { 'data-extra': attrs.extra, ...(codeExtra({ attrs }).lineNumbers ? { 'data-line-numbers': '' } : {}) };
        },
      },
    };
  },
});

/// Links keep their target when it is a page, an anchor or a file (not a
/// URL).
const LinkWithRef = Link.extend({
  addAttributes() {
    return { ...this.parent?.(), gitbookRef: { default: null } };
  },
});

/// The editor's extensions; with `collaboration` (the shared document's
/// extensions), without the editor's own undo history, which the shared
/// document's replaces.
export function extensions({ collaboration } = {}) {
  return [
    StarterKit.configure({ link: false, codeBlock: false, underline: false, ...(collaboration ? { undoRedo: false } : {}) }),
    ...(collaboration ?? []),
    HeadingAnchors,
    HtmlTag,
    CodeWithTitle.configure({ HTMLAttributes: { class: 'code' } }),
    LinkWithRef.configure({ openOnClick: false, autolink: true, HTMLAttributes: { rel: 'noopener' } }),
    TaskList,
    TaskItem.configure({ nested: true }),
    Hint,
    TableRoles,
    Table,
    TableRow,
    TableHeader,
    TableCell,
    Tabs,
    TabItem,
    Expandable,
    ...containerNodes(),
    Opaque,
    OpaqueInline,
    Assist,
  ];
}

// Discoverable editing: a hint in the empty line where the caret is, the
// block toolbars' places, `$$` for a math block, and the commands of the
// "+" handle, the "/" menu and the table toolbar.

/// The hint of an empty line.
export const PLACEHOLDER = 'Type / for blocks, or start writing';

/// Whether a block toolbar (outside the editor's DOM) holds the focus: the
/// block it edits stays marked while it does.
export const ASSIST_KEY = new PluginKey('quireAssist');

/// The depth of the innermost block around `$pos` after which a paragraph
/// may go (a table's cell holds one paragraph: the table is that block).
export function insertionDepth($pos) {
  const paragraph = $pos.doc.type.schema.nodes.paragraph;
  for (let d = $pos.depth; d > 0; d -= 1) {
    const index = $pos.index(d - 1);
    if ($pos.node(d - 1).canReplaceWith(index + 1, index + 1, paragraph)) return d;
  }
  return null;
}

/// The block a "+" handle stands beside: an atom block at `inside` (one
/// selected, or under the pointer), else the innermost block around `pos`
/// that a paragraph may follow; `{ pos, node }` or null.
export function blockTarget(doc, pos, inside = -1) {
  if (inside >= 0) {
    const node = doc.nodeAt(inside);
    if (node?.isBlock && node.isAtom) {
      const $at = doc.resolve(inside);
      const paragraph = doc.type.schema.nodes.paragraph;
      if ($at.parent.canReplaceWith($at.index() + 1, $at.index() + 1, paragraph)) return { pos: inside, node };
    }
  }
  if (pos == null || pos < 0 || pos > doc.content.size) return null;
  const $pos = doc.resolve(pos);
  const depth = insertionDepth($pos);
  return depth ? { pos: $pos.before(depth), node: $pos.node(depth) } : null;
}

/// The block around the editor's selection (see `blockTarget`).
export function selectionTarget(state) {
  const { selection } = state;
  if (selection.node) return blockTarget(state.doc, null, selection.from);
  return blockTarget(state.doc, selection.$head.pos);
}

const CELLS = new Set(['tableCell', 'tableHeader']);

/// A table command that keeps the table's column alignments (its `extra`)
/// in step with its columns.
function keepingAlign(command, edit) {
  return (state, dispatch) => {
    if (!isInTable(state)) return false;
    if (!dispatch) return command(state);
    const rect = selectedRect(state);
    return command(state, (tr) => {
      const at = rect.tableStart - 1;
      const table = tr.doc.nodeAt(at);
      if (table?.type.name === 'table') {
        let extra = {};
        try {
          extra = JSON.parse(table.attrs.extra ?? 'null') ?? {};
        } catch {
          /* none kept */
        }
        const align = Array.from({ length: rect.map.width }, (_, i) => extra.align?.[i] ?? 'left');
        edit(align, rect);
        tr.setNodeAttribute(at, 'extra', canonical({ ...extra, align }));
      }
      dispatch(tr);
    });
  };
}

/// Whether the selection touches the table's first row (its column titles,
/// which the saved table keeps as its header: no row goes above it, and it
/// is not deleted).
function inHeaderRow(state) {
  return isInTable(state) && selectedRect(state).top === 0;
}

const notInHeader = (command) => (state, dispatch) => !inHeaderRow(state) && command(state, dispatch);

/// The table toolbar's buttons: label and ProseMirror command.
export const TABLE_ACTIONS = [
  ['Add row above', notInHeader(addRowBefore)],
  ['Add row below', addRowAfter],
  ['Add column left', keepingAlign(addColumnBefore, (align, rect) => align.splice(rect.left, 0, 'left'))],
  ['Add column right', keepingAlign(addColumnAfter, (align, rect) => align.splice(rect.right, 0, 'left'))],
  ['Delete row', notInHeader(deleteRow)],
  ['Delete column', keepingAlign(deleteColumn, (align, rect) => align.splice(rect.left, rect.right - rect.left))],
  ['Delete table', deleteTable],
];

/// Replaces the paragraph holding only `$$` (at `$from`) with a math block
/// and an empty paragraph, and puts the caret in the formula's input.
function mathFromDollars(editor, tr, $from) {
  const paragraph = $from.parent;
  // (A typed space is in the paragraph already; Enter is not.)
  if (paragraph.type.name !== 'paragraph' || !/^\$\$\s?$/.test(paragraph.textContent)) return false;
  const { schema } = tr.doc.type;
  const math = schema.nodeFromJSON(voidBlock('math', { formula: 'x^2' }));
  const blocks = Fragment.from([math, schema.nodes.paragraph.create()]);
  const depth = $from.depth;
  const index = $from.index(depth - 1);
  if (!$from.node(depth - 1).canReplace(index, index + 1, blocks)) return false;
  const at = $from.before(depth);
  tr.replaceWith(at, $from.after(depth), blocks);
  tr.setSelection(TextSelection.create(tr.doc, at + math.nodeSize + 1));
  requestAnimationFrame(() => {
    const input = editor.view.nodeDOM(at)?.querySelector?.('input');
    input?.focus();
    input?.select();
  });
  return true;
}

const Assist = Extension.create({
  name: 'quireAssist',
  addInputRules() {
    const { editor } = this;
    // `$$` then a space or Enter, alone on a line: a math block.
    return [
      new InputRule({
        find: /^\$\$[\s\n]$/,
        handler: ({ state, range }) => (mathFromDollars(editor, state.tr, state.doc.resolve(range.from)) ? undefined : null),
      }),
    ];
  },
  addProseMirrorPlugins() {
    const { editor } = this;
    return [
      new Plugin({
        key: ASSIST_KEY,
        state: {
          init: () => ({ toolbarFocus: false }),
          apply: (tr, value) => tr.getMeta(ASSIST_KEY) ?? value,
        },
        props: {
          decorations: (state) => {
            if (!editor.isEditable) return null;
            const { doc, selection } = state;
            const decorations = [];
            const hint = { class: 'is-empty', 'data-placeholder': PLACEHOLDER };
            const first = doc.firstChild;
            const $from = selection.$from;
            if (doc.childCount === 1 && first.type.name === 'paragraph' && first.content.size === 0) {
              decorations.push(Decoration.node(0, first.nodeSize, hint));
            } else if (editor.isFocused && selection.empty && $from.parent.type.name === 'paragraph' && $from.parent.content.size === 0) {
              if (!CELLS.has($from.node(-1)?.type.name)) decorations.push(Decoration.node($from.before(), $from.after(), hint));
            }
            // The code block or table the caret is in makes room for its
            // toolbar.
            if (editor.isFocused || ASSIST_KEY.getState(state)?.toolbarFocus) {
              for (let d = $from.depth; d > 0; d -= 1) {
                const name = $from.node(d).type.name;
                if (name === 'codeBlock' || name === 'table') {
                  decorations.push(Decoration.node($from.before(d), $from.after(d), { class: `block-active block-active-${name}` }));
                  break;
                }
              }
            }
            return DecorationSet.create(doc, decorations);
          },
        },
      }),
    ];
  },
});

