// Review: change requests by status; one change request's pages compared
// with what they were when it started (the changes rendered, both versions
// side by side, a markdown diff), comments on a page and on any block of
// it (shown under the block they are about), and its merge.
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { all, get, post } from '../api.js';
import { navigate } from '../router.js';
import { useLoad } from './Home.jsx';
import { flatten } from './Space.jsx';
import { documentDiff, lineDiff, markLines } from '../diff.js';
import { ChangesView, SideBySide } from '../RenderedDiff.jsx';
import { BlockComment, Comments, PageComment, ReviewPanel } from './Review.jsx';
import { commentsByPage, isBlockKey, placeComments } from '../comments.js';
import { ConflictPanel } from './Conflicts.jsx';
import { PdfButton } from '../Pdf.jsx';
import { knowFiles, knowPages } from '../editor/extensions.js';

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
  return { changes, pages: flatten(after.pages).map(({ page }) => page) };
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

/// What a comment on an earlier version of a block was about: a heading's
/// anchor reads as one; a block's key says nothing to a reader.
function earlierAbout(comment) {
  const id = comment.target.node.id;
  return isBlockKey(id) ? 'on a block since edited or removed' : `on #${id}`;
}

/// Focus for what `selector` finds inside `within` once it is drawn:
/// `focusOn(selector)` asks for it (after a form closes, its button).
/// Effects run children first, so the blocks drawn again are there.
function useFocusLater(within) {
  const [selector, focusOn] = useState(null);
  useEffect(() => {
    if (!selector) return;
    within.current?.querySelector(selector)?.focus();
    focusOn(null);
  }, [selector]);
  return focusOn;
}

/// One changed page: its comments (on the page as a whole, on blocks
/// since changed), how it changed (rendered, side by side, markdown), the
/// comments on its blocks under them in the rendered changes, and the
/// forms commenting on the page and on any of its blocks (unless the
/// change request is no longer open: `readOnly`).
function PageChange({ spaceId, cr, change, comments, reloadComments, readOnly }) {
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
  const base = `/v1/spaces/${spaceId}/change-requests/${cr.id}`;
  // Comments on blocks wait for the page's blocks (or its failure to load).
  const placed = useMemo(() => placeComments(comments, diff?.items ?? (error ? [] : null)), [comments, diff, error]);
  const [commentingPage, setCommentingPage] = useState(false);
  // The key of the block whose comment form is open.
  const [commentingOn, setCommentingOn] = useState(null);
  const focusOn = useFocusLater(here);
  const closeBlockForm = (key) => {
    setCommentingOn(null);
    focusOn(`.block-comment-button[data-for-block="${key}"]`);
  };
  const commenting = {
    beneath: (item, index) => {
      const thread = placed.underBlock.get(index);
      const open = !readOnly && item.key && commentingOn === item.key;
      if (!thread && !open) return null;
      return (
        <>
          {thread && <Comments base={base} comments={thread} reload={reloadComments} readOnly={readOnly} label="Comments on this block" />}
          {open && (
            <BlockComment
              base={base}
              pageId={change.page.id}
              node={item.key}
              onPosted={async () => {
                // The new thread takes the form's place under the block.
                await reloadComments();
                closeBlockForm(item.key);
              }}
              onCancel={() => closeBlockForm(item.key)}
            />
          )}
        </>
      );
    },
    onComment: readOnly ? null : (key) => setCommentingOn(key),
  };
  const inPlace = [...placed.underBlock.values()].reduce((n, list) => n + list.length, 0);
  const id = `change-${change.page.id}`;
  const title = change.page.title;
  return (
    <section class="page-change" ref={here}>
      <h3>
        {title} <span class="badge">{status}</span>
        {change.was && change.was.title !== title && <span class="muted"> (was “{change.was.title}”)</span>}
      </h3>
      {placed.onPage.length > 0 && (
        <div class="page-comments">
          <h4>On this page</h4>
          <Comments base={base} comments={placed.onPage} reload={reloadComments} readOnly={readOnly} label={`Comments on ${title}`} />
        </div>
      )}
      {placed.earlier.length > 0 && (
        <div class="page-comments">
          <h4>Comments on earlier versions of blocks</h4>
          <Comments
            base={base}
            comments={placed.earlier}
            reload={reloadComments}
            readOnly={readOnly}
            label="Comments on earlier versions of blocks"
            about={earlierAbout}
          />
        </div>
      )}
      {!change.deleted && !readOnly && !commentingPage && (
        <button type="button" class="page-comment-button" onClick={() => setCommentingPage(true)}>Comment on this page</button>
      )}
      {commentingPage && !readOnly && (
        <PageComment
          base={base}
          page={change.page}
          onPosted={async () => {
            await reloadComments();
            setCommentingPage(false);
            focusOn('.page-comment-button');
          }}
          onCancel={() => {
            setCommentingPage(false);
            focusOn('.page-comment-button');
          }}
        />
      )}
      <div class="tabs" role="tablist" aria-label={`How to show ${title}`}>
        {VIEWS.map(([name, text]) => (
          <button type="button" role="tab" id={`${id}-${name}`} aria-controls={`${id}-panel`} aria-selected={view === name} onClick={() => setView(name)}>
            {text}
          </button>
        ))}
      </div>
      {view !== 'changes' && inPlace > 0 && (
        <p class="muted">
          {inPlace} comment{inPlace === 1 ? ' is' : 's are'} shown under {inPlace === 1 ? 'its block' : 'their blocks'} in Changes.
        </p>
      )}
      <div role="tabpanel" id={`${id}-panel`} aria-labelledby={`${id}-${view}`}>
        {view === 'markdown' ? (
          <DiffView lines={lines} label={`Changes to ${title}`} />
        ) : error ? (
          <p class="error" role="alert">{error.message}</p>
        ) : !diff ? (
          <p class="muted" aria-busy="true">Loading the page…</p>
        ) : view === 'changes' ? (
          <ChangesView diff={diff} label={`Changes to ${title}`} commenting={commenting} />
        ) : (
          <SideBySide diff={diff} before={docs.before} after={docs.after} />
        )}
      </div>
    </section>
  );
}

const NO_COMMENTS = [];

export function ChangeRequest({ spaceId, number, me }) {
  const [{ data, error }, reload] = useLoad(async () => {
    // By its number, whatever its status (the API takes an id or a number).
    const [cr, space] = await Promise.all([
      get(`/v1/spaces/${spaceId}/change-requests/${encodeURIComponent(number)}`).catch((e) => {
        throw e.status === 404 ? new Error(`change request #${number} not found`) : e;
      }),
      get(`/v1/spaces/${spaceId}`),
    ]);
    const [{ changes, pages }, conflicts] = await Promise.all([
      changedPages(spaceId, cr),
      cr.status === 'open' ? get(`/v1/spaces/${spaceId}/change-requests/${cr.id}/conflicts`).then((c) => c.items) : [],
    ]);
    // The rendered pages' images are the change request's files, their
    // link cards name its pages.
    knowFiles(`/v1/spaces/${spaceId}/change-requests/${cr.id}/content`);
    knowPages(pages);
    return { cr, space, changes, conflicts };
  }, [spaceId, number]);
  const [problem, setProblem] = useState(null);
  // Every comment of the change request, loaded once for the whole review
  // (and again after one is posted, answered or resolved).
  const crId = data?.cr.id;
  const [{ data: comments, error: commentsError }, reloadComments] = useLoad(
    async () => (crId ? all(`/v1/spaces/${spaceId}/change-requests/${crId}/comments?status=all`) : null),
    [spaceId, crId],
  );
  const grouped = useMemo(() => {
    const { general, byPage } = commentsByPage(comments);
    const shown = new Set((data?.changes ?? []).map((change) => change.page.id));
    const elsewhere = [...byPage].filter(([pageId]) => !shown.has(pageId)).flatMap(([, list]) => list);
    // Null while the comments load.
    return { general: comments && general, byPage, elsewhere };
  }, [comments, data]);
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
        <PageChange
          key={change.page.id}
          spaceId={spaceId}
          cr={cr}
          change={change}
          comments={grouped.byPage.get(change.page.id) ?? NO_COMMENTS}
          reloadComments={reloadComments}
          readOnly={cr.status !== 'open'}
        />
      ))}
      <ReviewPanel
        spaceId={spaceId}
        cr={cr}
        me={me}
        orgId={space.organization}
        general={grouped.general}
        elsewhere={grouped.elsewhere}
        commentsError={commentsError}
        reloadComments={reloadComments}
      />
    </main>
  );
}
