// The review's diffs (src/diff.js), without a browser:
//   node --test web/tests/diff.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { documentDiff, foldUnchanged, lineDiff, markLines, sequenceDiff, tokenize, wordDiff } from '../src/diff.js';

/// A paragraph of the API's JSON document, with GitBook's keys.
function paragraph(text, key = Math.random().toString(36).slice(2)) {
  return { object: 'block', type: 'paragraph', key, data: {}, nodes: [{ object: 'text', key: `${key}-t`, leaves: [{ object: 'leaf', text, marks: [] }] }] };
}

function heading(text, { key = 'h', id } = {}) {
  return { object: 'block', type: 'heading-2', key, data: id ? { id } : {}, nodes: [{ object: 'text', leaves: [{ object: 'leaf', text, marks: [] }] }] };
}

const doc = (...nodes) => ({ object: 'document', data: {}, nodes });

/// The text of the editor's JSON node, and its marked ranges' text.
const textOf = (node) => (node.content ?? []).map((n) => n.text ?? '').join('');
const marked = (node) => (node.diffRanges ?? []).map((r) => [r.kind, textOf(node).slice(r.from, r.to)]);

test('words, white space and punctuation are tokens', () => {
  assert.deepEqual(tokenize('Hello, wide  world!'), ['Hello', ',', ' ', 'wide', '  ', 'world', '!']);
  assert.deepEqual(tokenize('日本語 ok'), ['日', '本', '語', ' ', 'ok']);
});

test('identical documents have no marks (keys aside)', () => {
  const before = doc(heading('Title'), paragraph('One two three.', 'a'), paragraph('Four.', 'b'));
  const after = doc(heading('Title'), paragraph('One two three.', 'x'), paragraph('Four.', 'y'));
  const { items, capped } = documentDiff(before, after);
  assert.equal(capped, false);
  assert.deepEqual(items.map((i) => i.kind), ['same', 'same', 'same']);
  for (const item of items) {
    assert.equal(item.node.diff, undefined);
    assert.equal(item.node.diffRanges, undefined);
  }
  assert.deepEqual(wordDiff('same text', 'same text'), [{ kind: 'same', text: 'same text' }]);
  assert.ok(lineDiff('a\nb', 'a\nb').every((line) => line.kind === 'same'));
});

test('one word changed in a paragraph marks exactly that word', () => {
  assert.deepEqual(wordDiff('The quick brown fox.', 'The slow brown fox.'), [
    { kind: 'same', text: 'The ' },
    { kind: 'removed', text: 'quick' },
    { kind: 'added', text: 'slow' },
    { kind: 'same', text: ' brown fox.' },
  ]);
  const { items } = documentDiff(doc(paragraph('Intro.'), paragraph('The quick brown fox.')), doc(paragraph('Intro.'), paragraph('The slow brown fox.')));
  assert.deepEqual(items.map((i) => i.kind), ['same', 'changed']);
  const changed = items[1];
  assert.equal(changed.node.diff, 'changed');
  assert.equal(textOf(changed.node), 'The quickslow brown fox.');
  assert.deepEqual(marked(changed.node), [['removed', 'quick'], ['added', 'slow']]);
  // Each side: the old text with the word removed, the new with it added.
  assert.deepEqual(marked(changed.old), [['removed', 'quick']]);
  assert.equal(textOf(changed.old), 'The quick brown fox.');
  assert.deepEqual(marked(changed.new), [['added', 'slow']]);
  assert.equal(textOf(changed.new), 'The slow brown fox.');
});

test('a block inserted in the middle is one added block, its neighbours unchanged', () => {
  const before = doc(paragraph('First.'), paragraph('Last.'));
  const after = doc(paragraph('First.'), paragraph('In between.'), paragraph('Last.'));
  const { items } = documentDiff(before, after);
  assert.deepEqual(items.map((i) => i.kind), ['same', 'added', 'same']);
  assert.equal(items[1].node.diff, 'added');
  assert.equal(items[1].old, null);
  assert.equal(textOf(items[1].new), 'In between.');
  assert.equal(items[0].node.diff, undefined);
  assert.equal(items[2].node.diff, undefined);
});

test('a rewritten paragraph is removed and added rather than word by word', () => {
  const { items } = documentDiff(doc(paragraph('Completely different words here.')), doc(paragraph('Nothing alike at all.')));
  assert.deepEqual(items.map((i) => i.kind), ['removed', 'added']);
});

test('each block of the new version carries its key there, a heading its anchor', () => {
  const before = doc(
    heading('Title', { key: 'old-h', id: 'title' }),
    paragraph('Kept as it was.', 'old-a'),
    paragraph('The quick brown fox.', 'old-b'),
    paragraph('Gone entirely now.', 'old-c'),
  );
  const after = doc(
    heading('Title', { key: 'b0123456789abcdef', id: 'title' }),
    paragraph('Kept as it was.', 'b1111111111111111'),
    paragraph('The slow brown fox.', 'b2222222222222222'),
    paragraph('Something else.', 'b3333333333333333'),
    paragraph('Kept as it was.', 'b1111111111111111-2'),
  );
  const { items } = documentDiff(before, after);
  assert.deepEqual(
    items.map((i) => [i.kind, i.key, i.anchor]),
    [
      ['same', 'b0123456789abcdef', 'title'],
      ['same', 'b1111111111111111', null],
      ['changed', 'b2222222222222222', null],
      ['removed', null, null],
      ['added', 'b3333333333333333', null],
      ['added', 'b1111111111111111-2', null],
    ],
  );
  // The keys are carried beside the blocks, not compared: the diff is
  // the one of the blocks without them.
  assert.equal(items[0].node.diff, undefined);
  // A block rewritten past word by word is removed, then added with its key.
  const rewritten = documentDiff(doc(paragraph('Completely different words here.', 'k1')), doc(paragraph('Nothing alike at all.', 'k2'))).items;
  assert.deepEqual(rewritten.map((i) => [i.kind, i.key]), [['removed', null], ['added', 'k2']]);
  // A deleted page: every block removed, none with a key.
  assert.ok(documentDiff(before, null).items.every((i) => i.kind === 'removed' && i.key === null));
});

test('a changed list item is marked inside the list', () => {
  const list = (...texts) => ({
    object: 'block',
    type: 'list-unordered',
    data: {},
    nodes: texts.map((t) => ({ object: 'block', type: 'list-item', data: {}, nodes: [paragraph(t)] })),
  });
  const { items } = documentDiff(doc(list('alpha beta', 'gamma')), doc(list('new item', 'alpha delta', 'gamma')));
  assert.deepEqual(items.map((i) => i.kind), ['changed']);
  const [added, changed, same] = items[0].node.content;
  assert.equal(added.diff, 'added');
  assert.deepEqual(marked(changed.content[0]), [['removed', 'beta'], ['added', 'delta']]);
  assert.equal(same.diff, undefined);
});

test('a markdown line replaced has its changed words marked', () => {
  const lines = markLines(lineDiff('a\nhello wide world\nc', 'a\nhello big world\nc'));
  assert.deepEqual(lines.map((l) => l.kind), ['same', 'removed', 'added', 'same']);
  assert.deepEqual(lines[1].parts, [{ kind: 'same', text: 'hello ' }, { kind: 'removed', text: 'wide' }, { kind: 'same', text: ' world' }]);
  assert.deepEqual(lines[2].parts, [{ kind: 'same', text: 'hello ' }, { kind: 'added', text: 'big' }, { kind: 'same', text: ' world' }]);
});

test('above the size cap, what differs is marked whole, at once', () => {
  const words = (n, w) => Array.from({ length: n }, (_, i) => `${w}${i}`).join(' ');
  const a = words(3000, 'a');
  const b = words(3000, 'b');
  const started = performance.now();
  assert.deepEqual(wordDiff(`Same ${a}`, `Same ${b}`), [
    { kind: 'same', text: 'Same ' },
    { kind: 'removed', text: a },
    { kind: 'added', text: b },
  ]);
  assert.equal(sequenceDiff(['x', 'y'], ['z', 'w'], { cap: 3 }).capped, true);
  assert.deepEqual(
    sequenceDiff(['x', 'y'], ['z', 'w'], { cap: 3 }).ops.map((op) => op.kind),
    ['removed', 'removed', 'added', 'added'],
  );
  // A paragraph too large to compare word by word: removed and added whole.
  const { items, capped } = documentDiff(doc(paragraph(`Same ${a}`)), doc(paragraph(`Same ${b}`)));
  assert.equal(capped, true);
  assert.deepEqual(items.map((i) => i.kind), ['removed', 'added']);
  // Lines too: a long page whose every line changed.
  const many = (w) => Array.from({ length: 3000 }, (_, i) => `${w} ${i}`).join('\n');
  const diff = lineDiff(many('old'), many('new'));
  assert.equal(diff.filter((l) => l.kind === 'removed').length, 3000);
  assert.equal(diff.filter((l) => l.kind === 'added').length, 3000);
  assert.ok(performance.now() - started < 2000, 'fast');
});

test('long runs of unchanged blocks fold, a block of context kept', () => {
  const items = ['same', 'same', 'same', 'same', 'same', 'added', 'same', 'same', 'same', 'same', 'same', 'same', 'removed', 'same'].map((kind) => ({ kind }));
  const parts = foldUnchanged(items);
  assert.deepEqual(
    parts.map((p) => [p.folded, p.items.length]),
    [
      [true, 4],
      [false, 3],
      [true, 4],
      [false, 3],
    ],
  );
});

test('blocks to keep shown are never folded, with a block of context', () => {
  const items = Array.from({ length: 12 }, (_, k) => ({ kind: 'same', key: `k${k}` }));
  assert.deepEqual(foldUnchanged(items).map((p) => [p.folded, p.from, p.items.length]), [[true, 0, 12]]);
  const parts = foldUnchanged(items, { keep: (item) => item.key === 'k6' });
  assert.deepEqual(
    parts.map((p) => [p.folded, p.from, p.items.length]),
    [
      [true, 0, 5],
      [false, 5, 3],
      [true, 8, 4],
    ],
  );
  assert.deepEqual(parts[1].items.map((i) => i.key), ['k5', 'k6', 'k7']);
  // The index is given too.
  assert.deepEqual(
    foldUnchanged(items, { keep: (_, k) => k === 0 }).map((p) => [p.folded, p.from, p.items.length]),
    [
      [false, 0, 2],
      [true, 2, 10],
    ],
  );
});
