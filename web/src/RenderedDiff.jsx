// A page's changes rendered as readers see the page (the read-only editor
// of `DocumentView`), from a document diff (`diff.js`): blocks added,
// removed and changed marked beside them, words added and removed marked
// in the text (`<ins>`, `<del>`), each named for screen readers.
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { Extension } from '@tiptap/core';
import { Plugin } from '@tiptap/pm/state';
import { Decoration, DecorationSet } from '@tiptap/pm/view';
import { foldUnchanged } from './diff.js';
import { DocumentView } from './screens/Space.jsx';

/// What screen readers hear before a block, and around words.
const SAY = {
  block: { added: 'Added block: ', removed: 'Removed block: ', changed: 'Changed block: ' },
  start: { added: 'added: ', removed: 'removed: ' },
  end: { added: ' (end added) ', removed: ' (end removed) ' },
};

/// Text only screen readers read, as a widget.
function spoken(text, tag = 'span') {
  return () => {
    const element = document.createElement(tag);
    element.className = 'visually-hidden';
    element.textContent = text;
    return element;
  };
}

/// Where a node's first paragraph or heading starts its text (`pos` being
/// before the node), or null.
function firstText(node, pos) {
  if (node.isTextblock) return pos + 1;
  let found = null;
  node.descendants((child, offset) => {
    if (found !== null) return false;
    if (child.isTextblock) found = pos + 1 + offset + 1;
    return found === null;
  });
  return found;
}

/// The decorations showing what a diff marked in the editor's JSON
/// (`diff`, `diffRanges`, see `diff.js`), the document and the JSON walked
/// together (a part whose shape differs is left unmarked).
function decorationsOf(doc, spec) {
  const found = [];
  const visit = (node, json, pos, depth) => {
    if (json.diff && (depth === 1 || json.diff !== 'changed')) {
      const place = depth === 1 ? 'block' : 'node';
      found.push(Decoration.node(pos, pos + node.nodeSize, { class: `diff-${place} diff-${place}-${json.diff}` }));
      const at = firstText(node, pos);
      const say = SAY.block[json.diff];
      found.push(at === null ? Decoration.widget(pos, spoken(say, 'div'), { side: -1 }) : Decoration.widget(at, spoken(say), { side: -1 }));
    }
    if (node.isTextblock) {
      for (const { from, to, kind } of json.diffRanges ?? []) {
        const start = pos + 1 + from;
        const end = pos + 1 + to;
        found.push(Decoration.widget(start, spoken(SAY.start[kind]), { side: 1 }));
        found.push(Decoration.inline(start, end, { nodeName: kind === 'added' ? 'ins' : 'del', class: `diff-word diff-word-${kind}` }));
        found.push(Decoration.widget(end, spoken(SAY.end[kind]), { side: -1 }));
      }
      return;
    }
    const children = json.content ?? [];
    if (children.length !== node.childCount) return;
    node.forEach((child, offset, index) => visit(child, children[index], pos + 1 + offset, depth + 1));
  };
  visit(doc, spec, -1, 0);
  return DecorationSet.create(doc, found);
}

/// The editor extension marking a diff's changes in `spec` (the editor's
/// JSON of the document shown).
function diffMarks(spec) {
  return Extension.create({
    name: 'diffMarks',
    addProseMirrorPlugins() {
      return [
        new Plugin({
          state: {
            init: (_, state) => decorationsOf(state.doc, spec),
            apply: (tr, set) => set.map(tr.mapping, tr.doc),
          },
          props: {
            decorations(state) {
              return this.getState(state);
            },
          },
        }),
      ];
    },
  });
}

/// Blocks (the editor's JSON, marked) rendered with their marks.
function MarkedBlocks({ nodes, label }) {
  const content = useMemo(() => ({ type: 'doc', content: nodes.length ? nodes : [{ type: 'paragraph' }] }), [nodes]);
  const more = useMemo(() => [diffMarks(content)], [content]);
  return (
    <div class="diff-doc">
      <DocumentView content={content} more={more} label={label} />
    </div>
  );
}

/// Unchanged blocks folded away: a button saying how many, showing them.
function Fold({ items, label }) {
  const [open, setOpen] = useState(false);
  const shown = useRef(null);
  useEffect(() => {
    if (open) shown.current?.focus();
  }, [open]);
  const nodes = useMemo(() => items.map((item) => item.node), [items]);
  if (!open) {
    return (
      <button type="button" class="diff-fold" onClick={() => setOpen(true)}>
        {items.length} unchanged block{items.length === 1 ? '' : 's'} · Show
      </button>
    );
  }
  return (
    <div ref={shown} tabIndex={-1} class="diff-unfolded">
      <MarkedBlocks nodes={nodes} label={label} />
    </div>
  );
}

/// What a diff counts: blocks changed, added and removed, in words.
export function diffSummary(items) {
  const count = (kind) => items.filter((item) => item.kind === kind).length;
  const parts = [
    [count('changed'), 'changed'],
    [count('added'), 'added'],
    [count('removed'), 'removed'],
  ].filter(([n]) => n > 0);
  if (parts.length === 0) return 'No block changed.';
  return `${parts.map(([n, what], k) => `${n}${k === 0 ? ` block${n === 1 ? '' : 's'}` : ''} ${what}`).join(', ')}.`;
}

/// A page's changes, rendered: every block once (a changed one with its
/// words marked), long runs of unchanged blocks folded.
export function ChangesView({ diff, label }) {
  const parts = useMemo(
    () => foldUnchanged(diff.items).map((part) => ({ ...part, nodes: part.items.map((item) => item.node) })),
    [diff],
  );
  return (
    <div class="rendered-diff">
      <p class="muted diff-summary">
        {diffSummary(diff.items)}
        {diff.capped && ' Parts too large to compare word by word are marked whole.'}
      </p>
      {parts.map((part) =>
        part.folded ? <Fold items={part.items} label={label} /> : <MarkedBlocks nodes={part.nodes} label={label} />,
      )}
    </div>
  );
}

/// Both versions of a page, rendered side by side: removed and changed
/// blocks marked on the left, added and changed ones on the right.
export function SideBySide({ diff, before, after }) {
  const left = useMemo(() => diff.items.filter((item) => item.old).map((item) => item.old), [diff]);
  const right = useMemo(() => diff.items.filter((item) => item.new).map((item) => item.new), [diff]);
  return (
    <div class="side-by-side">
      <div>
        <h4>Before</h4>
        {before ? <MarkedBlocks nodes={left} label="Before" /> : <p class="muted">No page</p>}
      </div>
      <div>
        <h4>After</h4>
        {after ? <MarkedBlocks nodes={right} label="After" /> : <p class="muted">No page</p>}
      </div>
    </div>
  );
}
