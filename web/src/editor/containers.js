// GitBook's container blocks in the editor: steppers of steps, columns,
// updates (a changelog of dated entries), content shown on a condition,
// and prompts. Each node keeps its block's JSON `data` whole in a `data`
// attribute; the fields a writer sets (a column's width, an update's date
// and tags, a condition's expression, a prompt's description) are inputs
// above the node's content, edited in place.
import { Node } from '@tiptap/core';
import { canonical } from './document.js';

// A field of a block's `data` is its label, how to read it as text and how
// to write text back (a checkbox reads and writes booleans).

/// `data` with `key` set to `value`, or without it when `value` is empty.
function withKey(data, key, value) {
  const out = { ...data };
  if (value === '' || value === false || value == null) delete out[key];
  else out[key] = value;
  return out;
}

/// A `Length` (`{ unit, value }` or a number) as `50%`.
const widthField = {
  label: 'Width',
  get: (data) => (typeof data.width === 'number' ? String(data.width) : data.width ? `${data.width.value}${data.width.unit}` : ''),
  set: (data, text) => {
    const match = /^\s*(\d+(?:\.\d+)?)\s*([a-z%]*)\s*$/i.exec(text);
    if (!match) return withKey(data, 'width', null);
    const value = Number(match[1]);
    return withKey(data, 'width', match[2] ? { unit: match[2], value } : value);
  },
};

/// An update's tags (references by slug) as `beta, fixes`.
const tagsField = {
  label: 'Tags',
  get: (data) => (data.tags ?? []).map((t) => t.tag).join(', '),
  set: (data, text) => {
    const tags = text.split(',').map((t) => t.trim()).filter(Boolean).map((tag) => ({ kind: 'tag', tag }));
    return withKey(data, 'tags', tags.length ? tags : null);
  },
};

const requiredText = (key, label) => ({ label, get: (data) => data[key] ?? '', set: (data, value) => ({ ...data, [key]: value }) });

const checkboxField = (key, label) => ({ label, checkbox: true, get: (data) => Boolean(data[key]), set: (data, on) => withKey(data, key, on) });

/// The containers (their JSON types are in `document.js`): the editor's
/// node name, what the node holds, whether it sits among blocks (steps,
/// columns and updates sit in their parent only), its label and fields, and the label of the button
/// adding an item after this one.
export const CONTAINERS = [
  { name: 'stepper', content: 'stepperStep+', label: 'Stepper', fields: [] },
  { name: 'stepperStep', content: 'block+', inner: true, label: 'Step', fields: [], adds: 'Add a step after' },
  { name: 'columns', content: 'column+', label: 'Columns', fields: [] },
  { name: 'column', content: 'block+', inner: true, label: 'Column', fields: [widthField], adds: 'Add a column after' },
  { name: 'updates', content: 'update+', label: 'Updates', fields: [] },
  {
    name: 'update',
    content: 'block+',
    inner: true,
    label: 'Update',
    fields: [requiredText('date', 'Date'), tagsField],
    adds: 'Add an update after',
  },
  { name: 'conditional', content: 'block+', label: 'Shown when', fields: [requiredText('expression', 'Condition')] },
  {
    name: 'prompt',
    content: 'codeBlock',
    label: 'Prompt',
    fields: [requiredText('description', 'Description'), checkboxField('openInAIProviders', 'Open in AI assistants')],
  },
];

/// The editor node for a new item of a container (a step, a column, an
/// update), holding one empty paragraph.
export function containerItem(name, data = {}) {
  return { type: name, attrs: { data: canonical(data) }, content: [{ type: 'paragraph' }] };
}

function parseData(text) {
  try {
    return JSON.parse(text);
  } catch {
    return {};
  }
}

/// The node view: a head of inputs (and the button adding an item after
/// this one), then the content. Enter in an input goes to the content.
function fieldsView(spec) {
  return ({ node, getPos, editor }) => {
    const dom = document.createElement('div');
    dom.className = `container container-${spec.name}`;
    dom.setAttribute(`data-${spec.name}`, '');
    const head = document.createElement('div');
    head.className = 'container-head';
    head.contentEditable = 'false';
    const title = document.createElement('span');
    title.className = 'container-label';
    title.textContent = spec.label;
    head.append(title);
    let data = parseData(node.attrs.data);
    const inputs = [];
    const write = (next) => {
      data = next;
      const pos = getPos();
      if (typeof pos === 'number') editor.view.dispatch(editor.view.state.tr.setNodeAttribute(pos, 'data', canonical(data)));
    };
    for (const field of spec.fields) {
      const label = document.createElement('label');
      label.className = 'container-field';
      const input = document.createElement('input');
      if (field.checkbox) {
        input.type = 'checkbox';
        input.checked = field.get(data);
        input.addEventListener('change', () => write(field.set(data, input.checked)));
        label.append(input, ` ${field.label}`);
      } else {
        input.value = field.get(data);
        input.setAttribute('aria-label', `${spec.label}: ${field.label}`);
        input.placeholder = field.label;
        input.addEventListener('input', () => write(field.set(data, input.value)));
        label.append(input);
      }
      input.disabled = !editor.isEditable;
      input.addEventListener('keydown', (event) => {
        if (event.key !== 'Enter') return;
        event.preventDefault();
        const pos = getPos();
        if (typeof pos !== 'number') return;
        // Focused at once (Tiptap's `focus` waits a frame): what is typed
        // next goes to the content.
        editor.commands.setTextSelection(pos + 2);
        editor.view.focus();
      });
      inputs.push([field, input]);
      head.append(label);
    }
    if (spec.adds && editor.isEditable) {
      const add = document.createElement('button');
      add.type = 'button';
      add.textContent = spec.adds;
      add.addEventListener('click', () => {
        const pos = getPos();
        if (typeof pos !== 'number') return;
        const at = pos + editor.state.doc.nodeAt(pos).nodeSize;
        editor.chain().insertContentAt(at, containerItem(spec.name)).setTextSelection(at + 2).focus().run();
      });
      head.append(add);
    }
    return headedView(dom, head, 'container-body', node, (updated) => {
      data = parseData(updated.attrs.data);
      for (const [field, input] of inputs) {
        if (field.checkbox) input.checked = field.get(data);
        else if (document.activeElement !== input) input.value = field.get(data);
      }
    });
  };
}

/// A node view of a head (inputs and buttons the editor leaves alone) over
/// the node's editable content; `refresh` brings the head up to date when
/// the node changes.
export function headedView(dom, head, bodyClass, node, refresh) {
  const contentDOM = document.createElement('div');
  contentDOM.className = bodyClass;
  dom.append(head, contentDOM);
  return {
    dom,
    contentDOM,
    stopEvent: (event) => head.contains(event.target),
    ignoreMutation: (mutation) => !contentDOM.contains(mutation.target),
    update: (updated) => {
      if (updated.type !== node.type) return false;
      refresh(updated);
      return true;
    },
  };
}

export function containerNodes() {
  return CONTAINERS.map((spec) =>
    Node.create({
      name: spec.name,
      ...(spec.inner ? {} : { group: 'block' }),
      content: spec.content,
      defining: true,
      addAttributes() {
        return { data: { default: '{}' } };
      },
      parseHTML() {
        return [{ tag: `div[data-${spec.name}]`, getAttrs: (el) => ({ data: el.getAttribute('data-data') ?? '{}' }) }];
      },
      renderHTML({ node }) {
        return ['div', { [`data-${spec.name}`]: '', 'data-data': node.attrs.data, class: `container container-${spec.name}` }, 0];
      },
      addNodeView() {
        return fieldsView(spec);
      },
    }),
  );
}
