// Differences shown to reviewers, as pure functions (no DOM): lines of
// markdown, words within a line or a block, and the top-level blocks of two
// JSON documents (GitBook's `JSONDocument`), each block compared by its JSON
// with its `key`s left out (and carrying its key in the new version, what
// comments on it name). Every comparison is a longest common
// subsequence over what is left once the common start and end are put
// aside, and is capped (`MAX_CELLS`): above the cap, what differs is marked
// whole (a whole line, a whole block) so a huge page never freezes the tab.
import { toEditor } from './editor/document.js';

/// The most cells (items of one side times items of the other) one
/// comparison's table may have.
export const MAX_CELLS = 4_000_000;

/// The most cells all the comparisons of one page may use together.
export const PAGE_CELLS = 6 * MAX_CELLS;

/// How `x` becomes `y` (arrays of strings, equal when ===): each item kept
/// (`{ kind: 'same', i, j }`), removed (`{ kind: 'removed', i }`) or added
/// (`{ kind: 'added', j }`), in order. `capped` when the part that differs
/// was too large to compare (`cap` cells, or what is left of `budget.cells`)
/// and is marked removed then added whole.
export function sequenceDiff(x, y, { cap = MAX_CELLS, budget } = {}) {
  const ops = [];
  let start = 0;
  while (start < x.length && start < y.length && x[start] === y[start]) {
    ops.push({ kind: 'same', i: start, j: start });
    start += 1;
  }
  let endX = x.length;
  let endY = y.length;
  while (endX > start && endY > start && x[endX - 1] === y[endY - 1]) {
    endX -= 1;
    endY -= 1;
  }
  const n = endX - start;
  const m = endY - start;
  const cells = n * m;
  const capped = cells > cap || (budget !== undefined && cells > budget.cells);
  if (capped || n === 0 || m === 0) {
    for (let i = start; i < endX; i += 1) ops.push({ kind: 'removed', i });
    for (let j = start; j < endY; j += 1) ops.push({ kind: 'added', j });
  } else {
    if (budget) budget.cells -= cells;
    // lcs[a * (m + 1) + b]: the longest common subsequence of the middle's
    // items from a and from b on (at most min(n, m), under 65,536 here).
    const width = m + 1;
    const lcs = new (Math.min(n, m) < 65536 ? Uint16Array : Uint32Array)((n + 1) * width);
    for (let a = n - 1; a >= 0; a -= 1) {
      const xa = x[start + a];
      for (let b = m - 1; b >= 0; b -= 1) {
        lcs[a * width + b] = xa === y[start + b] ? lcs[(a + 1) * width + b + 1] + 1 : Math.max(lcs[(a + 1) * width + b], lcs[a * width + b + 1]);
      }
    }
    let a = 0;
    let b = 0;
    while (a < n && b < m) {
      if (x[start + a] === y[start + b]) {
        ops.push({ kind: 'same', i: start + a, j: start + b });
        a += 1;
        b += 1;
      } else if (lcs[(a + 1) * width + b] >= lcs[a * width + b + 1]) {
        ops.push({ kind: 'removed', i: start + a });
        a += 1;
      } else {
        ops.push({ kind: 'added', j: start + b });
        b += 1;
      }
    }
    while (a < n) ops.push({ kind: 'removed', i: start + a++ });
    while (b < m) ops.push({ kind: 'added', j: start + b++ });
  }
  for (let k = 0; endX + k < x.length; k += 1) ops.push({ kind: 'same', i: endX + k, j: endY + k });
  return { ops, capped };
}

/// Lines of `a` and `b` as a diff: each line kept, removed or added
/// (`{ kind, text }`).
export function lineDiff(a, b, options) {
  const x = a.split('\n');
  const y = b.split('\n');
  return sequenceDiff(x, y, options).ops.map((op) => (op.kind === 'added' ? { kind: 'added', text: y[op.j] } : { kind: op.kind, text: x[op.i] }));
}

// A word, a character of the scripts written without spaces, a run of
// white space, or any other character (punctuation, a symbol).
const TOKEN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]|[\p{L}\p{M}\p{N}_]+|\s+|[^]/gu;

/// A text's words, white space and punctuation, in order (joined, the text).
export function tokenize(text) {
  return text.match(TOKEN) ?? [];
}

const isSpace = (token) => /^\s+$/.test(token);

/// The changes between two token lists (compared by `keysA`/`keysB`, the
/// tokens' text and whatever else must match): runs kept
/// (`{ kind: 'same', a: [from, to], b: [from, to] }`, token indices) and
/// runs changed (`kind: 'change'`, either side possibly empty). White space
/// alone between two changes joins them, so "the quick brown" to "a slow
/// red" reads as one change rather than three.
function changeRuns(tokensA, tokensB, keysA, keysB, options) {
  const { ops, capped } = sequenceDiff(keysA, keysB, options);
  slide(ops, 'added', 'j', tokensB, keysB);
  slide(ops, 'removed', 'i', tokensA, keysA);
  const runs = [];
  let i = 0;
  let j = 0;
  for (const op of ops) {
    const kind = op.kind === 'same' ? 'same' : 'change';
    const last = runs[runs.length - 1];
    if (last?.kind !== kind) runs.push({ kind, a: [i, i], b: [j, j] });
    const run = runs[runs.length - 1];
    if (op.kind !== 'added') run.a[1] = i += 1;
    if (op.kind !== 'removed') run.b[1] = j += 1;
  }
  const joined = [];
  for (let k = 0; k < runs.length; k += 1) {
    const run = runs[k];
    const prev = joined[joined.length - 1];
    const spaceOnly = run.kind === 'same' && tokensA.slice(run.a[0], run.a[1]).every(isSpace);
    if (spaceOnly && prev?.kind === 'change' && runs[k + 1]?.kind === 'change') {
      prev.a[1] = runs[k + 1].a[1];
      prev.b[1] = runs[k + 1].b[1];
      k += 1;
    } else if (run.kind === 'change' && prev?.kind === 'change') {
      prev.a[1] = run.a[1];
      prev.b[1] = run.b[1];
    } else {
      joined.push({ kind: run.kind, a: [...run.a], b: [...run.b] });
    }
  }
  return { runs: joined, capped };
}

/// Moves each run of tokens only added (or only removed) that starts with
/// white space past the same white space kept after it, so the run starts
/// with a word: "every[ single] edit" becomes "every [single ]edit".
function slide(ops, kind, side, tokens, keys) {
  for (let k = 0; k < ops.length; k += 1) {
    if (ops[k].kind !== kind || ops[k - 1]?.kind === kind) continue;
    let end = k;
    while (ops[end]?.kind === kind) end += 1;
    // ops[k..end) the run; ops[end] what follows it.
    while (ops[end]?.kind === 'same' && isSpace(tokens[ops[k][side]]) && keys[ops[k][side]] === keys[ops[end][side]]) {
      const kept = ops[end];
      const first = ops[k][side];
      for (let r = k; r < end; r += 1) ops[r][side] += 1;
      ops.splice(end, 1);
      ops.splice(k, 0, { ...kept, [side]: first });
      k += 1;
      end += 1;
    }
    k = end - 1;
  }
}

/// Offsets in a text of each of its tokens' starts (and of its end).
function offsets(tokens) {
  const out = [0];
  for (const token of tokens) out.push(out[out.length - 1] + token.length);
  return out;
}

/// The changes between two token lists as pieces of text: kept, removed
/// and added (`{ kind, a: [from, to] | null, b: [from, to] | null }`,
/// character offsets), a change's removed piece before its added one.
function pieces(tokensA, tokensB, keysA, keysB, options) {
  const { runs, capped } = changeRuns(tokensA, tokensB, keysA, keysB, options);
  const atA = offsets(tokensA);
  const atB = offsets(tokensB);
  const out = [];
  for (const run of runs) {
    const a = [atA[run.a[0]], atA[run.a[1]]];
    const b = [atB[run.b[0]], atB[run.b[1]]];
    if (run.kind === 'same') out.push({ kind: 'same', a, b });
    else {
      if (a[1] > a[0]) out.push({ kind: 'removed', a, b: null });
      if (b[1] > b[0]) out.push({ kind: 'added', a: null, b });
    }
  }
  return { pieces: out, capped };
}

/// Word by word, how `a` becomes `b`: pieces of text kept, removed and
/// added (`{ kind, text }`). Above the cap, `a` removed and `b` added whole.
export function wordDiff(a, b, options) {
  const x = tokenize(a);
  const y = tokenize(b);
  return pieces(x, y, x, y, options).pieces.map((p) => ({ kind: p.kind, text: p.kind === 'added' ? b.slice(...p.b) : a.slice(...p.a) }));
}

/// How much of two texts is kept (0 to 1): the characters other than white
/// space in kept pieces, out of the longer side's.
function likeness(list, a, b) {
  const solid = (text) => text.replace(/\s+/g, '').length;
  const most = Math.max(solid(a), solid(b));
  if (most === 0) return 1;
  return list.filter((p) => p.kind === 'same').reduce((sum, p) => sum + solid(a.slice(...p.a)), 0) / most;
}

/// A line diff with the words that changed marked: each removed line
/// paired with an added line of the same change (in order) gets `parts`
/// (`{ kind, text }`: its kept and removed words, or kept and added), when
/// the two lines have words in common.
export function markLines(lines, { budget = { cells: PAGE_CELLS } } = {}) {
  const out = lines.map((line) => ({ ...line }));
  let k = 0;
  while (k < out.length) {
    if (out[k].kind === 'same') {
      k += 1;
      continue;
    }
    const removed = [];
    const added = [];
    for (; k < out.length && out[k].kind !== 'same'; k += 1) (out[k].kind === 'removed' ? removed : added).push(out[k]);
    for (let p = 0; p < Math.min(removed.length, added.length); p += 1) {
      const a = removed[p].text;
      const b = added[p].text;
      const x = tokenize(a);
      const y = tokenize(b);
      const found = pieces(x, y, x, y, { budget });
      if (found.capped || likeness(found.pieces, a, b) === 0) continue;
      removed[p].parts = found.pieces.filter((q) => q.kind !== 'added').map((q) => ({ kind: q.kind, text: a.slice(...q.a) }));
      added[p].parts = found.pieces.filter((q) => q.kind !== 'removed').map((q) => ({ kind: q.kind, text: b.slice(...q.b) }));
    }
  }
  return out;
}

/// A JSON value without its `key` fields (the ids GitBook gives every
/// node), but for the ones marking HTML kept as written (`quire-html-…`),
/// which say how the node is shown.
export function withoutKeys(value) {
  if (Array.isArray(value)) return value.map(withoutKeys);
  if (!value || typeof value !== 'object') return value;
  const out = {};
  for (const name of Object.keys(value).sort()) {
    if (name === 'key' && !String(value.key).startsWith('quire-html-')) continue;
    out[name] = withoutKeys(value[name]);
  }
  return out;
}

/// The words of a block (of the API's JSON or the editor's: every `text`
/// in it), as a set.
function wordsOf(block) {
  const words = new Set();
  const walk = (value) => {
    if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === 'object') {
      if (typeof value.text === 'string') {
        for (const token of tokenize(value.text.toLowerCase())) if (/[\p{L}\p{N}]/u.test(token)) words.add(token);
      }
      Object.values(value).forEach(walk);
    }
  };
  walk(block);
  return words;
}

/// How alike two sets of words are (0 to 1: shared words out of all).
function overlap(x, y) {
  let shared = 0;
  for (const word of x) if (y.has(word)) shared += 1;
  const all = x.size + y.size - shared;
  return all === 0 ? 0 : shared / all;
}

/// How far ahead a removed block's counterpart is looked for.
const PAIR_WINDOW = 20;

/// Pairs removed and added items of one change, in order, when they have
/// the same type: what one block became (the most alike in words of the
/// next few added, or, in a change of one block to one block, that block).
/// Returns the change's items in reading order: `removed`, `added` and
/// `changed` (`{ old, new }`).
function pairUp(removed, added, typeOf) {
  const pairs = [];
  if (removed.length && added.length) {
    const words = new Map();
    const wordsAt = (list, k) => {
      const key = `${list === removed ? 'r' : 'a'}${k}`;
      if (!words.has(key)) words.set(key, wordsOf(list[k]));
      return words.get(key);
    };
    let from = 0;
    for (let r = 0; r < removed.length && from < added.length; r += 1) {
      let best = -1;
      let score = 0;
      for (let a = from; a < Math.min(added.length, from + PAIR_WINDOW); a += 1) {
        if (typeOf(removed[r]) !== typeOf(added[a])) continue;
        const like = overlap(wordsAt(removed, r), wordsAt(added, a));
        if (like > score) [best, score] = [a, like];
      }
      if (best < 0 && removed.length === 1 && added.length === 1 && typeOf(removed[0]) === typeOf(added[0])) best = 0;
      if (best < 0) continue;
      pairs.push([r, best]);
      from = best + 1;
    }
  }
  const out = [];
  let r = 0;
  let a = 0;
  for (const [pr, pa] of [...pairs, [removed.length, added.length]]) {
    while (r < pr) out.push({ kind: 'removed', old: removed[r++] });
    while (a < pa) out.push({ kind: 'added', new: added[a++] });
    if (pr < removed.length) out.push({ kind: 'changed', old: removed[r++], new: added[a++] });
  }
  return out;
}

/// How a list of blocks became another: each block kept
/// (`{ kind: 'same', old, new }`), removed, added, or changed (a removed
/// block paired with the added one of the same type that replaced it).
/// Blocks are compared by `keyOf` (their JSON without keys, by default).
export function blockDiff(before, after, { keyOf = (b) => JSON.stringify(withoutKeys(b)), typeOf = (b) => b.type, ...options } = {}) {
  const { ops, capped } = sequenceDiff(before.map(keyOf), after.map(keyOf), options);
  const out = [];
  let removed = [];
  let added = [];
  const flush = () => {
    out.push(...pairUp(removed, added, typeOf));
    removed = [];
    added = [];
  };
  for (const op of ops) {
    if (op.kind === 'removed') removed.push(before[op.i]);
    else if (op.kind === 'added') added.push(after[op.j]);
    else {
      flush();
      out.push({ kind: 'same', old: before[op.i], new: after[op.j] });
    }
  }
  flush();
  return { ops: out, capped };
}

// What is marked in the editor's JSON (the editor's document, the blocks
// the page is rendered with): a node removed, added or changed has `diff`
// ('removed', 'added', 'changed'); a paragraph or heading with words
// removed or added has `diffRanges` (`{ from, to, kind }`, offsets in its
// inline content, where a character or an inline node counts one).

/// Blocks whose words are compared (`marks` allowed in them).
const TEXT_BLOCKS = new Set(['paragraph', 'heading']);

/// Blocks holding blocks whose children are compared one by one.
const HOLDERS = new Set(['bulletList', 'orderedList', 'taskList', 'listItem', 'taskItem', 'blockquote', 'hint']);

/// Below this likeness, a paragraph rewritten shows as removed and added
/// rather than word by word.
const LEAST_LIKENESS = 0.3;

const OBJECT = '\uFFFC';

/// A block's inline content as text (an inline node as one character) and
/// what each character carries: its marks' id, or the inline node.
function inlineUnits(content = [], markIds) {
  let text = '';
  const marks = [];
  const nodes = [];
  for (const node of content) {
    if (node.type === 'text') {
      const json = JSON.stringify(node.marks ?? []);
      if (!markIds.has(json)) markIds.set(json, markIds.size);
      text += node.text;
      for (let k = 0; k < node.text.length; k += 1) {
        marks.push(markIds.get(json));
        nodes.push(null);
      }
    } else {
      text += OBJECT;
      marks.push(-1);
      nodes.push(node);
    }
  }
  return { text, marks, nodes };
}

/// The tokens of inline units, and the keys they are compared by: their
/// text, marks and inline node.
function inlineTokens(units) {
  const tokens = tokenize(units.text);
  const keys = [];
  let at = 0;
  for (const token of tokens) {
    const node = units.nodes[at];
    keys.push(`${token}\u0001${units.marks.slice(at, at + token.length).join(',')}${node ? `\u0001${JSON.stringify(node)}` : ''}`);
    at += token.length;
  }
  return { tokens, keys };
}

/// Inline content from units `from` to `to`, onto `out`: text of the same
/// marks as one text node, inline nodes as they were.
function inlineSlice(units, [from, to], out) {
  let k = from;
  while (k < to) {
    if (units.nodes[k]) {
      out.push(units.nodes[k]);
      k += 1;
      continue;
    }
    let end = k;
    while (end < to && !units.nodes[end] && units.marks[end] === units.marks[k]) end += 1;
    const text = units.text.slice(k, end);
    const marks = units.markList[units.marks[k]];
    out.push(marks.length ? { type: 'text', text, marks } : { type: 'text', text });
    k = end;
  }
}

/// A paragraph or heading changed, word by word: the merged node (removed
/// and added words both there), the old one (removed words marked) and
/// the new one (added words marked); null when too different to read so.
function mergeText(a, b, context) {
  const markIds = new Map();
  const ua = inlineUnits(a.content, markIds);
  const ub = inlineUnits(b.content, markIds);
  const markList = [...markIds.keys()].map((json) => JSON.parse(json));
  ua.markList = markList;
  ub.markList = markList;
  const ta = inlineTokens(ua);
  const tb = inlineTokens(ub);
  const found = pieces(ta.tokens, tb.tokens, ta.keys, tb.keys, { budget: context.budget });
  if (found.capped) context.capped = true;
  if (found.capped || likeness(found.pieces, ua.text, ub.text) < LEAST_LIKENESS) return null;
  const sides = { both: [], old: [], new: [] };
  const ranges = { both: [], old: [], new: [] };
  const lengths = { both: 0, old: 0, new: 0 };
  const put = (side, units, span, kind) => {
    const from = lengths[side];
    inlineSlice(units, span, sides[side]);
    lengths[side] += span[1] - span[0];
    if (kind !== 'same') ranges[side].push({ from, to: lengths[side], kind });
  };
  for (const p of found.pieces) {
    if (p.kind === 'same') {
      put('both', ub, p.b, 'same');
      put('old', ua, p.a, 'same');
      put('new', ub, p.b, 'same');
    } else if (p.kind === 'removed') {
      put('both', ua, p.a, 'removed');
      put('old', ua, p.a, 'removed');
    } else {
      put('both', ub, p.b, 'added');
      put('new', ub, p.b, 'added');
    }
  }
  const node = (side, from) => ({ ...from, content: joinText(sides[side]), diffRanges: ranges[side] });
  return { both: node('both', b), old: node('old', a), new: node('new', b) };
}

/// Inline content with neighbouring text of the same marks joined.
function joinText(list) {
  const out = [];
  for (const node of list) {
    const last = out[out.length - 1];
    if (node.type === 'text' && last?.type === 'text' && JSON.stringify(last.marks ?? []) === JSON.stringify(node.marks ?? [])) {
      out[out.length - 1] = { ...last, text: last.text + node.text };
    } else out.push(node);
  }
  return out;
}

/// Two versions of a block (the editor's JSON) as one with what changed
/// marked: `{ both, old, new }` (see `mergeText`), or null when they cannot
/// be shown so (types or settings differ, a block not compared inside).
function mergeBlock(a, b, context) {
  if (a.type !== b.type) return null;
  if (TEXT_BLOCKS.has(a.type)) {
    if (a.type === 'heading' && a.attrs?.level !== b.attrs?.level) return null;
    return mergeText(a, b, context);
  }
  if (!HOLDERS.has(a.type) || JSON.stringify(a.attrs ?? {}) !== JSON.stringify(b.attrs ?? {})) return null;
  const { ops, capped } = blockDiff(a.content ?? [], b.content ?? [], { keyOf: JSON.stringify, budget: context.budget });
  if (capped) context.capped = true;
  const sides = { both: [], old: [], new: [] };
  for (const op of ops) {
    if (op.kind === 'same') {
      sides.both.push(op.new);
      sides.old.push(op.old);
      sides.new.push(op.new);
      continue;
    }
    const merged = op.kind === 'changed' ? mergeBlock(op.old, op.new, context) : null;
    if (merged) {
      sides.both.push(merged.both);
      sides.old.push(merged.old);
      sides.new.push(merged.new);
      continue;
    }
    if (op.old) {
      const removed = { ...op.old, diff: 'removed' };
      sides.both.push(removed);
      sides.old.push(removed);
    }
    if (op.new) {
      const added = { ...op.new, diff: 'added' };
      sides.both.push(added);
      sides.new.push(added);
    }
  }
  return { both: { ...b, content: sides.both }, old: { ...a, content: sides.old }, new: { ...b, content: sides.new } };
}

/// A JSON block as the editor's JSON (what the page is rendered from).
function editorBlock(block) {
  return toEditor({ nodes: [block] }).content[0];
}

/// How a page's JSON document became another, block by block, for
/// rendering: items `{ kind, node, old, new, key, anchor }` where `kind` is
/// 'same', 'removed', 'added' or 'changed', `node` the block to show in the
/// changes (the editor's JSON, marked), `old` and `new` the block to show
/// on each side (null on the side it is not on). `key` is the block's
/// `key` in `after` (what a comment on the block names) and `anchor` its
/// `data.id` there when it is a heading (what older comments name); both
/// are null for a removed block. A changed block that cannot be shown word
/// by word is a removed block and an added one. `capped` when something
/// was too large to compare finely.
export function documentDiff(before, after, { budget = { cells: PAGE_CELLS } } = {}) {
  const x = (before?.nodes ?? []).map(withoutKeys);
  const afterNodes = after?.nodes ?? [];
  const y = afterNodes.map(withoutKeys);
  // The block of `after` each block of `y` is (`y` has its keys left out).
  const sourceOf = new Map(y.map((block, k) => [block, afterNodes[k]]));
  const namesOf = (block) => {
    const source = sourceOf.get(block);
    const anchor = /^heading-/.test(source?.type ?? '') ? source.data?.id : null;
    return { key: source?.key ?? null, anchor: anchor ?? null };
  };
  const gone = { key: null, anchor: null };
  const context = { budget, capped: false };
  const { ops, capped } = blockDiff(x, y, { keyOf: JSON.stringify, budget });
  const items = [];
  for (const op of ops) {
    if (op.kind === 'same') {
      const node = editorBlock(op.new);
      items.push({ kind: 'same', node, old: node, new: node, ...namesOf(op.new) });
      continue;
    }
    const merged = op.kind === 'changed' ? mergeBlock(editorBlock(op.old), editorBlock(op.new), context) : null;
    if (merged) {
      items.push({
        kind: 'changed',
        node: { ...merged.both, diff: 'changed' },
        old: { ...merged.old, diff: 'changed' },
        new: { ...merged.new, diff: 'changed' },
        ...namesOf(op.new),
      });
      continue;
    }
    if (op.old) {
      const node = { ...editorBlock(op.old), diff: 'removed' };
      items.push({ kind: 'removed', node, old: node, new: null, ...gone });
    }
    if (op.new) {
      const node = { ...editorBlock(op.new), diff: 'added' };
      items.push({ kind: 'added', node, old: null, new: node, ...namesOf(op.new) });
    }
  }
  return { items, capped: capped || context.capped };
}

/// Items of a document diff in parts to show and parts folded away:
/// `{ folded, from, items }` (`from` the index of the part's first item),
/// a fold being a run of at least `least` unchanged blocks (`context`
/// unchanged blocks are kept shown beside each change). Items `keep` says
/// yes to (given the item and its index) are never folded: they are shown
/// like a change, with their context.
export function foldUnchanged(items, { context = 1, least = 3, keep = () => false } = {}) {
  const parts = [];
  const push = (folded, from, to) => {
    if (to <= from) return;
    const list = items.slice(from, to);
    const last = parts[parts.length - 1];
    if (!folded && last && !last.folded) last.items.push(...list);
    else parts.push({ folded, from, items: list });
  };
  const shown = (k) => items[k].kind !== 'same' || keep(items[k], k);
  let k = 0;
  while (k < items.length) {
    if (shown(k)) {
      push(false, k, k + 1);
      k += 1;
      continue;
    }
    let end = k;
    while (end < items.length && !shown(end)) end += 1;
    const before = k === 0 ? 0 : context;
    const after = end === items.length ? 0 : context;
    if (end - k - before - after >= least) {
      push(false, k, k + before);
      push(true, k + before, end - after);
      push(false, end - after, end);
    } else push(false, k, end);
    k = end;
  }
  return parts;
}
