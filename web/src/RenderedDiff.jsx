// A page's changes rendered as readers see the page (the read-only editor
// of `DocumentView`), from a document diff (`diff.js`): blocks added,
// removed and changed marked beside them, words added and removed marked
// in the text (`<ins>`, `<del>`), each named for screen readers. In the
// changes, each block of the new version is named by its key
// (`data-block-key`) and may have a comment button beside it; what is
// said about a block (ChangeRequests.jsx gives it) is drawn right under
// it, the blocks being cut into runs, one rendered document each.
import { Fragment } from 'preact';
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
  return found;
}

/// The decorations of a block's tools: each top-level block with a key
/// (`keys[k]`, of the k-th block) named by it (`data-block-key`), and,
/// when `act` is given, a comment button before it (see `commentButton`).
function toolsOf(doc, keys, act) {
  const found = [];
  doc.forEach((node, pos, index) => {
    const key = keys?.[index];
    if (!key) return;
    found.push(Decoration.node(pos, pos + node.nodeSize, { 'data-block-key': key }));
    if (act) {
      // After the block's spoken "Added block:" (side -1), right before it.
      found.push(Decoration.widget(pos, commentButton(key, act), { side: -0.5, key: `comment-${key}`, stopEvent: () => true, ignoreSelection: true }));
    }
  });
  return found;
}

const SPEECH_BUBBLE =
  '<svg viewBox="0 0 16 16" width="16" height="16" aria-hidden="true" focusable="false"><path fill="none" stroke="currentColor" stroke-width="1.5" stroke-linejoin="round" d="M2.75 3.25a1 1 0 0 1 1-1h8.5a1 1 0 0 1 1 1v6.5a1 1 0 0 1-1 1H7.5l-3 2.5v-2.5h-.75a1 1 0 0 1-1-1z"/></svg>';

/// The button commenting on the block named `key`, as a widget: placed
/// where the block starts, on its right (see `.block-comment` in
/// style.css); `act.current(key)` when pressed.
function commentButton(key, act) {
  return () => {
    const holder = document.createElement('div');
    holder.className = 'block-comment';
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'block-comment-button';
    button.dataset.forBlock = key;
    button.setAttribute('aria-label', 'Comment on this block');
    button.title = 'Comment on this block';
    button.innerHTML = SPEECH_BUBBLE;
    button.addEventListener('click', () => act.current?.(key));
    holder.append(button);
    return holder;
  };
}

/// The editor extension marking a diff's changes in `spec` (the editor's
/// JSON of the document shown), with the blocks' tools (`toolsOf`).
function diffMarks(spec, keys, act) {
  return Extension.create({
    name: 'diffMarks',
    addProseMirrorPlugins() {
      return [
        new Plugin({
          state: {
            init: (_, state) => DecorationSet.create(state.doc, [...decorationsOf(state.doc, spec), ...toolsOf(state.doc, keys, act)]),
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

/// Blocks (the editor's JSON, marked) rendered with their marks. With
/// `keys` (each block's key, or null), the blocks are named by them, and
/// with `onComment` too, each keyed block has a button commenting on it
/// (`onComment(key)`).
function MarkedBlocks({ nodes, label, keys, onComment }) {
  const content = useMemo(() => ({ type: 'doc', content: nodes.length ? nodes : [{ type: 'paragraph' }] }), [nodes]);
  const act = useRef(onComment);
  act.current = onComment;
  const commentable = Boolean(onComment);
  const more = useMemo(() => [diffMarks(content, keys, commentable ? act : null)], [content, keys, commentable]);
  // The rendered changes are read, not edited: not a text box (and the
  // comment buttons may sit in them).
  const attributes = keys ? { role: 'group' } : undefined;
  return (
    <div class={`diff-doc${commentable ? ' commentable' : ''}`}>
      <DocumentView content={content} more={more} label={label} attributes={attributes} />
    </div>
  );
}

/// Blocks `from` to `to` of a diff, rendered, what `beneath` has for a
/// block (its comments, a form) drawn right under it: the blocks are cut
/// into runs, each ending with a block that has something beneath.
function BlockRuns({ items, from, to, label, beneath, onComment }) {
  const runs = [];
  let start = from;
  for (let k = from; k < to; k += 1) {
    if (beneath[k] || k === to - 1) {
      runs.push([start, k + 1]);
      start = k + 1;
    }
  }
  return runs.map(([a, b]) => (
    <Fragment key={a}>
      <BlockRun items={items} from={a} to={b} label={label} onComment={onComment} />
      {beneath[b - 1] && (
        <div class="block-beneath" data-for-block={items[b - 1].key}>
          {beneath[b - 1]}
        </div>
      )}
    </Fragment>
  ));
}

/// Blocks `from` to `to` of a diff, in one rendered document.
function BlockRun({ items, from, to, label, onComment }) {
  const nodes = useMemo(() => items.slice(from, to).map((item) => item.node), [items, from, to]);
  const keys = useMemo(() => items.slice(from, to).map((item) => item.key ?? null), [items, from, to]);
  return <MarkedBlocks nodes={nodes} keys={keys} label={label} onComment={onComment} />;
}

/// Unchanged blocks folded away: a button saying how many, showing them.
function Fold({ count, onOpen }) {
  return (
    <button type="button" class="diff-fold" onClick={onOpen}>
      {count} unchanged block{count === 1 ? '' : 's'} · Show
    </button>
  );
}

/// Blocks unfolded, focused when just shown (`focus.current` their first
/// item's index).
function Unfolded({ from, focus, children }) {
  const here = useRef(null);
  useEffect(() => {
    if (focus.current !== from) return;
    focus.current = null;
    here.current?.focus();
  }, []);
  return (
    <div ref={here} tabIndex={-1} class="diff-unfolded">
      {children}
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
/// words marked), long runs of unchanged blocks folded. `commenting`, when
/// given: `beneath(item, index)`, what to draw right under a block (its
/// comments, a form; a block with something is never folded away), and
/// `onComment(key)`, when blocks may be commented on (each block of the
/// new version then has a button).
export function ChangesView({ diff, label, commenting }) {
  const beneath = diff.items.map((item, index) => (commenting ? commenting.beneath(item, index) : null) || null);
  // Which blocks have something beneath, as text (the parts change with it).
  const marked = beneath.map((b) => (b ? 1 : 0)).join('');
  const parts = useMemo(() => foldUnchanged(diff.items, { keep: (_, index) => marked[index] === '1' }), [diff, marked]);
  // The items unfolded (kept when a fold is cut in two), and the fold
  // to focus once shown.
  const [unfolded, setUnfolded] = useState(() => new Set());
  const focus = useRef(null);
  const unfold = (part) => {
    focus.current = part.from;
    setUnfolded((set) => new Set([...set, ...part.items.map((_, k) => part.from + k)]));
  };
  const runs = (part) => (
    <BlockRuns
      items={diff.items}
      from={part.from}
      to={part.from + part.items.length}
      label={label}
      beneath={beneath}
      onComment={commenting?.onComment}
    />
  );
  return (
    <div class="rendered-diff">
      <p class="muted diff-summary">
        {diffSummary(diff.items)}
        {diff.capped && ' Parts too large to compare word by word are marked whole.'}
      </p>
      {parts.map((part) => {
        if (!part.folded) return <Fragment key={`shown-${part.from}`}>{runs(part)}</Fragment>;
        if (!unfolded.has(part.from)) return <Fold key={`fold-${part.from}`} count={part.items.length} onOpen={() => unfold(part)} />;
        return (
          <Unfolded key={`unfolded-${part.from}`} from={part.from} focus={focus}>
            {runs(part)}
          </Unfolded>
        );
      })}
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
