// A space: its page tree and a page, read; editing opens (or continues) a
// change request, as every edit happens in one.
import { useEffect, useRef, useState } from 'preact/hooks';
import { Editor as TiptapEditor } from '@tiptap/core';
import { all, get, post } from '../api.js';
import { navigate } from '../router.js';
import { useLoad } from './Home.jsx';
import { extensions, knowFiles, knowPages } from '../editor/extensions.js';
import { toEditor } from '../editor/document.js';
import { PageEditor } from '../editor/Editor.jsx';
import { People } from '../People.jsx';
import { doing, usePresence } from '../presence.js';
import { DiffView } from './ChangeRequests.jsx';
import { lineDiff } from '../diff.js';
import { restore } from './History.jsx';
import { PdfButton } from '../Pdf.jsx';

/// A page's title by its id, among rows of `flatten`.
function titleIn(rows) {
  return (id) => rows.find(({ page }) => page.id === id)?.page.title ?? null;
}

/// Every page of a tree, depth first, with its parent's id and its place
/// among its siblings.
export function flatten(pages, depth = 0, out = [], parent = null) {
  (pages ?? []).forEach((page, index) => {
    out.push({ page, depth, parent, index, siblings: pages });
    flatten(page.pages, depth + 1, out, page.id);
  });
  return out;
}

/// Where a move puts a page: `{ into, at }` as `update_page` takes them (the
/// place among the new siblings, the page itself left out), or null when
/// the move makes no sense (into itself or its own subpages).
export function placeFor(rows, moving, target, zone) {
  if (moving.page.id === target.page.id) return null;
  for (let up = target; up; up = rows.find((r) => r.page.id === up.parent)) {
    if (up.page.id === moving.page.id) return null;
  }
  if (zone === 'into') return { into: target.page.id, at: (target.page.pages ?? []).filter((p) => p.id !== moving.page.id).length };
  let at = zone === 'before' ? target.index : target.index + 1;
  if (moving.parent === target.parent && moving.index < at) at -= 1;
  return { into: target.parent, at };
}

/// The keyboard's moves (Alt with an arrow): up and down among siblings,
/// right into the previous sibling, left out of the parent.
function keyboardPlace(rows, row, key) {
  const siblings = row.siblings;
  if (key === 'ArrowUp' && row.index > 0) return { into: row.parent, at: row.index - 1 };
  if (key === 'ArrowDown' && row.index < siblings.length - 1) return { into: row.parent, at: row.index + 1 };
  if (key === 'ArrowRight' && row.index > 0) {
    const previous = siblings[row.index - 1];
    return { into: previous.id, at: (previous.pages ?? []).length };
  }
  if (key === 'ArrowLeft' && row.parent) {
    const parent = rows.find((r) => r.page.id === row.parent);
    return { into: parent.parent, at: parent.index + 1 };
  }
  return null;
}

/// The page tree: a list of links, indented by depth, only the rows in view
/// drawn (10,000 pages stay smooth).
export function PageTree({ pages, currentId, hrefOf, label = 'Pages', onMove, renamed = {}, present = [] }) {
  const rows = flatten(pages).filter(({ page }) => page.type !== 'link');
  const ROW = 30;
  const scroller = useRef(null);
  const [view, setView] = useState({ top: 0, height: 800 });
  useEffect(() => {
    const el = scroller.current;
    if (!el) return undefined;
    const update = () => setView({ top: el.scrollTop, height: el.clientHeight || 800 });
    update();
    el.addEventListener('scroll', update, { passive: true });
    return () => el.removeEventListener('scroll', update);
  }, []);
  const [drag, setDrag] = useState(null);
  const zoneOf = (event) => {
    const { top, height } = event.currentTarget.getBoundingClientRect();
    const y = event.clientY - top;
    return y < height / 4 ? 'before' : y > (3 * height) / 4 ? 'after' : 'into';
  };
  const movable = onMove
    ? (row) => ({
        draggable: true,
        onDragStart: (event) => {
          event.dataTransfer.setData('text/plain', row.page.id);
          setDrag({ moving: row });
        },
        onDragOver: (event) => {
          if (!drag) return;
          event.preventDefault();
          setDrag({ ...drag, over: row.page.id, zone: zoneOf(event) });
        },
        onDrop: (event) => {
          event.preventDefault();
          const place = drag && placeFor(rows, drag.moving, row, zoneOf(event));
          setDrag(null);
          if (place) onMove(drag.moving.page, place);
        },
        onDragEnd: () => setDrag(null),
        onKeyDown: (event) => {
          if (!event.altKey) return;
          const place = keyboardPlace(rows, row, event.key);
          if (!place) return;
          event.preventDefault();
          onMove(row.page, place);
        },
      })
    : () => ({});
  const first = Math.max(0, Math.floor(view.top / ROW) - 10);
  const last = Math.min(rows.length, Math.ceil((view.top + view.height) / ROW) + 10);
  return (
    <nav class="tree" aria-label={label} ref={scroller}>
      <ul style={{ height: `${rows.length * ROW}px` }}>
        {rows.slice(first, last).map((row, i) => {
          const { page, depth } = row;
          const over = drag?.over === page.id ? ` drop-${drag.zone}` : '';
          return (
          <li key={page.id} class={over} style={{ top: `${(first + i) * ROW}px`, paddingLeft: `${0.5 + depth}rem` }}>
            <a
              href={hrefOf(page)}
              aria-current={page.id === currentId ? 'page' : undefined}
              aria-keyshortcuts={onMove ? 'Alt+ArrowUp Alt+ArrowDown Alt+ArrowLeft Alt+ArrowRight' : undefined}
              data-page={page.id}
              {...movable(row)}
            >
              {page.emoji ? `${page.emoji} ` : ''}{renamed[page.id] ?? page.title}
              <Here people={present.filter((p) => p.page === page.id)} />
            </a>
          </li>
          );
        })}
      </ul>
      {onMove && <p class="muted tree-help">Drag pages, or Alt with the arrow keys, to move them.</p>}
    </nav>
  );
}

/// The people on a page of the tree: a dot each (three at most), their
/// names for screen readers.
function Here({ people }) {
  if (people.length === 0) return null;
  return (
    <span class="here">
      {people.slice(0, 3).map((p) => (
        <i key={p.id} aria-hidden="true" style={{ backgroundColor: p.color }} />
      ))}
      <span class="visually-hidden">, {people.map((p) => p.name).join(', ')} here</span>
    </span>
  );
}

const NO_EXTENSIONS = [];

/// A document shown read-only, with the editor's own rendering: the API's
/// `document`, or `content` (the editor's JSON) with `more` extensions (a
/// diff's marks), named `label`, with more `attributes` (its role).
export function DocumentView({ document, content, more = NO_EXTENSIONS, label = 'Page content', attributes }) {
  const mount = useRef(null);
  useEffect(() => {
    const editor = new TiptapEditor({
      element: mount.current,
      extensions: [...extensions(), ...more],
      content: content ?? toEditor(document),
      editable: false,
      editorProps: { attributes: { ...attributes, class: 'prose', 'aria-label': label } },
    });
    return () => editor.destroy();
  }, [document, content, more]);
  return <div ref={mount} />;
}

/// The caller's open change request on the space, or a new one.
async function ownChangeRequest(spaceId, me, subject) {
  const open = await all(`/v1/spaces/${spaceId}/change-requests?status=open`);
  const mine = open.find((cr) => cr.createdBy?.id === me.id);
  return mine ?? post(`/v1/spaces/${spaceId}/change-requests`, { subject });
}

/// A past version of a page: when it was, how it differs from now, and
/// restoring it.
function PastVersion({ spaceId, revision, page }) {
  const [diff, setDiff] = useState(null);
  const [busy, setBusy] = useState(false);
  const compare = async () => {
    const [then, now] = await Promise.all([
      get(`/v1/spaces/${spaceId}/revisions/${revision}/page/${page.id}?format=markdown`),
      get(`/v1/spaces/${spaceId}/content/page/${page.id}?format=markdown`).catch(() => ({ markdown: '' })),
    ]);
    setDiff(lineDiff(now.markdown ?? '', then.markdown ?? ''));
  };
  const restorePage = async () => {
    setBusy(true);
    const number = await restore(spaceId, revision, [page.id], `Restore ${page.title}`);
    navigate(`/s/${spaceId}/change-requests/${number}`);
  };
  return (
    <div class="past" role="note">
      <p>You are reading a past version of this space.</p>
      <div class="toolbar">
        <button type="button" onClick={compare}>Compare with now</button>
        <button type="button" class="primary" onClick={restorePage} disabled={busy}>Restore this page</button>
        <a class="button" href={`/s/${spaceId}/`}>Back to now</a>
      </div>
      {diff && <DiffView lines={diff} label="From now to this version" />}
    </div>
  );
}

export function Space({ spaceId, pagePath, revision, me }) {
  // The tree shows as soon as the space's content arrives; the page follows.
  const source = revision ? `revisions/${revision}` : 'content';
  const [{ data, error }] = useLoad(async () => {
    const [space, content] = await Promise.all([get(`/v1/spaces/${spaceId}`), get(`/v1/spaces/${spaceId}/${source}`)]);
    const rows = flatten(content.pages).filter(({ page }) => page.type === 'document');
    // The page's images are this content's files, its link cards name its
    // pages (as in the review).
    knowFiles(`/v1/spaces/${spaceId}/${source}`);
    knowPages(rows.map(({ page }) => page));
    return { space, content, rows };
  }, [spaceId, source]);
  const current = data && (pagePath ? data.rows.find(({ page }) => page.path === pagePath)?.page : data.rows[0]?.page);
  const [{ data: page, error: pageError }] = useLoad(
    async () => (current ? get(`/v1/spaces/${spaceId}/${revision ? `revisions/${revision}/page` : 'content/page'}/${current.id}`) : null),
    [spaceId, source, current?.id],
  );
  const [busy, setBusy] = useState(false);
  const present = usePresence(spaceId, { page: current?.id });
  if (error || pageError) return <main id="main" class="page"><p class="error" role="alert">{(error ?? pageError).message}</p></main>;
  if (!data) return <main id="main" class="page" aria-busy="true" />;
  const { space, content } = data;

  const edit = async () => {
    setBusy(true);
    const cr = await ownChangeRequest(spaceId, me, page ? `Edit ${page.title}` : 'New page');
    navigate(`/s/${spaceId}/change-requests/${cr.number}/edit/${page?.id ?? ''}`);
  };
  const newPage = async () => {
    setBusy(true);
    const cr = await ownChangeRequest(spaceId, me, 'New page');
    const result = await post(`/v1/spaces/${spaceId}/change-requests/${cr.id}/content?compat=false`, {
      changes: [{ operation: 'insert_page', title: 'Untitled', ref: 'new', document: {} }],
    });
    const created = result.changes.find((c) => c.object === 'created_page')?.page.id;
    navigate(`/s/${spaceId}/change-requests/${cr.number}/edit/${created ?? ''}`);
  };

  return (
    <div class="space-layout">
      <aside class="sidebar">
        <p class="crumbs"><a href={space.parent ? `/c/${space.parent}/` : `/o/${space.organization}/`}>Back</a></p>
        <h2 class="space-title">{space.emoji ? `${space.emoji} ` : ''}{space.title}</h2>
        <People people={present} label="In this space" describe={(p) => doing(p, titleIn(data.rows))} />
        <PageTree
          pages={content.pages}
          present={present}
          currentId={current?.id}
          hrefOf={(p) => (revision ? `/s/${spaceId}/revisions/${revision}/${p.path}` : `/s/${spaceId}/${p.path}`)}
        />
        <p><a href={`/s/${spaceId}/change-requests`}>Change requests</a></p>
        <p><a href={`/s/${spaceId}/history`}>History</a></p>
        <p><a href={`/s/${spaceId}/permissions`}>Sharing</a></p>
        <p><a href={`/s/${spaceId}/git-sync`}>Git Sync</a></p>
        <p><PdfButton path={`/v1/spaces/${spaceId}/pdf`} /></p>
      </aside>
      <main id="main" class="page" aria-busy={current && !page ? 'true' : undefined}>
        {revision ? (
          page && <PastVersion spaceId={spaceId} revision={revision} page={page} />
        ) : (
          <div class="toolbar">
            <button type="button" class="primary" onClick={edit} disabled={busy || !page}>Edit</button>
            <button type="button" onClick={newPage} disabled={busy}>New page</button>
            {page && <a class="button" href={`/s/${spaceId}/history?page=${page.id}`}>Page history</a>}
          </div>
        )}
        {page ? (
          <article>
            <h1>{page.title}</h1>
            {page.description && <p class="lead">{page.description}</p>}
            <DocumentView document={page.document} />
          </article>
        ) : (
          !current && <p class="muted">This space has no page yet.</p>
        )}
      </main>
    </div>
  );
}

/// Editing a page in a change request.
export function EditPage({ spaceId, number, pageId }) {
  const document = useRef(null);
  // Titles typed in the editor, shown in the tree at once.
  const [renamed, setRenamed] = useState({});
  const [{ data, error }, reload] = useLoad(async () => {
    // By its number, whatever its status (the API takes an id or a number).
    const cr = await get(`/v1/spaces/${spaceId}/change-requests/${encodeURIComponent(number)}`).catch((e) => {
      throw e.status === 404 ? new Error(`change request #${number} not found`) : e;
    });
    const content = await get(`/v1/spaces/${spaceId}/change-requests/${cr.id}/content`);
    const rows = flatten(content.pages).filter(({ page }) => page.type === 'document');
    const id = pageId || rows[0]?.page.id;
    const base = `/v1/spaces/${spaceId}/change-requests/${cr.id}/content/page/${id}`;
    const [page, source] = id ? await Promise.all([get(base), get(`${base}?format=markdown`)]) : [null, null];
    document.current = page?.document;
    return { cr, content, page, markdown: source?.markdown ?? '' };
  }, [spaceId, number, pageId]);
  const present = usePresence(spaceId, { page: data?.page?.id, changeRequest: number, editing: true });
  if (error) return <main id="main" class="page"><p class="error" role="alert">{error.message}</p></main>;
  if (!data) return <main id="main" class="page" aria-busy="true" />;
  const { cr, content, page, markdown } = data;
  return (
    <div class="space-layout">
      <aside class="sidebar">
        <p class="crumbs"><a href={`/s/${spaceId}/change-requests/${number}`}>#{number} {cr.subject}</a></p>
        <People
          people={present}
          label="In this space"
          describe={(p) => doing(p, titleIn(flatten(content.pages)))}
        />
        <PageTree
          pages={content.pages}
          present={present.filter((p) => p.editing && String(p.changeRequest) === String(number))}
          currentId={page?.id}
          hrefOf={(p) => `/s/${spaceId}/change-requests/${number}/edit/${p.id}`}
          renamed={renamed}
          onMove={async (moved, place) => {
            await post(`/v1/spaces/${spaceId}/change-requests/${cr.id}/content`, {
              changes: [{ operation: 'update_page', page: moved.id, into: place.into, at: place.at }],
            });
            await reload();
            window.document.querySelector(`.tree a[data-page="${moved.id}"]`)?.focus();
          }}
        />
      </aside>
      <main id="main" class="page">
        <div class="toolbar">
          <a class="button" href={`/s/${spaceId}/change-requests/${number}`}>Review and merge</a>
        </div>
        {page ? (
          <PageEditor
            key={page.id}
            spaceId={spaceId}
            changeRequest={cr}
            page={page}
            document={document}
            markdown={markdown}
            onTitle={(title) => setRenamed((r) => ({ ...r, [page.id]: title }))}
            pages={flatten(content.pages).filter(({ page: p }) => p.type === 'document').map(({ page: p }) => p)}
          />
        ) : (
          <p class="muted">No page to edit.</p>
        )}
      </main>
    </div>
  );
}
