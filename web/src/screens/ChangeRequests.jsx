// Review: change requests by status; one change request's pages side by
// side with what they were when it started (rendered, and as a markdown
// diff), and its merge.
import { useState } from 'preact/hooks';
import { all, get, post } from '../api.js';
import { navigate } from '../router.js';
import { useLoad } from './Home.jsx';
import { DocumentView, flatten } from './Space.jsx';
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

/// Lines of `a` and `b` as a diff: each line kept, removed or added.
export function lineDiff(a, b) {
  const x = a.split('\n');
  const y = b.split('\n');
  const n = x.length;
  const m = y.length;
  const lcs = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i -= 1) {
    for (let j = m - 1; j >= 0; j -= 1) {
      lcs[i][j] = x[i] === y[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  const out = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (x[i] === y[j]) {
      out.push({ kind: 'same', text: x[i] });
      i += 1;
      j += 1;
    } else if (lcs[i + 1][j] >= lcs[i][j + 1]) {
      out.push({ kind: 'removed', text: x[i] });
      i += 1;
    } else {
      out.push({ kind: 'added', text: y[j] });
      j += 1;
    }
  }
  while (i < n) out.push({ kind: 'removed', text: x[i++] });
  while (j < m) out.push({ kind: 'added', text: y[j++] });
  return out;
}

/// A line diff, each line marked (and named for screen readers) as added
/// or removed.
export function DiffView({ lines, label }) {
  return (
    <pre class="diff" aria-label={label}>
      {lines.map((line) => (
        <div class={`diff-${line.kind}`}>
          <span aria-hidden="true">{line.kind === 'added' ? '+ ' : line.kind === 'removed' ? '- ' : '  '}</span>
          <span class="visually-hidden">{line.kind === 'same' ? '' : `${line.kind}: `}</span>
          {line.text}
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

async function changedPages(spaceId, cr) {
  const [before, after] = await Promise.all([
    get(`/v1/spaces/${spaceId}/revisions/${baseOf(cr)}`),
    get(`/v1/spaces/${spaceId}/change-requests/${cr.id}/content`),
  ]);
  const old = new Map(flatten(before.pages).map(({ page }) => [page.id, page]));
  const changes = [];
  for (const { page } of flatten(after.pages)) {
    if (page.type !== 'document') continue;
    const was = old.get(page.id);
    const now = await get(`/v1/spaces/${spaceId}/change-requests/${cr.id}/content/page/${page.id}?format=markdown`);
    const then = was ? await get(`/v1/spaces/${spaceId}/revisions/${baseOf(cr)}/page/${page.id}?format=markdown`) : null;
    const moved = was && was.path !== page.path;
    if (!was || then.markdown !== now.markdown || was.title !== page.title || moved) {
      changes.push({ page, was, before: then?.markdown ?? '', after: now.markdown ?? '', moved });
    }
    old.delete(page.id);
  }
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

function PageChange({ spaceId, cr, change, onComment }) {
  const [view, setView] = useState('diff');
  const [docs, setDocs] = useState(null);
  const showRendered = async () => {
    setView('rendered');
    if (docs) return;
    const [before, after] = await Promise.all([
      change.was ? get(`/v1/spaces/${spaceId}/revisions/${baseOf(cr)}/page/${change.page.id}`) : null,
      change.deleted ? null : get(`/v1/spaces/${spaceId}/change-requests/${cr.id}/content/page/${change.page.id}`),
    ]);
    setDocs({ before: before?.document, after: after?.document });
  };
  const status = change.deleted ? 'deleted' : !change.was ? 'added' : change.moved ? `moved from ${change.was.path}` : 'edited';
  const [headings, setHeadings] = useState(null);
  const startComment = async () => {
    const now = await get(`/v1/spaces/${spaceId}/change-requests/${cr.id}/content/page/${change.page.id}`);
    setHeadings(headingsOf(now.document));
  };
  return (
    <section class="page-change">
      <h3>
        {change.page.title} <span class="badge">{status}</span>
        {change.was && change.was.title !== change.page.title && <span class="muted"> (was “{change.was.title}”)</span>}
      </h3>
      <div class="tabs" role="tablist" aria-label={`How to show ${change.page.title}`}>
        <button type="button" role="tab" aria-selected={view === 'diff'} onClick={() => setView('diff')}>Markdown diff</button>
        <button type="button" role="tab" aria-selected={view === 'rendered'} onClick={showRendered}>Side by side</button>
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
      {view === 'diff' ? (
        <DiffView lines={lineDiff(change.before, change.after)} label={`Changes to ${change.page.title}`} />
      ) : (
        <div class="side-by-side">
          <div><h4>Before</h4>{docs?.before ? <DocumentView document={docs.before} /> : <p class="muted">No page</p>}</div>
          <div><h4>After</h4>{docs?.after ? <DocumentView document={docs.after} /> : <p class="muted">No page</p>}</div>
        </div>
      )}
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
