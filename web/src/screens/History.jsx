// History: the space's revisions (or one page's), newest first; any
// revision opened; any two compared (a page's markdown, or for the whole
// space the pages added, removed, moved, renamed or changed, each with its
// diff); a page or the whole space restored to a revision as a change
// request, reviewed and merged like any other.
import { useState } from 'preact/hooks';
import { all, get, post } from '../api.js';
import { navigate } from '../router.js';
import { useLoad } from './Home.jsx';
import { flatten } from './Space.jsx';
import { DiffView } from './ChangeRequests.jsx';
import { lineDiff } from '../diff.js';

/// Opens a change request that puts the pages `ids` back as they were at
/// `revision`; returns its number.
export async function restore(spaceId, revision, ids, subject) {
  const cr = await post(`/v1/spaces/${spaceId}/change-requests`, { subject });
  for (let i = 0; i < ids.length; i += 50) {
    const changes = ids.slice(i, i + 50).map((page) => ({ operation: 'revert_page', page, revision }));
    await post(`/v1/spaces/${spaceId}/change-requests/${cr.id}/content`, { changes });
  }
  return cr.number;
}

/// What changed in a space from the revision `older` to `newer`: pages
/// added, removed, moved (their path), renamed (their title) or whose
/// content changed (their `documentId`, which names the content).
export async function spaceChanges(spaceId, older, newer) {
  const [before, after] = await Promise.all([older, newer].map((rev) => get(`/v1/spaces/${spaceId}/revisions/${rev}`)));
  const byId = (rev) => new Map(flatten(rev.pages).map(({ page }) => [page.id, page]));
  const [was, is] = [byId(before), byId(after)];
  const out = [];
  for (const [id, page] of is) {
    const old = was.get(id);
    if (!old) {
      out.push({ page, what: ['added'] });
      continue;
    }
    const what = [];
    if (old.path !== page.path) what.push(`moved from ${old.path}`);
    if (old.title !== page.title) what.push(`renamed from “${old.title}”`);
    if (old.documentId !== page.documentId) what.push('content changed');
    if (what.length) out.push({ page, what, changed: old.documentId !== page.documentId });
  }
  for (const [id, page] of was) if (!is.has(id)) out.push({ page, what: ['removed'] });
  return out;
}

/// The markdown diff of one page between two revisions (empty where it
/// does not exist).
async function pageDiff(spaceId, pageId, older, newer) {
  const text = (rev) => get(`/v1/spaces/${spaceId}/revisions/${rev}/page/${pageId}?format=markdown`).then((p) => p.markdown ?? '', () => '');
  const [before, after] = await Promise.all([text(older), text(newer)]);
  return lineDiff(before, after);
}

/// The pages that changed between two revisions of the space, each opened
/// on demand to its diff.
function SpaceComparison({ spaceId, older, newer, changes }) {
  const [open, setOpen] = useState({});
  const toggle = async (id) => {
    if (open[id]) return setOpen({ ...open, [id]: null });
    setOpen({ ...open, [id]: await pageDiff(spaceId, id, older, newer) });
  };
  if (changes.length === 0) return <p>No page changed between these versions.</p>;
  return (
    <ul class="space-changes">
      {changes.map(({ page, what }) => (
        <li key={page.id}>
          <button type="button" aria-expanded={Boolean(open[page.id])} onClick={() => toggle(page.id)}>
            {page.title}
          </button>{' '}
          <span class="muted">{what.join(', ')}</span>
          {open[page.id] && <DiffView lines={open[page.id]} label={`Changes to ${page.title}`} />}
        </li>
      ))}
    </ul>
  );
}

export function History({ spaceId }) {
  const pageId = new URLSearchParams(window.location.search).get('page');
  const [entries, setEntries] = useState([]);
  const [{ data, error }] = useLoad(async () => {
    const [space, first] = await Promise.all([
      get(`/v1/spaces/${spaceId}`),
      get(`/v1/spaces/${spaceId}/revisions${pageId ? `?pageId=${pageId}` : ''}`),
    ]);
    const page = pageId ? await get(`/v1/spaces/${spaceId}/content/page/${pageId}`).catch(() => null) : null;
    setEntries(first.items);
    return { space, page, next: first.next?.page };
  }, [spaceId, pageId]);
  const [next, setNext] = useState(undefined);
  const [busy, setBusy] = useState(false);
  const [picked, setPicked] = useState([]);
  const [comparison, setComparison] = useState(null);
  if (error) return <main id="main" class="page"><p class="error" role="alert">{error.message}</p></main>;
  if (!data) return <main id="main" class="page" aria-busy="true" />;
  const cursor = next === undefined ? data.next : next;
  const more = async () => {
    const answer = await get(`/v1/spaces/${spaceId}/revisions?page=${cursor}${pageId ? `&pageId=${pageId}` : ''}`);
    setEntries([...entries, ...answer.items]);
    setNext(answer.next?.page ?? null);
  };
  /// Picks a revision to compare; with two picked, the page's markdown
  /// from the older to the newer, or the space's changed pages.
  const pick = async (id) => {
    const next = picked.includes(id) ? picked.filter((p) => p !== id) : [...picked, id].slice(-2);
    setPicked(next);
    setComparison(null);
    if (next.length !== 2) return;
    const [older, newer] = [...next].sort((a, b) => entries.findIndex((e) => e.id === b) - entries.findIndex((e) => e.id === a));
    if (pageId) setComparison({ lines: await pageDiff(spaceId, pageId, older, newer) });
    else setComparison({ older, newer, changes: await spaceChanges(spaceId, older, newer) });
  };
  const restoreTo = async (revision) => {
    setBusy(true);
    let ids = [pageId];
    let subject = `Restore ${data.page?.title ?? 'a page'}`;
    if (!pageId) {
      const [then, now] = await Promise.all([
        get(`/v1/spaces/${spaceId}/revisions/${revision}`),
        get(`/v1/spaces/${spaceId}/content`),
      ]);
      ids = [...new Set([...flatten(then.pages), ...flatten(now.pages)].map(({ page }) => page.id))];
      subject = 'Restore the space';
    }
    const number = await restore(spaceId, revision, ids, subject);
    navigate(`/s/${spaceId}/change-requests/${number}`);
  };
  return (
    <main id="main" class="page">
      <p class="crumbs"><a href={`/s/${spaceId}/`}>{data.space.title}</a></p>
      <h1>{data.page ? `History of ${data.page.title}` : 'History'}</h1>
      <ol class="history">
        {entries.map((entry, i) => (
          <li key={entry.id}>
            <div>
              <strong>{new Date(entry.createdAt).toLocaleString()}</strong> · {entry.type}
              {entry.author && <span class="muted"> by {entry.author.displayName}</span>}
            </div>
            <div class="toolbar">
              <a class="button" href={`/s/${spaceId}/revisions/${entry.id}/${data.page ? data.page.path ?? '' : ''}`}>View</a>
              <label class="choice">
                <input type="checkbox" checked={picked.includes(entry.id)} onChange={() => pick(entry.id)} />
                Compare
              </label>
              {i > 0 && (
                <button type="button" disabled={busy} onClick={() => restoreTo(entry.id)}>
                  {pageId ? 'Restore this page to this version' : 'Restore the space to this version'}
                </button>
              )}
            </div>
          </li>
        ))}
      </ol>
      {cursor && <button type="button" onClick={more}>Older revisions</button>}
      {comparison && (
        <section aria-labelledby="comparison-heading">
          <h2 id="comparison-heading">From the older to the newer version</h2>
          {comparison.lines ? (
            <DiffView lines={comparison.lines} label="Changes between the two versions" />
          ) : (
            <SpaceComparison spaceId={spaceId} {...comparison} />
          )}
        </section>
      )}
    </main>
  );
}
