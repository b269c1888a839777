// Co-editing: the page's shared Yjs document over Quire's WebSocket
// (y-websocket's protocol), bound to the editor by Tiptap's Collaboration
// extension, with everyone's caret and name (awareness). The server saves
// the shared document into the change request; this side fills it the
// first time and rebases it when the change request moves under it (an
// API edit, a Git import), both when the server asks.
import * as Y from 'yjs';
import { WebsocketProvider } from 'y-websocket';
import * as decoding from 'lib0/decoding';
import * as encoding from 'lib0/encoding';
import { Extension } from '@tiptap/core';
import Collaboration from '@tiptap/extension-collaboration';
import { Plugin, PluginKey, TextSelection } from '@tiptap/pm/state';
import {
  absolutePositionToRelativePosition,
  relativePositionToAbsolutePosition,
  yCursorPlugin,
  ySyncPluginKey,
} from '@tiptap/y-tiptap';
import { get } from '../api.js';
import { canonical, toEditor } from './document.js';

// Quire's messages beside y-protocols' (see quire-collab's protocol.rs).
const REBASE = 100;
const REBASED = 101;
const STATE = 102;

/// The meta of the editor's transactions that fill or rebase the shared
/// document (the editor tells them from what its writer typed).
export const REBASE_META = 'quireRebase';

/// Caret colours: white names on them are readable (contrast at least 4.5:1).
const COLORS = ['#b3261e', '#00667a', '#5b3f8c', '#a04e00', '#1b6e20', '#a3134f', '#0b57b0', '#6b5400'];

/// A person's colour, the same on every page, in the space's list and on
/// everyone's screen: chosen by their id (which the server stamps on every
/// awareness state).
export function colorOf(id) {
  let hash = 0;
  for (const ch of String(id ?? '')) hash = (hash * 31 + ch.codePointAt(0)) >>> 0;
  return COLORS[hash % COLORS.length];
}

/// The people in an awareness, one entry per person (several tabs of one
/// person count once). The local client is not among them: only the
/// server's copies of a state name the person.
export function people(awareness, include = () => true) {
  const seen = new Map();
  for (const [client, state] of awareness.getStates()) {
    const user = state?.user;
    if (!user?.id || !include(client) || seen.has(user.id)) continue;
    seen.set(user.id, { id: user.id, name: user.name ?? 'Someone', color: colorOf(user.id), ...state.where });
  }
  return [...seen.values()];
}

function send(provider, tag, body) {
  const encoder = encoding.createEncoder();
  encoding.writeVarUint(encoder, tag);
  encoding.writeVarString(encoder, JSON.stringify(body));
  if (provider.ws?.readyState === WebSocket.OPEN) provider.ws.send(encoding.toUint8Array(encoder));
}

/// Opens the shared document of a page of a change request. `onState`
/// hears `{ready, readOnly}` from the server and `{connection}` from the
/// socket; `onPeople` who is on the page.
export function connect({ spaceId, changeRequestId, pageId, onState, onPeople }) {
  const doc = new Y.Doc();
  const scheme = window.location.protocol === 'https:' ? 'wss' : 'ws';
  const url = `${scheme}://${window.location.host}/v1/spaces/${spaceId}/change-requests/${changeRequestId}/pages/${pageId}`;
  const provider = new WebsocketProvider(url, 'collaboration', doc, { disableBc: true });
  const session = { doc, provider, editor: null, rebasing: Promise.resolve() };
  // Whether this editor's own edits are all in the last save: the server
  // says, after each save, up to which clock of each editor it holds.
  let savedClock = 0;
  const mine = () => Y.decodeStateVector(Y.encodeStateVector(doc)).get(doc.clientID) ?? 0;
  const report = () => onState({ unsaved: mine() > savedClock });
  doc.on('update', (_update, origin) => {
    if (origin !== provider) report();
  });
  // Ready to edit once the server says the document is (filled from its
  // revision) and this editor has received it (y-websocket's first sync);
  // later disconnections leave it editable (offline edits merge back).
  let serverReady = false;
  let synced = false;
  provider.on('sync', (isSynced) => {
    if (!isSynced || synced) return;
    synced = true;
    onState({ ready: serverReady });
  });
  provider.messageHandlers[STATE] = (_encoder, decoder) => {
    const { saved, ...state } = JSON.parse(decoding.readVarString(decoder));
    if (saved) {
      savedClock = Math.max(savedClock, saved[String(doc.clientID)] ?? 0);
      report();
    }
    if ('ready' in state) {
      serverReady = state.ready;
      state.ready = serverReady && synced;
    }
    if (Object.keys(state).length) onState(state);
  };
  provider.messageHandlers[REBASE] = (_encoder, decoder) => {
    const asked = JSON.parse(decoding.readVarString(decoder));
    session.rebasing = session.rebasing.then(() => rebase(session, spaceId, pageId, asked)).catch((error) => {
      console.error('rebasing the shared document failed', error);
    });
  };
  // The server fills in who this is (`user.id`, `user.name`).
  provider.awareness.setLocalStateField('user', {});
  provider.awareness.on('change', () => onPeople(people(provider.awareness)));
  provider.on('status', ({ status }) => onState({ connection: status }));
  // The server closes with 1008 when the person's access ended (signed
  // out, token revoked, removed): reconnecting would only be refused, and
  // edits made now would never be saved.
  provider.on('connection-close', (event) => {
    if (event?.code !== 1008) return;
    provider.disconnect();
    onState({ readOnly: true, reason: event.reason || 'your access ended' });
  });
  return session;
}

export function disconnect(session) {
  session.provider.destroy();
  session.doc.destroy();
}

/// The editor's extensions for co-editing: the shared document and the
/// others' carets (their colour set through the DOM, their name as a label).
export function collaborationExtensions(session) {
  const Carets = Extension.create({
    name: 'carets',
    addProseMirrorPlugins() {
      return [
        yCursorPlugin(session.provider.awareness, {
          cursorBuilder: (user) => {
            const caret = document.createElement('span');
            caret.className = 'collab-caret';
            const color = colorOf(user.id);
            caret.style.borderColor = color;
            const label = document.createElement('span');
            label.className = 'collab-caret-label';
            label.style.backgroundColor = color;
            label.textContent = user.name ?? '';
            caret.append(label);
            return caret;
          },
          selectionBuilder: () => ({ class: 'collab-selection' }),
        }),
      ];
    },
  });
  const KeepCaret = Extension.create({
    name: 'keepCaret',
    addProseMirrorPlugins() {
      return [caretKeeper(session.doc)];
    },
  });
  return [Collaboration.configure({ document: session.doc, field: 'default' }), Carets, KeepCaret];
}

/// Keeps the caret where its writer left it when others' edits arrive:
/// before text inserted at it (so what each person types stays whole),
/// after text inserted before it. The caret is noted as a position in the
/// shared document, bound to the character on its left, before each
/// remote change, and put back there after it. (The binding's own
/// recovery guesses from the paragraph's text once that text changed,
/// and can move the caret past a word just inserted at it.)
export function caretKeeper(doc) {
  let view = null;
  let kept = null;
  const note = (transaction) => {
    kept = null;
    if (!view || transaction.local) return;
    const binding = ySyncPluginKey.getState(view.state)?.binding;
    const { selection } = view.state;
    if (!binding || !(selection instanceof TextSelection)) return;
    kept = {
      binding,
      anchor: absolutePositionToRelativePosition(selection.anchor, binding.type, binding.mapping),
      head: absolutePositionToRelativePosition(selection.head, binding.type, binding.mapping),
    };
  };
  const place = (binding, relative, state) => {
    const found = Y.createAbsolutePositionFromRelativePosition(relative, binding.doc);
    // A position in a paragraph someone removed is left to the binding.
    const text = found?.type;
    if (!(text instanceof Y.XmlText) || text._item?.deleted || text._item?.parent?._item?.deleted) return null;
    const at = relativePositionToAbsolutePosition(binding.doc, binding.type, relative, binding.mapping);
    if (at === null || at < 0 || at > state.doc.content.size) return null;
    return state.doc.resolve(at).parent.isTextblock ? at : null;
  };
  return new Plugin({
    key: new PluginKey('quireKeepCaret'),
    view(editorView) {
      view = editorView;
      doc.on('beforeTransaction', note);
      return {
        destroy() {
          doc.off('beforeTransaction', note);
          view = null;
        },
      };
    },
    appendTransaction(transactions, _old, state) {
      const remote = transactions.some((tr) => tr.getMeta(ySyncPluginKey)?.isChangeOrigin);
      if (!remote || !kept) return null;
      const { binding, anchor, head } = kept;
      kept = null;
      const a = place(binding, anchor, state);
      const h = place(binding, head, state);
      if (a === null || h === null) return null;
      if (state.selection.anchor === a && state.selection.head === h) return null;
      return state.tr.setSelection(TextSelection.create(state.doc, a, h)).setMeta('addToHistory', false);
    },
  });
}

/// Makes the shared document hold revision `target`'s page. With no base
/// it is filled; otherwise what changed between `base` and `target` (by
/// top-level block) is applied to what is there now, so edits not saved
/// yet stay.
async function rebase(session, spaceId, pageId, { base, target }) {
  const editor = await editorOf(session);
  const load = async (revision) => (await get(`/v1/spaces/${spaceId}/revisions/${revision}/page/${pageId}`)).document;
  const [before, after] = await Promise.all([base ? load(base) : null, load(target)]);
  if (!before) {
    editor.chain().setMeta(REBASE_META, true).setContent(toEditor(after)).run();
  } else {
    const norm = (block) => canonical(editor.schema.nodeFromJSON(block).toJSON());
    const current = editor.getJSON().content ?? [];
    const merged = mergeBlocks(current, toEditor(before).content, toEditor(after).content, norm);
    if (merged) {
      editor
        .chain()
        .setMeta(REBASE_META, true)
        .setContent({ type: 'doc', content: merged.length ? merged : [{ type: 'paragraph' }] })
        .run();
    }
  }
  send(session.provider, REBASED, { target });
}

function editorOf(session) {
  return new Promise((resolve) => {
    const wait = () => (session.editor ? resolve(session.editor) : setTimeout(wait, 20));
    wait();
  });
}

/// Applies the change from `before` to `after` (lists of blocks) to
/// `current`: blocks removed or replaced are removed where `current` still
/// has them unchanged, new ones are inserted after the block they follow.
/// A block someone changed meanwhile stays beside the new one: nothing
/// typed is dropped. Null when nothing changes.
export function mergeBlocks(current, before, after, norm) {
  const a = before.map(norm);
  const b = after.map(norm);
  // Longest common subsequence of the two revisions' blocks.
  const lcs = Array.from({ length: a.length + 1 }, () => new Int32Array(b.length + 1));
  for (let i = a.length - 1; i >= 0; i -= 1) {
    for (let j = b.length - 1; j >= 0; j -= 1) {
      lcs[i][j] = a[i] === b[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  const removed = new Set();
  const inserts = new Map(); // index in `before` they follow (-1: the start) → blocks
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      i += 1;
      j += 1;
    } else if (j < b.length && (i === a.length || lcs[i][j + 1] >= lcs[i + 1][j])) {
      const list = inserts.get(i - 1) ?? [];
      list.push(after[j]);
      inserts.set(i - 1, list);
      j += 1;
    } else {
      removed.add(i);
      i += 1;
    }
  }
  if (removed.size === 0 && inserts.size === 0) return null;
  // Where each block of `before` is now (in order; -1 when changed or gone).
  const c = current.map(norm);
  const at = [];
  let from = 0;
  for (let k = 0; k < a.length; k += 1) {
    const found = c.indexOf(a[k], from);
    at.push(found);
    if (found >= 0) from = found + 1;
  }
  const drop = new Set([...removed].map((k) => at[k]).filter((k) => k >= 0));
  // New blocks already here (the same change made on both sides) are not
  // added twice.
  const old = new Set(a);
  const here = new Set(c);
  for (const [k, blocks] of inserts) {
    const kept = blocks.filter((block) => {
      const n = norm(block);
      return old.has(n) || !here.has(n);
    });
    if (kept.length) inserts.set(k, kept);
    else inserts.delete(k);
  }
  const after_ = new Map(); // index in `current` → blocks inserted after it
  for (const [k, blocks] of inserts) {
    let anchor = -1;
    for (let m = k; m >= 0; m -= 1) {
      if (at[m] >= 0) {
        anchor = at[m];
        break;
      }
    }
    after_.set(anchor, [...(after_.get(anchor) ?? []), ...blocks]);
  }
  const out = [...(after_.get(-1) ?? [])];
  current.forEach((block, k) => {
    if (!drop.has(k)) out.push(block);
    out.push(...(after_.get(k) ?? []));
  });
  return out;
}
