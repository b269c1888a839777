// The page editor: the page's JSON document in a Tiptap (ProseMirror)
// editor, saved into the change request as the reader types (autosave, one
// request at a time, the latest state last), with a slash menu for blocks
// and a markdown source mode. Editing is discoverable: a hint in an empty
// line, a "+" beside the block opening the same menu, "/" after a space,
// toolbars for the table and the code block the caret is in, and a list of
// the keyboard shortcuts (Ctrl-/ or Cmd-/).
import { Editor as TiptapEditor } from '@tiptap/core';
import { TextSelection } from '@tiptap/pm/state';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { post, get } from '../api.js';
import {
  ASSIST_KEY,
  blockTarget,
  codeExtra,
  extensions,
  HINT_STYLES,
  insertionDepth,
  knowFiles,
  knowPages,
  selectionTarget,
  TABLE_ACTIONS,
  voidBlock,
} from './extensions.js';
import { containerItem } from './containers.js';
import { canonical } from './document.js';
import { fromEditor } from './document.js';
import { cleanPastedHtml } from './paste.js';
import { collaborationExtensions, connect, disconnect, REBASE_META } from './collab.js';
import { ySyncPluginKey } from '@tiptap/y-tiptap';
import { People } from '../People.jsx';
import { listKeys } from '../listbox.js';

const SAVE_AFTER_MS = 400;

/// Block kinds of the slash menu: label and what inserting does.
const SLASH_ITEMS = [
  { label: 'Text', run: (c) => c.setParagraph() },
  { label: 'Heading 1', run: (c) => c.setHeading({ level: 1 }) },
  { label: 'Heading 2', run: (c) => c.setHeading({ level: 2 }) },
  { label: 'Heading 3', run: (c) => c.setHeading({ level: 3 }) },
  { label: 'Bulleted list', run: (c) => c.toggleBulletList() },
  { label: 'Numbered list', run: (c) => c.toggleOrderedList() },
  { label: 'Task list', run: (c) => c.toggleTaskList() },
  { label: 'Quote', run: (c) => c.setBlockquote() },
  { label: 'Code block', run: (c) => c.setCodeBlock() },
  ...HINT_STYLES.map((style) => ({
    label: `Hint (${style})`,
    run: (c) => c.insertContent({ type: 'hint', attrs: { style }, content: [{ type: 'paragraph' }] }),
  })),
  { label: 'Divider', run: (c) => c.setHorizontalRule() },
  {
    label: 'Tabs',
    run: (c) =>
      c.insertContent({
        type: 'tabs',
        content: [
          { type: 'tabItem', attrs: { title: 'First' }, content: [{ type: 'paragraph' }] },
          { type: 'tabItem', attrs: { title: 'Second' }, content: [{ type: 'paragraph' }] },
        ],
      }),
    // The caret goes to the first tab (tabs, tab, paragraph: three openings in).
    after: (editor, at) => editor.commands.setTextSelection(at + 3),
  },
  {
    label: 'Table',
    run: (c) => {
      const cell = (type, text) => ({ type, content: [{ type: 'paragraph', content: text ? [{ type: 'text', text }] : [] }] });
      return c.insertContent([
        {
          type: 'table',
          content: [
            { type: 'tableRow', content: [cell('tableHeader', 'Column 1'), cell('tableHeader', 'Column 2')] },
            { type: 'tableRow', content: [cell('tableCell'), cell('tableCell')] },
          ],
        },
        { type: 'paragraph' },
      ]);
    },
    // The caret goes to the first cell of the first row under the titles.
    after: (editor, at) => {
      let target = null;
      editor.state.doc.nodesBetween(at, editor.state.doc.content.size, (node, pos) => {
        if (target === null && node.type.name === 'tableCell') target = pos + 2;
        return target === null;
      });
      if (target !== null) editor.commands.setTextSelection(target);
    },
  },
  {
    label: 'Expandable',
    run: (c) => c.insertContent({ type: 'expandable', attrs: { title: 'Details' }, content: [{ type: 'paragraph' }] }),
  },
  {
    label: 'Stepper',
    run: (c) => c.insertContent({ type: 'stepper', attrs: { data: '{}' }, content: [containerItem('stepperStep'), containerItem('stepperStep')] }),
    after: (editor, at) => editor.commands.setTextSelection(at + 3),
  },
  {
    label: 'Columns',
    run: (c) =>
      c.insertContent({
        type: 'columns',
        attrs: { data: '{}' },
        content: [containerItem('column', { width: { unit: '%', value: 50 } }), containerItem('column', { width: { unit: '%', value: 50 } })],
      }),
    after: (editor, at) => editor.commands.setTextSelection(at + 3),
  },
  {
    label: 'Updates (changelog)',
    run: (c) =>
      c.insertContent({
        type: 'updates',
        attrs: { data: canonical({ format: 'full' }) },
        content: [containerItem('update', { date: new Date().toISOString().slice(0, 10) })],
      }),
    after: (editor, at) => editor.commands.setTextSelection(at + 3),
  },
  {
    label: 'Conditional content',
    run: (c) => c.insertContent(containerItem('conditional', { expression: 'visitor.claims.unsigned.beta' })),
    after: focusField,
  },
  {
    label: 'Prompt',
    run: (c) =>
      c.insertContent({ type: 'prompt', attrs: { data: canonical({ description: 'Prompt' }) }, content: [{ type: 'codeBlock', attrs: { language: 'markdown' } }] }),
    after: (editor, at) => editor.commands.setTextSelection(at + 2),
  },
  { label: 'Image (upload)', upload: 'image/*' },
  { label: 'File (upload)', upload: '*/*' },
  { label: 'Link to a page', picker: 'link' },
  { label: 'Link card (page)', picker: 'card' },
  {
    label: 'Included content',
    run: (c) =>
      c.insertContent([
        voidBlock('reusable-content', { ref: { kind: 'reusable-content', reusableContent: '' } }),
        { type: 'paragraph' },
      ]),
    after: focusField,
  },
  { label: 'Embed', run: (c) => c.insertContent([voidBlock('embed', { url: 'https://' }), { type: 'paragraph' }]) },
  { label: 'Math', run: (c) => c.insertContent([voidBlock('math', { formula: 'x^2' }), { type: 'paragraph' }]) },
  {
    label: 'OpenAPI operation',
    run: (c) =>
      c.insertContent([
        voidBlock('openapi-operation', { ref: { kind: 'openapi', spec: '' }, method: 'get', path: '/' }),
        { type: 'paragraph' },
      ]),
  },
];

/// Puts the caret in the first input of the block inserted at `at` (an
/// include's path, a condition).
function focusField(editor, at) {
  const dom = editor.view.nodeDOM(at);
  dom?.querySelector?.('input')?.focus();
}

/// A `file` block for the file `id`, with an empty caption.
function fileBlock(id) {
  return {
    type: 'opaque',
    attrs: {
      json: canonical({
        object: 'block',
        type: 'file',
        isVoid: true,
        data: { ref: { kind: 'file', file: id } },
        fragments: [{ object: 'fragment', fragment: 'caption', nodes: [] }],
      }),
    },
  };
}

/// A file as base64.
function base64Of(file) {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).split(',')[1] ?? '');
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(file);
  });
}

/// An `images` block showing the files `ids`, as the editor holds it.
function imagesBlock(ids) {
  const caption = {
    object: 'fragment',
    fragment: 'caption',
    nodes: [{ object: 'block', type: 'paragraph', isVoid: false, data: {}, nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: '', marks: [] }] }] }],
  };
  const images = ids.map((file) => ({
    object: 'block',
    type: 'image',
    isVoid: true,
    data: { ref: { kind: 'file', file } },
    fragments: [caption],
  }));
  return { type: 'opaque', attrs: { json: canonical({ object: 'block', type: 'images', isVoid: false, data: {}, nodes: images }) } };
}

/// Saves one change at a time; changes made meanwhile are merged (the
/// latest title, the latest body) and sent next. A change that fails stays
/// pending (sent again with the next one); `flush` sends what is pending,
/// waits for the save in flight and throws when a save failed.
function saver(send, onState) {
  let pending = null;
  let inFlight = null;
  let timer = null;
  // The error of a save, or the next save's (undefined once all are sent).
  const run = async () => {
    if (inFlight) return inFlight;
    if (!pending) return undefined;
    // A change's fields may be thunks, evaluated only when it is sent (the
    // document is turned into JSON once per save, not once per keystroke).
    const change = Object.fromEntries(
      Object.entries(pending).map(([k, v]) => [k, typeof v === 'function' ? v() : v]),
    );
    pending = null;
    onState('saving');
    inFlight = send(change).then(
      () => {
        onState(pending ? 'saving' : 'saved');
        return undefined;
      },
      (error) => {
        pending = { ...change, ...pending };
        onState(`error: ${error.message}`);
        return error;
      },
    );
    const error = await inFlight;
    inFlight = null;
    return error ?? run();
  };
  return {
    schedule(change) {
      pending = { ...pending, ...change };
      onState('editing');
      clearTimeout(timer);
      timer = setTimeout(run, SAVE_AFTER_MS);
    },
    async flush() {
      clearTimeout(timer);
      const error = await run();
      if (error) throw error;
      if (inFlight || pending) return this.flush();
      return undefined;
    },
  };
}

/// The "/" being typed before the caret (at the start of a line of text or
/// after a space, outside code) and what follows it: `{ from, query }`.
function slashQuery(state) {
  const { selection } = state;
  if (!selection.empty) return null;
  const { $from } = selection;
  if (!$from.parent.isTextblock || $from.parent.type.spec.code) return null;
  const before = $from.parent.textBetween(0, $from.parentOffset, '\n', (leaf) => (leaf.type.name === 'hardBreak' ? '\n' : '\ufffc'));
  const match = /(^|\s)\/([^\s/]*)$/.exec(before);
  return match ? { from: $from.pos - match[2].length - 1, query: match[2] } : null;
}

/// The code block around the editor's selection: `{ pos, node }` or null.
function codeBlockAt(state) {
  const { $from } = state.selection;
  for (let d = $from.depth; d > 0; d -= 1) {
    if ($from.node(d).type.name === 'codeBlock') return { pos: $from.before(d), node: $from.node(d) };
  }
  return null;
}

/// The table around the editor's selection: its position, or null.
function tableAt(state) {
  const { $from } = state.selection;
  for (let d = $from.depth; d > 0; d -= 1) {
    if ($from.node(d).type.name === 'table') return $from.before(d);
  }
  return null;
}

/// The code block's languages to choose from (GitBook's names for them).
const LANGUAGES = [
  ['', 'Plain text'],
  ['bash', 'Bash'],
  ['c', 'C'],
  ['cpp', 'C++'],
  ['csharp', 'C#'],
  ['css', 'CSS'],
  ['diff', 'Diff'],
  ['go', 'Go'],
  ['graphql', 'GraphQL'],
  ['html', 'HTML'],
  ['http', 'HTTP'],
  ['java', 'Java'],
  ['javascript', 'JavaScript'],
  ['json', 'JSON'],
  ['jsx', 'JSX'],
  ['kotlin', 'Kotlin'],
  ['markdown', 'Markdown'],
  ['php', 'PHP'],
  ['powershell', 'PowerShell'],
  ['python', 'Python'],
  ['ruby', 'Ruby'],
  ['rust', 'Rust'],
  ['shell', 'Shell'],
  ['sql', 'SQL'],
  ['swift', 'Swift'],
  ['toml', 'TOML'],
  ['tsx', 'TSX'],
  ['typescript', 'TypeScript'],
  ['xml', 'XML'],
  ['yaml', 'YAML'],
];

const MAC = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform || navigator.userAgent);
const MOD = MAC ? 'Cmd' : 'Ctrl';
const ALT = MAC ? 'Option' : 'Alt';

/// The shortcuts the editor has (each checked against its extensions):
/// groups of [what, keys (each a list of keys pressed together), what to
/// type, a note].
const SHORTCUTS = [
  [
    'Text',
    [
      ['Bold', [[MOD, 'B']], '**text**'],
      ['Italic', [[MOD, 'I']], '*text*'],
      ['Strikethrough', [[MOD, 'Shift', 'S']], '~~text~~'],
      ['Inline code', [[MOD, 'E']], '`text`'],
      ['Link', [], '', 'Paste a URL over selected text; a URL typed then a space becomes a link'],
      ['Line break', [['Shift', 'Enter']], ''],
    ],
  ],
  [
    'Blocks (at the start of a line)',
    [
      ['Block menu', [], '/', 'also after a space; or the + beside a block'],
      ['Heading 1, 2, 3', [[MOD, ALT, '1'], [MOD, ALT, '2'], [MOD, ALT, '3']], '#  ##  ###', 'then a space'],
      ['Bulleted list', [[MOD, 'Shift', '8']], '-  *', 'then a space'],
      ['Numbered list', [[MOD, 'Shift', '7']], '1.', 'then a space'],
      ['Task list', [[MOD, 'Shift', '9']], '[ ]', 'then a space'],
      ['Quote', [[MOD, 'Shift', 'B']], '>', 'then a space'],
      ['Code block', [[MOD, ALT, 'C']], '```  ```js', 'then a space or Enter'],
      ['Divider', [], '---'],
      ['Math block', [], '$$', 'then a space or Enter'],
    ],
  ],
  [
    'Editing',
    [
      ['Undo', [[MOD, 'Z']], ''],
      ['Redo', [[MOD, 'Shift', 'Z'], [MOD, 'Y']], ''],
      ['Indent, outdent a list item', [['Tab'], ['Shift', 'Tab']], ''],
      ['Leave a code block', [['Enter', 'Enter', 'Enter'], ['↓']], '', 'at its end'],
      ['Next, previous table cell', [['Tab'], ['Shift', 'Tab']], '', 'Tab in the last cell adds a row'],
      ['New table row', [[MOD, 'Enter']], ''],
      ["To the block's toolbar or +", [[ALT, 'F10']], '', 'Escape goes back to the text'],
      ['This list', [[MOD, '/']], ''],
    ],
  ],
];

/// The keyboard shortcuts, in a modal dialog: the focus stays in it,
/// Escape closes it and the focus goes back where it was.
function ShortcutsDialog({ onClose }) {
  const dialog = useRef(null);
  const close = useRef(null);
  const closing = useRef(onClose);
  closing.current = onClose;
  // Installed as the dialog is drawn, before the browser can deliver a key.
  useLayoutEffect(() => {
    close.current?.focus();
    // Escape closes it wherever the focus is (even before it arrived).
    const onKey = (event) => {
      if (event.key !== 'Escape') return;
      event.preventDefault();
      event.stopPropagation();
      closing.current();
    };
    window.addEventListener('keydown', onKey, true);
    return () => window.removeEventListener('keydown', onKey, true);
  }, []);
  const onKeyDown = (event) => {
    if (event.key === 'Tab') {
      const focusable = [...dialog.current.querySelectorAll('button, [tabindex="0"]')];
      const first = focusable[0];
      const last = focusable[focusable.length - 1];
      if (event.shiftKey && document.activeElement === first) {
        event.preventDefault();
        last.focus();
      } else if (!event.shiftKey && document.activeElement === last) {
        event.preventDefault();
        first.focus();
      }
    }
  };
  const keys = (combo) => combo.map((key, i) => [i > 0 && (combo[0] === 'Enter' ? ' ' : '+'), <kbd>{key}</kbd>]);
  return (
    <div class="overlay" onClick={(e) => e.target === e.currentTarget && onClose()}>
      <div ref={dialog} class="dialog shortcuts" role="dialog" aria-modal="true" aria-labelledby="shortcuts-title" onKeyDown={onKeyDown}>
        <div class="shortcuts-head">
          <h2 id="shortcuts-title">Keyboard shortcuts</h2>
          <button ref={close} type="button" onClick={onClose}>
            Close
          </button>
        </div>
        <div class="shortcuts-body" tabIndex={0} role="region" aria-label="Shortcuts">
          {SHORTCUTS.map(([group, rows]) => (
            <table class="shortcuts-table">
              <caption>{group}</caption>
              <thead>
                <tr>
                  <th scope="col">Action</th>
                  <th scope="col">Keys</th>
                  <th scope="col">Or type</th>
                </tr>
              </thead>
              <tbody>
                {rows.map(([what, combos, typed, note]) => (
                  <tr>
                    <th scope="row">{what}</th>
                    <td>{combos.map((combo, i) => [i > 0 && ', ', ...keys(combo)])}</td>
                    <td>
                      {typed && <code>{typed}</code>}
                      {typed && note && ' '}
                      {note && <span class="muted">{typed ? `(${note})` : note}</span>}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          ))}
        </div>
      </div>
    </div>
  );
}

/// Beside the editor's content, never in it (nothing here is saved): the
/// "+" handle beside the block under the pointer or the caret, and the
/// toolbars of the code block and the table the caret is in. Shown while
/// the editor or one of them has the focus; each changes the document
/// through the editor's commands (the shared document follows).
function BlockControls({ editor, area, hover, onAdd, onCommand, onCode, onToolbarFocus }) {
  const root = useRef(null);
  if (!editor || !area || editor.isDestroyed || !editor.isEditable) return null;
  const { state, view } = editor;
  const active = editor.isFocused || Boolean(ASSIST_KEY.getState(state)?.toolbarFocus);
  const box = area.getBoundingClientRect();
  const rectOf = (pos) => {
    const dom = view.nodeDOM(pos);
    return dom?.getBoundingClientRect ? dom.getBoundingClientRect() : null;
  };
  const target = (hover && blockTarget(state.doc, hover.pos, hover.inside)) || (active ? selectionTarget(state) : null);
  let handleTop = null;
  if (target) {
    try {
      if (target.node.isTextblock) {
        const c = view.coordsAtPos(target.pos + 1);
        handleTop = (c.top + c.bottom) / 2 - box.top;
      } else {
        const r = rectOf(target.pos);
        if (r) handleTop = r.top - box.top + 14;
      }
    } catch {
      handleTop = null;
    }
  }
  const code = active ? codeBlockAt(state) : null;
  const codeRect = code && rectOf(code.pos);
  const tablePos = active ? tableAt(state) : null;
  const tableRect = tablePos != null ? rectOf(tablePos) : null;
  const back = (event) => {
    if (event.key !== 'Escape') return;
    event.preventDefault();
    editor.commands.focus();
  };
  const language = code?.node.attrs.language ?? '';
  const extra = code ? codeExtra(code.node) : {};
  return (
    <div
      ref={root}
      class="block-controls"
      onKeyDown={back}
      onFocusIn={() => onToolbarFocus(true)}
      onFocusOut={(e) => {
        if (!root.current?.contains(e.relatedTarget)) onToolbarFocus(false);
      }}
    >
      {code && codeRect && (
        <div
          class="block-toolbar code-toolbar"
          role="group"
          aria-label="Code block"
          style={{ top: `${codeRect.top - box.top + 6}px`, left: `${codeRect.left - box.left + 6}px`, width: `${Math.max(codeRect.width - 12, 0)}px` }}
        >
          <label class="code-field">
            <span class="visually-hidden">Language</span>
            <select aria-label="Language" value={language} onChange={(e) => onCode({ language: e.currentTarget.value || null })}>
              {!LANGUAGES.some(([id]) => id === language) && <option value={language}>{language}</option>}
              {LANGUAGES.map(([id, name]) => (
                <option value={id}>{name}</option>
              ))}
            </select>
          </label>
          <input
            class="code-title"
            aria-label="Code title"
            placeholder="Title (optional)"
            value={code.node.attrs.title ?? ''}
            onInput={(e) => onCode({ title: e.currentTarget.value || null })}
          />
          <label class="choice code-field">
            <input
              type="checkbox"
              checked={Boolean(extra.lineNumbers)}
              onChange={(e) => {
                const next = { ...extra };
                if (e.currentTarget.checked) next.lineNumbers = true;
                else delete next.lineNumbers;
                onCode({ extra: Object.keys(next).length ? JSON.stringify(next) : null });
              }}
            />
            Line numbers
          </label>
        </div>
      )}
      {tableRect && (
        <div
          class="block-toolbar table-toolbar"
          role="toolbar"
          aria-label="Table"
          style={{ bottom: `${box.height - (tableRect.top - box.top) + 4}px`, left: `${tableRect.left - box.left}px` }}
        >
          {TABLE_ACTIONS.map(([label, command]) => (
            <button type="button" disabled={!command(state)} onMouseDown={(e) => e.preventDefault()} onClick={() => onCommand(command)}>
              {label}
            </button>
          ))}
        </div>
      )}
      {target && handleTop != null && (
        <button
          type="button"
          class="block-handle"
          aria-label="Insert a block"
          title="Insert a block"
          style={{ top: `${handleTop}px` }}
          onMouseDown={(e) => e.preventDefault()}
          onClick={() => onAdd(target)}
        >
          +
        </button>
      )}
    </div>
  );
}

/// Choosing a page of the space to link to: type to filter, arrows and
/// Enter to choose, Escape to close.
function PagePicker({ pages, title, onPick, onClose }) {
  const [query, setQuery] = useState('');
  const [index, setIndex] = useState(0);
  const input = useRef(null);
  useEffect(() => input.current?.focus(), []);
  const matches = pages.filter((p) => p.title.toLowerCase().includes(query.toLowerCase())).slice(0, 12);
  const onKeyDown = (event) => listKeys(event, { items: matches, index, setIndex, onChoose: onPick, onClose });
  return (
    <div class="overlay" onClick={(e) => e.target === e.currentTarget && onClose()}>
      <div class="dialog" role="dialog" aria-modal="true" aria-label={title}>
        <input
          ref={input}
          class="search-input"
          aria-label="Find a page to link to"
          value={query}
          onInput={(e) => {
            setQuery(e.currentTarget.value);
            setIndex(0);
          }}
          onKeyDown={onKeyDown}
        />
        <ul role="listbox" aria-label="Pages" class="results">
          {matches.map((p, i) => (
            <li role="option" aria-selected={i === index} class={i === index ? 'selected' : ''} onClick={() => onPick(p)}>
              {p.title}
            </li>
          ))}
        </ul>
      </div>
    </div>
  );
}

/// The shared document's state in one word (tests and styles read it).
function liveState(live, title) {
  // Read-only for a reason the server gave (merged, access ended), online or not.
  if (live.readOnly && live.reason) return 'read-only';
  if (live.connection !== 'connected') return live.ready ? 'offline' : 'connecting';
  if (!live.ready) return 'connecting';
  if (live.readOnly) return 'read-only';
  if (title.startsWith('error')) return title;
  return live.unsaved || title !== 'saved' ? 'saving' : 'saved';
}

function liveLabel(state) {
  return (
    {
      offline: 'Offline: your edits are kept and sent when you are back',
      connecting: 'Connecting…',
      'read-only': 'Read only',
      saving: 'Saving…',
      saved: 'Saved',
    }[state] ?? state
  );
}

export function PageEditor({ spaceId, changeRequest, page, document, pages = [], markdown: initialMarkdown = '', onTitle }) {
  const mount = useRef(null);
  const editorRef = useRef(null);
  const [state, setState] = useState('saved');
  const [title, setTitle] = useState(page.title);
  // Every page opens in the block editor: what it has no view for travels
  // whole, and the server keeps the markdown of blocks nobody changed.
  const [mode, setMode] = useState('rich');
  const [markdown, setMarkdown] = useState(initialMarkdown);
  const [slash, setSlash] = useState(null);
  const [picking, setPicking] = useState(false);
  // The slash menu as the editor's handlers see it; whether a "/" was just
  // typed (the menu opens on the transaction inserting it), and whether the
  // "+" handle typed it (Escape then takes it back).
  const slashRef = useRef(null);
  slashRef.current = slash;
  const armed = useRef(false);
  const fromHandle = useRef(null);
  // Redrawn when the editor changes (the handle and toolbars follow it),
  // the block under the pointer, and the shortcuts dialog (with where the
  // focus was).
  const [, setTick] = useState(0);
  const [hover, setHover] = useState(null);
  const [shortcuts, setShortcuts] = useState(null);
  const area = useRef(null);
  const base = `/v1/spaces/${spaceId}/change-requests/${changeRequest.id}`;
  // Co-editing (rich mode): whether the shared document can be edited, the
  // socket's state, and who else is on the page.
  const [live, setLive] = useState({ ready: false, readOnly: true, connection: 'connecting' });
  const [present, setPresent] = useState([]);
  const save = useRef(null);
  // Whether this editor changed the page since it was opened (edits from
  // others and the server's fill or rebase do not count): switching to
  // markdown saves the page only then.
  const typed = useRef(false);
  const [switching, setSwitching] = useState(false);
  const [problem, setProblem] = useState(null);
  if (!save.current) {
    save.current = saver(
      (change) => post(`${base}/content`, { changes: [{ operation: 'update_page', page: page.id, ...change }] }),
      setState,
    );
  }

  useEffect(() => {
    if (mode !== 'rich') return undefined;
    knowPages(pages);
    knowFiles(`${base}/content`);
    const session = connect({
      spaceId,
      changeRequestId: changeRequest.id,
      pageId: page.id,
      onState: (s) => setLive((was) => ({ ...was, ...s })),
      onPeople: setPresent,
    });
    const editor = new TiptapEditor({
      element: mount.current,
      extensions: extensions({ collaboration: collaborationExtensions(session) }),
      editable: false,
      editorProps: {
        attributes: { class: 'prose', 'aria-label': 'Page content', role: 'textbox', 'aria-multiline': 'true' },
        transformPastedHTML: cleanPastedHtml,
        handlePaste: (_view, event) => {
          const files = event.clipboardData?.files;
          if (!files || files.length === 0) return false;
          event.preventDefault();
          insertFiles(files);
          return true;
        },
        handleDrop: (_view, event) => {
          const files = event.dataTransfer?.files;
          if (!files || files.length === 0) return false;
          event.preventDefault();
          insertFiles(files);
          return true;
        },
        // A "/" typed opens the block menu (see `onTransaction`).
        handleTextInput: (_view, _from, _to, text) => {
          if (text === '/') armed.current = true;
          return false;
        },
      },
      onUpdate: ({ transaction }) => {
        // The server saves the shared document; this copy is what a switch
        // to markdown starts from.
        document.current = null;
        if (!transaction.getMeta(ySyncPluginKey) && !transaction.getMeta(REBASE_META)) typed.current = true;
      },
      onTransaction: ({ editor: e, transaction }) => {
        // The block menu: opened by a "/" just typed at the start of a line
        // or after a space, filtered by what follows it, closed when the
        // caret leaves it.
        const open = slashRef.current;
        const justTyped = armed.current && transaction.docChanged;
        if (transaction.docChanged) armed.current = false;
        if (open || justTyped) {
          const found = slashQuery(e.state);
          if (found && (open ? found.from === open.from : found.query === '')) {
            const query = found.query.toLowerCase();
            if (!open || open.query !== query) {
              const coords = e.view.coordsAtPos(found.from);
              const next = {
                query,
                index: 0,
                from: found.from,
                top: coords.bottom + window.scrollY,
                left: coords.left + window.scrollX,
                handle: open ? open.handle : fromHandle.current,
              };
              slashRef.current = next;
              setSlash(next);
            }
          } else if (open) {
            slashRef.current = null;
            setSlash(null);
          }
          fromHandle.current = null;
        }
        if (transaction.docChanged) setHover(null);
        setTick((n) => n + 1);
      },
    });
    session.editor = editor;
    editorRef.current = editor;
    window.quireEditor = editor;
    window.quireCollab = session;
    return () => {
      editor.destroy();
      disconnect(session);
      editorRef.current = null;
    };
  }, [mode]);

  useEffect(() => {
    const editor = editorRef.current;
    const editable = live.ready && !live.readOnly;
    if (!editor || editor.isEditable === editable) return;
    editor.setEditable(editable);
    // Block views draw their inputs and buttons for the editable state they
    // were made in: new views are made (ProseMirror redraws when the view
    // constructors differ).
    const views = editor.view.props.nodeViews ?? {};
    editor.view.setProps({ nodeViews: Object.fromEntries(Object.entries(views).map(([name, make]) => [name, (...args) => make(...args)])) });
  }, [live.ready, live.readOnly, mode]);

  useEffect(() => () => save.current.flush().catch(() => {}), []);

  // Ctrl-/ (Cmd-/) shows the keyboard shortcuts.
  useEffect(() => {
    if (mode !== 'rich') return undefined;
    const onKey = (event) => {
      if ((event.ctrlKey || event.metaKey) && !event.altKey && (event.key === '/' || event.code === 'Slash')) {
        event.preventDefault();
        setShortcuts((open) => open ?? { back: window.document.activeElement });
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [mode]);

  // The handle and toolbars follow the layout.
  useEffect(() => {
    const onResize = () => setTick((n) => n + 1);
    window.addEventListener('resize', onResize);
    return () => window.removeEventListener('resize', onResize);
  }, []);

  const closeShortcuts = () => {
    const back = shortcuts?.back;
    setShortcuts(null);
    const editor = editorRef.current;
    if (editor && (!back?.isConnected || editor.view.dom.contains(back))) editor.commands.focus();
    else back.focus();
  };

  const items = slash ? SLASH_ITEMS.filter((i) => i.label.toLowerCase().includes(slash.query)) : [];

  const upload = useRef(null);
  const closeSlash = () => {
    slashRef.current = null;
    setSlash(null);
  };
  const choose = (item) => {
    const editor = editorRef.current;
    const { state } = editor;
    // The "/" and what was typed after it go; the block is made in the
    // line when that leaves it empty, else in a new line after its block.
    const tr = state.tr;
    const found = slashQuery(state);
    if (found) tr.delete(found.from, state.selection.from);
    const $at = tr.selection.$from;
    let from = $at.start();
    const empty = $at.parent.isTextblock && !$at.parent.type.spec.code && $at.parent.content.size === 0;
    const depth = empty ? null : insertionDepth($at);
    if (depth) {
      const at = $at.after(depth);
      tr.insert(at, state.schema.nodes.paragraph.create());
      tr.setSelection(TextSelection.create(tr.doc, at + 1));
      from = at + 1;
    }
    editor.view.dispatch(tr);
    closeSlash();
    // A dialog (the page picker, the file chooser) takes the focus itself.
    if (!item.upload && !item.picker) editor.commands.focus();
    if (item.upload) {
      if (upload.current) {
        upload.current.accept = item.upload;
        upload.current.click();
      }
    } else if (item.picker) setPicking(item.picker);
    else {
      item.run(editor.chain().focus()).run();
      item.after?.(editor, from - 1);
    }
  };

  /// Escape: the menu closes and the "/" stays as typed; one the "+" handle
  /// typed goes (with the line it added).
  const dismissSlash = () => {
    const editor = editorRef.current;
    const open = slashRef.current;
    closeSlash();
    if (!editor || !open?.handle) return;
    const { state } = editor;
    const found = slashQuery(state);
    if (!found || found.from !== open.from) return;
    const { $from } = state.selection;
    const tr = state.tr;
    if (open.handle.added && $from.parent.textContent === `/${found.query}` && $from.depth > 0) {
      const before = $from.before();
      tr.delete(before, $from.after());
      tr.setSelection(TextSelection.near(tr.doc.resolve(Math.max(0, before - 1)), -1));
    } else {
      tr.delete(found.from, $from.pos);
    }
    editor.view.dispatch(tr);
  };

  /// The "+" handle: a "/" in the block's line when it is an empty
  /// paragraph, else in a new line after it, and the block menu there.
  const addBlock = (target) => {
    const editor = editorRef.current;
    if (!editor || !target || !editor.isEditable) return;
    const { state } = editor;
    const tr = state.tr;
    let caret;
    let added = false;
    const node = state.doc.nodeAt(target.pos);
    if (!node) return;
    if (node.type.name === 'paragraph' && node.content.size === 0) {
      tr.insertText('/', target.pos + 1);
      caret = target.pos + 2;
    } else {
      const at = target.pos + node.nodeSize;
      tr.insert(at, state.schema.nodes.paragraph.create(null, state.schema.text('/')));
      caret = at + 2;
      added = true;
    }
    tr.setSelection(TextSelection.create(tr.doc, caret)).scrollIntoView();
    armed.current = true;
    fromHandle.current = { added };
    editor.view.dispatch(tr);
    editor.view.focus();
  };

  /// Runs a ProseMirror command on the editor, then gives the editor the
  /// focus back.
  const runCommand = (command) => {
    const editor = editorRef.current;
    if (!editor) return;
    command(editor.state, editor.view.dispatch);
    editor.commands.focus();
  };

  /// Sets attributes of the code block the caret is in.
  const setCode = (attrs) => {
    const editor = editorRef.current;
    const code = editor && codeBlockAt(editor.state);
    if (!code) return;
    editor.view.dispatch(editor.state.tr.setNodeMarkup(code.pos, undefined, { ...code.node.attrs, ...attrs }));
  };

  /// Whether the editor's block controls hold the focus: the block they
  /// edit stays marked (the editor's plugin hears it).
  const toolbarFocus = (on) => {
    const editor = editorRef.current;
    if (editor && !editor.isDestroyed && ASSIST_KEY.getState(editor.state)?.toolbarFocus !== on) {
      editor.view.dispatch(editor.state.tr.setMeta(ASSIST_KEY, { toolbarFocus: on }).setMeta('addToHistory', false));
    }
  };

  /// Stores files in the change request and inserts them: images as an
  /// images block, any other file as a file block.
  const insertFiles = async (files) => {
    const list = [...files];
    if (list.length === 0) return false;
    setState('saving');
    try {
      const encoded = await Promise.all(
        list.map(async (f, i) => ({
          name: f.name || `pasted-${Date.now()}-${i}.${f.type.startsWith('image/') ? 'png' : 'bin'}`,
          contentType: f.type || 'application/octet-stream',
          base64: await base64Of(f),
        })),
      );
      const answer = await post(`${base}/content?compat=false`, { changes: [{ operation: 'insert_files', files: encoded }] });
      const ids = (answer.insertedFiles ?? []).map((f) => f.id);
      const images = ids.filter((_, i) => list[i].type.startsWith('image/'));
      const others = ids.filter((_, i) => !list[i].type.startsWith('image/'));
      const content = [...(images.length ? [imagesBlock(images)] : []), ...others.map(fileBlock), { type: 'paragraph' }];
      editorRef.current?.chain().focus().insertContent(content).run();
      // The files are stored; the block that shows them is saved with the
      // shared document.
      setState((now) => (now === 'saving' ? 'saved' : now));
    } catch (error) {
      setState(`error: ${error.message}`);
    }
    return true;
  };

  const onKeyDown = (event) => {
    if (event.altKey && event.key === 'F10') {
      // To the toolbar of the block the caret is in (or the "+" handle).
      const first = area.current?.querySelector('.block-toolbar select, .block-toolbar input, .block-toolbar button:not(:disabled), .block-handle');
      if (first) {
        event.preventDefault();
        first.focus();
      }
      return;
    }
    if (slash && event.key === 'Escape') {
      event.preventDefault();
      event.stopPropagation();
      dismissSlash();
      return;
    }
    if (!slash || items.length === 0) return;
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      event.stopPropagation();
      const step = event.key === 'ArrowDown' ? 1 : -1;
      setSlash({ ...slash, index: (slash.index + step + items.length) % items.length });
    } else if (event.key === 'Enter') {
      event.preventDefault();
      event.stopPropagation();
      choose(items[Math.min(slash.index, items.length - 1)]);
    }
  };

  const switchMode = async () => {
    if (switching) return;
    setSwitching(true);
    setProblem(null);
    try {
      await save.current.flush();
      if (mode === 'rich') {
        // What this editor typed is saved at once when the server has not
        // saved it yet (it saves the shared document a moment after typing
        // stops); a page nobody changed is not saved again.
        const editor = editorRef.current;
        if (editor && typed.current && live.unsaved && live.ready && !live.readOnly) {
          await post(`${base}/content`, {
            changes: [{ operation: 'update_page', page: page.id, document: { document: fromEditor(editor.getJSON()) } }],
          });
        }
        const answer = await get(`${base}/content/page/${page.id}?format=markdown`);
        setMarkdown(answer.markdown ?? '');
        setMode('markdown');
      } else {
        const answer = await get(`${base}/content/page/${page.id}`);
        document.current = answer.document;
        typed.current = false;
        // The rich editor waits for its new shared document.
        setLive({ ready: false, readOnly: true, connection: 'connecting' });
        setMode('rich');
      }
    } catch (error) {
      setProblem(`Switching to ${mode === 'rich' ? 'markdown' : 'rich text'} failed: ${error.message}`);
    } finally {
      setSwitching(false);
    }
  };

  return (
    <div class="editor">
      <div class="editor-bar">
        <label class="visually-hidden" for="page-title">Page title</label>
        <input
          id="page-title"
          class="title-input"
          value={title}
          onInput={(e) => {
            setTitle(e.currentTarget.value);
            onTitle?.(e.currentTarget.value);
            save.current.schedule({ title: e.currentTarget.value });
          }}
        />
        <button type="button" onClick={switchMode} disabled={switching}>
          {mode === 'rich' ? 'Markdown' : 'Rich text'}
        </button>
        {mode === 'rich' && (
          <button type="button" aria-haspopup="dialog" onClick={() => setShortcuts({ back: window.document.activeElement })} aria-keyshortcuts={MAC ? 'Meta+/' : 'Control+/'}>
            Shortcuts
          </button>
        )}
        {mode === 'rich' && <People people={present} label="On this page" />}
        <span class="save-state" role="status" aria-live="polite" data-state={mode === 'rich' ? liveState(live, state) : state}>
          {mode === 'rich' ? (live.reason ? `Read only: ${live.reason}` : liveLabel(liveState(live, state))) : state === 'saved' ? 'Saved' : state === 'saving' || state === 'editing' ? 'Saving…' : state}
        </span>
      </div>
      <input
        ref={upload}
        type="file"
        multiple
        class="visually-hidden"
        aria-label="Upload a file"
        tabIndex={-1}
        onChange={(e) => {
          insertFiles(e.currentTarget.files);
          e.currentTarget.value = '';
        }}
      />
      {problem && (
        <p class="error" role="alert">
          {problem}
        </p>
      )}
      {mode === 'rich' ? (
        <div
          ref={area}
          class="editor-area"
          onMouseMove={(e) => {
            const editor = editorRef.current;
            if (!editor || e.target.closest?.('.block-handle, .block-toolbar')) return;
            const prose = editor.view.dom.getBoundingClientRect();
            const found = editor.view.posAtCoords({ left: Math.min(Math.max(e.clientX, prose.left + 2), prose.right - 2), top: e.clientY });
            const next = found ? { pos: found.pos, inside: found.inside } : null;
            if (next?.pos !== hover?.pos || next?.inside !== hover?.inside) setHover(next);
          }}
          onMouseLeave={() => setHover(null)}
        >
          <div ref={mount} onKeyDownCapture={onKeyDown} class="editor-surface" />
          <BlockControls
            editor={editorRef.current}
            area={area.current}
            hover={hover}
            onAdd={addBlock}
            onCommand={runCommand}
            onCode={setCode}
            onToolbarFocus={toolbarFocus}
          />
        </div>
      ) : (
        <textarea
          class="markdown-source"
          aria-label="Page markdown"
          value={markdown}
          onInput={(e) => {
            setMarkdown(e.currentTarget.value);
            save.current.schedule({ document: { markdown: e.currentTarget.value } });
          }}
        />
      )}
      {picking && (
        <PagePicker
          pages={pages.filter((p) => p.id !== page.id)}
          onClose={() => {
            setPicking(false);
            editorRef.current?.commands.focus();
          }}
          title={picking === 'card' ? 'Link card to a page' : 'Link to a page'}
          onPick={(target) => {
            const kind = picking;
            setPicking(false);
            const ref = { kind: 'page', page: target.id };
            const chain = editorRef.current?.chain().focus();
            if (kind === 'card') chain?.insertContent([voidBlock('content-ref', { ref }), { type: 'paragraph' }]).run();
            else {
              chain
                ?.insertContent([{ type: 'text', text: target.title, marks: [{ type: 'link', attrs: { href: null, gitbookRef: canonical(ref) } }] }, { type: 'text', text: ' ' }])
                .run();
            }
          }}
        />
      )}
      {shortcuts && <ShortcutsDialog onClose={closeShortcuts} />}
      {slash && items.length > 0 && (
        <ul class="slash-menu" role="listbox" aria-label="Insert a block" style={{ top: `${slash.top}px`, left: `${slash.left}px` }}>
          {items.map((item, i) => (
            <li
              role="option"
              aria-selected={i === slash.index}
              class={i === slash.index ? 'selected' : ''}
              onMouseDown={(e) => {
                e.preventDefault();
                choose(item);
              }}
            >
              {item.label}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
