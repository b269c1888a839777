// The editor's document conversions (`src/editor/document.js`): the API's
// JSON document into the editor's and back, for what must come back as it
// went in.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fromEditor, toEditor } from '../src/editor/document.js';

const text = (value, marks = []) => ({ object: 'text', leaves: [{ object: 'leaf', text: value, marks }] });
const tag = (value) => ({ object: 'text', key: 'quire-html-inline', leaves: [{ object: 'leaf', text: value, marks: [] }] });
const paragraph = (...nodes) => ({ object: 'block', type: 'paragraph', isVoid: false, data: {}, nodes });
const roundTrip = (nodes) => fromEditor(toEditor({ object: 'document', nodes })).nodes;

test('text between an inline HTML tag and its end is marked, and written back between them', () => {
  const nodes = [paragraph(text('Press '), tag('<kbd>'), text('Ctrl'), tag('</kbd>'), text(' and '), tag('<mark style="color:red;">'), text('this'), tag('</mark>'))];
  const editor = toEditor({ object: 'document', nodes });
  const marked = editor.content[0].content.filter((n) => n.marks?.some((m) => m.type === 'htmlTag'));
  assert.deepEqual(marked.map((n) => n.text), ['Ctrl', 'this']);
  assert.deepEqual(marked[1].marks[0].attrs, { open: '<mark style="color:red;">', close: '</mark>' });
  assert.deepEqual(roundTrip(nodes), nodes);
});

test('a tag without its end, or around more than text, stays a kept inline', () => {
  const nodes = [paragraph(text('a '), tag('<sup>'), text('b'))];
  const editor = toEditor({ object: 'document', nodes });
  assert.equal(editor.content[0].content.filter((n) => n.type === 'opaqueInline').length, 1);
  assert.deepEqual(roundTrip(nodes), nodes);
});

test('a link around an image is kept whole', () => {
  const image = { object: 'inline', type: 'inline-image', isVoid: true, data: { ref: { kind: 'url', url: 'https://x.test/a.png' } } };
  const link = { object: 'inline', type: 'link', isVoid: false, data: { ref: { kind: 'url', url: 'https://x.test' } }, nodes: [image] };
  const nodes = [paragraph(text('See '), link)];
  const editor = toEditor({ object: 'document', nodes });
  assert.deepEqual(editor.content[0].content.map((n) => n.type), ['text', 'opaqueInline']);
  assert.deepEqual(roundTrip(nodes), nodes);
});

test('a heading keeps its anchor while its text is the one the anchor was made for', () => {
  const heading = { object: 'block', type: 'heading-2', isVoid: false, data: { id: 'custom' }, nodes: [text('Section')] };
  assert.deepEqual(roundTrip([heading])[0].data, { id: 'custom' });
  const editor = toEditor({ object: 'document', nodes: [heading] });
  editor.content[0].content[0].text = 'Renamed section';
  assert.deepEqual(fromEditor(editor).nodes[0].data, {});
});

test('a list item beginning with a heading, and an empty one, come back as they were', () => {
  const heading = { object: 'block', type: 'heading-3', isVoid: false, data: { id: 't' }, nodes: [text('T')] };
  const item = (...nodes) => ({ object: 'block', type: 'list-item', isVoid: false, data: {}, nodes });
  const list = { object: 'block', type: 'list-unordered', isVoid: false, data: {}, nodes: [item(heading), item(), item(paragraph(text('x')))] };
  assert.deepEqual(roundTrip([list]), [list]);
});

test("the server's block keys are left out of the editor's blocks; an HTML block keeps its own", () => {
  const embed = { object: 'block', type: 'embed', isVoid: true, key: 'b0123456789abcdef', data: { url: 'https://example.com/v' } };
  const html = { object: 'block', type: 'paragraph', isVoid: false, key: 'quire-html-1', data: {}, nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: '<table></table>', marks: [] }] }] };
  const [opaqueEmbed, opaqueHtml] = toEditor({ object: 'document', nodes: [embed, html] }).content;
  assert.equal(JSON.parse(opaqueEmbed.attrs.json).key, undefined);
  assert.equal(JSON.parse(opaqueHtml.attrs.json).key, 'quire-html-1');
  // A block typed in the editor and the same block read back compare equal.
  const { key: _key, ...typed } = embed;
  assert.equal(opaqueEmbed.attrs.json, toEditor({ object: 'document', nodes: [typed] }).content[0].attrs.json);
});
