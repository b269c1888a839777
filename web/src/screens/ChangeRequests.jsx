// Review: change requests by status; one change request's pages compared
// with what they were when it started (the changes rendered, both versions
// side by side, a markdown diff), and its merge.
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { all, get, post } from '../api.js';
import { navigate } from '../router.js';
import { useLoad } from './Home.jsx';
import { flatten } from './Space.jsx';
import { documentDiff, lineDiff, markLines } from '../diff.js';
import { ChangesView, SideBySide } from '../RenderedDiff.jsx';
import { PageComment, ReviewPanel } from './Review.jsx';
import { ConflictPanel } from './Conflicts.jsx';
import { PdfButton } from '../Pdf.jsx';

const STATUSES = ['open', 'merged', 'archived'];

export function ChangeRequests({ spaceId }) {
  const [status, setStatus] = useState('open');
  const [{ data, error }] = useLoad(() => all(`/v1/spaces/${spaceId}/change-requests?status=${status}`), [spaceId, status]);
  return (
    <main id="main" class="page">
      <p class="crumbs"><a href={`/s/${spaceId}/`}>Back to the space</a></p>
      <h1>Change requests</h1>
      <div role="tablist" aria-label="Status" class="tabs">
        {STATUSES.map((s) => (
          <button type="button" role="tab" aria-selected={s === status} onClick={() => setStatus(s)}>{s}</button>
        ))}
      </div>
      {error && <p class="error" role="alert">{error.message}</p>}
      <ul class="list">
        {data?.map((cr) => (
          <li key={cr.id}>
            <a href={`/s/${spaceId}/change-requests/${cr.number}`}>#{cr.number} {cr.subject || 'Untitled'}</a>
            <span class="muted"> by {cr.createdBy?.displayName}</span>
          </li>
        ))}
      </ul>
      {data && data.length === 0 && <p class="muted">No {status} change request.</p>}
    </main>
  );
}

// Other screens take the line diff from here too.
export { lineDiff };

/// A line's words: kept, added (`<ins>`) and removed (`<del>`).
function Words({ parts }) {
  return parts.map((part) => {
    if (part.kind === 'added') return <ins class="diff-word diff-word-added">{part.text}</ins>;
    if (part.kind === 'removed') return <del class="diff-word diff-word-removed">{part.text}</del>;
    return part.text;
  });
}

/// A line diff, each line marked (and named for screen readers) as added
/// or removed, and in a removed line replaced by an added one, the words
/// that changed (`<del>`, `<ins>`).
export function DiffView({ lines, label }) {
  const marked = useMemo(() => markLines(lines), [lines]);
  return (
    <pre class="diff" aria-label={label}>
      {marked.map((line) => (
        <div class={`diff-${line.kind}`}>
          <span aria-hidden="true">{line.kind === 'added' ? '+ ' : line.kind === 'removed' ? '- ' : '  '}</span>
          <span class="visually-hidden">{line.kind === 'same' ? '' : `${line.kind}: `}</span>
          {line.parts ? <Words parts={line.parts} /> : line.text}
        </div>
      ))}
    </pre>
  );
}

/// The revision a change request's changes are shown against: the space's
/// revision it was last based on (opened from, updated from, merged onto).
function baseOf(cr) {
  return cr.revisionMergedAncestor || cr.revisionInitial;
}

/// The pages a change request changed: added, deleted, moved, renamed or
/// with other content (their `documentId`, which names the content, differs
/// from the base's), each with its markdown before and after. Only the
/// changed pages' markdown is read, all at once.
async function changedPages(spaceId, cr) {
  const [before, after] = await Promise.all([
    get(`/v1/spaces/${spaceId}/revisions/${baseOf(cr)}`),
    get(`/v1/spaces/${spaceId}/change-requests/${cr.id}/content`),
  ]);
  const old = new Map(flatten(before.pages).map(({ page }) => [page.id, page]));
  const found = [];
  for (const { page } of flatten(after.pages)) {
    if (page.type !== 'document') continue;
    const was = old.get(page.id);
    old.delete(page.id);
    const moved = Boolean(was && was.path !== page.path);
    if (was && was.documentId === page.documentId && was.title === page.title && !moved) continue;
    found.push({ page, was, moved });
  }
  const markdown = (path) => get(`${path}?format=markdown`).then((answer) => answer.markdown ?? '');
  const changes = await Promise.all(
    found.map(async ({ page, was, moved }) => {
      const [then, now] = await Promise.all([
        was ? markdown(`/v1/spaces/${spaceId}/revisions/${baseOf(cr)}/page/${page.id}`) : '',
        markdown(`/v1/spaces/${spaceId}/change-requests/${cr.id}/content/page/${page.id}`),
      ]);
      return { page, was, before: then, after: now, moved };
    }),
  );
  for (const page of old.values()) {
    if (page.type === 'document') changes.push({ page, was: page, deleted: true, before: '', after: '' });
  }
  return changes;
}

/// The headings of a JSON document: their anchor and text.
function headingsOf(document) {
  return (document?.nodes ?? [])
    .filter((n) => /^heading-[123]$/.test(n.type) && n.data?.id)
    .map((n) => ({
      id: n.data.id,
      text: (n.nodes ?? []).flatMap((t) => (t.leaves ?? []).map((l) => l.text)).join(''),
    }));
}

/// Whether an element has come near the screen (and stays so once it
/// has): what is heavy to show waits for it.
function useNear(ref) {
  const [near, setNear] = useState(typeof IntersectionObserver === 'undefined');
  useEffect(() => {
    if (near || !ref.current) return undefined;
    const observer = new IntersectionObserver((entries) => entries.some((e) => e.isIntersecting) && setNear(true), { rootMargin: '600px 0px' });
    observer.observe(ref.current);
    return () => observer.disconnect();
  }, [near]);
  return near;
}

/// The ways a page's changes are shown.
const VIEWS = [
  ['changes', 'Changes'],
  ['side', 'Side by side'],
  ['markdown', 'Markdown diff'],
];

function PageChange({ spaceId, cr, change, onComment }) {
  const [view, setView] = useState('changes');
  const here = useRef(null);
  const near = useNear(here);
  // Both versions' JSON documents, once the page is near the screen.
  const [{ data: docs, error }] = useLoad(async () => {
    if (!near) return null;
    const [before, after] = await Promise.all([
      change.was ? get(`/v1/spaces/${spaceId}/revisions/${baseOf(cr)}/page/${change.page.id}`) : null,
      change.deleted ? null : get(`/v1/spaces/${spaceId}/change-requests/${cr.id}/content/page/${change.page.id}`),
    ]);
    return { before: before?.document ?? null, after: after?.document ?? null };
  }, [near, spaceId, cr.id, change]);
  const diff = useMemo(() => docs && documentDiff(docs.before, docs.after), [docs]);
  const lines = useMemo(() => lineDiff(change.before, change.after), [change]);
  const status = change.deleted ? 'deleted' : !change.was ? 'added' : change.moved ? `moved from ${change.was.path}` : 'edited';
  const [headings, setHeadings] = useState(null);
  const startComment = async () => {
    const now = docs?.after ?? (await get(`/v1/spaces/${spaceId}/change-requests/${cr.id}/content/page/${change.page.id}`)).document;
    setHeadings(headingsOf(now));
  };
  const id = `change-${change.page.id}`;
  const title = change.page.title;
  return (
    <section class="page-change" ref={here}>
      <h3>
        {title} <span class="badge">{status}</span>
        {change.was && change.was.title !== title && <span class="muted"> (was “{change.was.title}”)</span>}
      </h3>
      <div class="tabs" role="tablist" aria-label={`How to show ${title}`}>
        {VIEWS.map(([name, text]) => (
          <button type="button" role="tab" id={`${id}-${name}`} aria-controls={`${id}-panel`} aria-selected={view === name} onClick={() => setView(name)}>
            {text}
          </button>
        ))}
      </div>
      {!change.deleted && cr.status === 'open' && !headings && (
        <button type="button" onClick={startComment}>Comment on this page</button>
      )}
      {headings && (
        <PageComment
          base={`/v1/spaces/${spaceId}/change-requests/${cr.id}`}
          page={change.page}
          headings={headings}
          onPosted={() => {
            setHeadings(null);
            onComment();
          }}
        />
      )}
      <div role="tabpanel" id={`${id}-panel`} aria-labelledby={`${id}-${view}`}>
        {view === 'markdown' ? (
          <DiffView lines={lines} label={`Changes to ${title}`} />
        ) : error ? (
          <p class="error" role="alert">{error.message}</p>
        ) : !diff ? (
          <p class="muted" aria-busy="true">Loading the page…</p>
        ) : view === 'changes' ? (
          <ChangesView diff={diff} label={`Changes to ${title}`} />
        ) : (
          <SideBySide diff={diff} before={docs.before} after={docs.after} />
        )}
      </div>
    </section>
  );
}

export function ChangeRequest({ spaceId, number, me }) {
  const [{ data, error }, reload] = useLoad(async () => {
    // By its number, whatever its status (the API takes an id or a number).
    const [cr, space] = await Promise.all([
      get(`/v1/spaces/${spaceId}/change-requests/${encodeURIComponent(number)}`).catch((e) => {
        throw e.status === 404 ? new Error(`change request #${number} not found`) : e;
      }),
      get(`/v1/spaces/${spaceId}`),
    ]);
    const [changes, conflicts] = await Promise.all([
      changedPages(spaceId, cr),
      cr.status === 'open' ? get(`/v1/spaces/${spaceId}/change-requests/${cr.id}/conflicts`).then((c) => c.items) : [],
    ]);
    return { cr, space, changes, conflicts };
  }, [spaceId, number]);
  const [problem, setProblem] = useState(null);
  const [comments, setComments] = useState(0);
  if (error) return <main id="main" class="page"><p class="error" role="alert">{error.message}</p></main>;
  if (!data) return <main id="main" class="page" aria-busy="true" />;
  const { cr, space, changes, conflicts } = data;
  const merge = async () => {
    try {
      await post(`/v1/spaces/${spaceId}/change-requests/${cr.id}/merge`);
      navigate(`/s/${spaceId}/`);
    } catch (e) {
      setProblem(e.message);
      reload();
    }
  };
  return (
    <main id="main" class="page">
      <p class="crumbs"><a href={`/s/${spaceId}/change-requests`}>Change requests</a></p>
      <h1>#{cr.number} {cr.subject || 'Untitled'}</h1>
      <p class="muted">
        <span class={`badge cr-${cr.status}`}>{cr.status}</span> · opened by {cr.createdBy?.displayName}
        {cr.status === 'merged' && cr.mergedBy && ` · merged by ${cr.mergedBy.displayName}`}
      </p>
      {cr.status !== 'open' && (
        <p class="muted" role="note">
          This change request is {cr.status}: it is shown read-only.
        </p>
      )}
      {problem && <p class="error" role="alert">{problem}</p>}
      <div class="toolbar">
        {cr.status === 'open' && (
          <>
            <a class="button" href={`/s/${spaceId}/change-requests/${cr.number}/edit/`}>Continue editing</a>
            <button type="button" class="primary" onClick={merge} disabled={conflicts.length > 0}>Merge</button>
          </>
        )}
        <PdfButton path={`/v1/spaces/${spaceId}/change-requests/${cr.id}/pdf`} label="PDF of this change request" />
      </div>
      {conflicts.length > 0 && (
        <ConflictPanel
          base={`/v1/spaces/${spaceId}/change-requests/${cr.id}`}
          conflicts={conflicts}
          onSettled={() => {
            setProblem(null);
            reload();
          }}
        />
      )}
      <h2>{changes.length} changed page{changes.length === 1 ? '' : 's'}</h2>
      {changes.map((change) => (
        <PageChange key={change.page.id} spaceId={spaceId} cr={cr} change={change} onComment={() => setComments((n) => n + 1)} />
      ))}
      <ReviewPanel spaceId={spaceId} cr={cr} me={me} orgId={space.organization} refresh={comments} />
    </main>
  );
}
