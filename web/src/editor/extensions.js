// The editor's schema: Tiptap's starter kit (paragraphs, headings, lists,
// quotes, code, rules, bold, italic, strike, inline code, links, history,
// markdown shortcuts), task lists, and Quire's own nodes: hints, code
// titles, and opaque blocks and inlines that carry a block the editor has
// no view for, untouched.
import { Node, mergeAttributes } from '@tiptap/core';
import StarterKit from '@tiptap/starter-kit';
import CodeBlock from '@tiptap/extension-code-block';
import Link from '@tiptap/extension-link';
import { TaskList, TaskItem } from '@tiptap/extension-list';

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

/// A block kept as its JSON: shown as a labelled card, moved and deleted
/// whole.
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
    let kind = 'block';
    try {
      kind = JSON.parse(node.attrs.json).type ?? kind;
    } catch {
      /* shown as a block */
    }
    return ['div', { 'data-opaque': '', 'data-json': node.attrs.json, class: 'opaque', contenteditable: 'false' }, `${kind} block (edit it in markdown mode)`];
  },
});

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
      kind = JSON.parse(node.attrs.json).type ?? kind;
    } catch {
      /* shown as an inline */
    }
    return ['span', { 'data-opaque': '', 'data-json': node.attrs.json, class: 'opaque-inline' }, kind];
  },
});

/// Code blocks keep a title and the data the editor does not show.
const CodeWithTitle = CodeBlock.extend({
  addAttributes() {
    return { ...this.parent?.(), title: { default: null }, extra: { default: null } };
  },
});

/// Links keep their target when it is a page, an anchor or a file (not a
/// URL).
const LinkWithRef = Link.extend({
  addAttributes() {
    return { ...this.parent?.(), gitbookRef: { default: null } };
  },
});

export function extensions() {
  return [
    StarterKit.configure({ link: false, codeBlock: false, underline: false }),
    CodeWithTitle.configure({ HTMLAttributes: { class: 'code' } }),
    LinkWithRef.configure({ openOnClick: false, autolink: true, HTMLAttributes: { rel: 'noopener' } }),
    TaskList,
    TaskItem.configure({ nested: true }),
    Hint,
    Opaque,
    OpaqueInline,
  ];
}

