// The page editor: the page's JSON document in a Tiptap (ProseMirror)
// editor, saved into the change request as the reader types (autosave, one
// request at a time, the latest state last), with a slash menu for blocks
// and a markdown source mode.
import { Editor as TiptapEditor } from '@tiptap/core';
import { useEffect, useRef, useState } from 'preact/hooks';
import { post, get } from '../api.js';
import { extensions, HINT_STYLES, knowFiles, knowPages, voidBlock } from './extensions.js';
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
      },
      onUpdate: ({ editor: e, transaction }) => {
        // The server saves the shared document; this copy is what a switch
        // to markdown starts from.
        document.current = null;
        if (!transaction.getMeta(ySyncPluginKey) && !transaction.getMeta(REBASE_META)) typed.current = true;
        const { $from } = e.state.selection;
        const text = $from.parent.textContent;
        if ($from.parent.type.name === 'paragraph' && text.startsWith('/') && !text.includes(' ')) {
          const query = text.slice(1).toLowerCase();
          const coords = e.view.coordsAtPos($from.pos);
          setSlash({ query, index: 0, top: coords.bottom + window.scrollY, left: coords.left });
        } else {
          setSlash(null);
        }
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

  const items = slash ? SLASH_ITEMS.filter((i) => i.label.toLowerCase().includes(slash.query)) : [];

  const upload = useRef(null);
  const choose = (item) => {
    const editor = editorRef.current;
    const { $from } = editor.state.selection;
    const from = $from.start();
    // A dialog (the page picker, the file chooser) takes the focus itself.
    const chain = item.upload || item.picker ? editor.chain() : editor.chain().focus();
    chain.deleteRange({ from, to: $from.end() }).run();
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
    setSlash(null);
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
    } else if (event.key === 'Escape') {
      setSlash(null);
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
        <div ref={mount} onKeyDownCapture={onKeyDown} class="editor-surface" />
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
