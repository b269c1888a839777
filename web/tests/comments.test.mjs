// Where the review shows a change request's comments (src/comments.js),
// without a browser:
//   node --test web/tests/comments.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { blockPlaces, commentsByPage, isBlockKey, placeComments } from '../src/comments.js';

/// A comment as the API lists it, about a page (and a node of it).
function comment(id, page, node) {
  const target = { space: 's', revision: 'r' };
  if (page) target.page = { id: page, title: 'Welcome', outdated: false };
  if (node) target.node = { id: node };
  return { id, body: { markdown: id }, target };
}

test('general comments apart, the others by page', () => {
  const { general, byPage } = commentsByPage([comment('g1'), comment('p1', 'A'), comment('p2', 'B', 'k'), comment('p3', 'A', 'x'), comment('g2')]);
  assert.deepEqual(general.map((c) => c.id), ['g1', 'g2']);
  assert.deepEqual([...byPage.keys()], ['A', 'B']);
  assert.deepEqual(byPage.get('A').map((c) => c.id), ['p1', 'p3']);
  assert.deepEqual(commentsByPage(null), { general: [], byPage: new Map() });
});

test('a comment on a block goes under it, by its key or a heading anchor; the rest are earlier', () => {
  const items = [
    { kind: 'same', key: 'b0000000000000001', anchor: 'getting-started' },
    { kind: 'removed', key: null, anchor: null },
    { kind: 'changed', key: 'b0000000000000002', anchor: null },
    { kind: 'added', key: 'b0000000000000003', anchor: null },
  ];
  assert.deepEqual([...blockPlaces(items)], [
    ['b0000000000000001', 0],
    ['b0000000000000002', 2],
    ['b0000000000000003', 3],
    ['getting-started', 0],
  ]);
  const comments = [
    comment('page', 'A'),
    comment('on-added', 'A', 'b0000000000000003'),
    comment('on-heading', 'A', 'getting-started'),
    comment('on-old-version', 'A', 'b00000000000000ff'),
    comment('on-key', 'A', 'b0000000000000001'),
  ];
  const { onPage, underBlock, earlier } = placeComments(comments, items);
  assert.deepEqual(onPage.map((c) => c.id), ['page']);
  assert.deepEqual([...underBlock].map(([index, list]) => [index, list.map((c) => c.id)]), [
    [3, ['on-added']],
    [0, ['on-heading', 'on-key']],
  ]);
  assert.deepEqual(earlier.map((c) => c.id), ['on-old-version']);
  // The page's blocks not known yet: comments on nodes wait.
  const waiting = placeComments(comments, null);
  assert.deepEqual(waiting.onPage.map((c) => c.id), ['page']);
  assert.equal(waiting.underBlock.size, 0);
  assert.deepEqual(waiting.earlier, []);
});

test('block keys are told from anchors', () => {
  assert.ok(isBlockKey('b3f2a9c01d4e5f678'));
  assert.ok(isBlockKey('b3f2a9c01d4e5f678-2'));
  assert.ok(isBlockKey('quire-html-3'));
  assert.ok(!isBlockKey('getting-started'));
  assert.ok(!isBlockKey('b'));
});
