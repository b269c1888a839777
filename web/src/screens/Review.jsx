// A change request's review panel: reviewers asked and their reviews, a
// review of one's own (approve, or ask for changes with a comment), and
// the discussion (its general comments, with replies, reactions and
// resolving). Comments on a page or a block of it are shown with that
// page's changes (ChangeRequests.jsx), from the pieces here: a comment's
// thread, and the forms commenting on a page and on a block.
import { useEffect, useRef, useState } from 'preact/hooks';
import { all, get, post, put } from '../api.js';
import { useLoad } from './Home.jsx';

const STATUS_LABEL = { approved: 'Approved', 'changes-requested': 'Changes requested' };

function Reviewers({ base, cr, me, orgId, reload, data }) {
  const [error, setError] = useState(null);
  const [{ data: members }] = useLoad(() => all(`/v1/orgs/${orgId}/members`), [orgId]);
  const ask = async (event) => {
    event.preventDefault();
    const form = event.currentTarget;
    const user = new FormData(form).get('user');
    try {
      await post(`${base}/requested-reviewers`, { users: [user] });
      setError(null);
      reload();
    } catch (e) {
      setError(e.message);
    }
  };
  const candidates = (members ?? []).filter((m) => m.user.id !== cr.createdBy?.id);
  return (
    <section aria-labelledby="reviewers-heading">
      <h2 id="reviewers-heading">Reviews</h2>
      <ul class="list">
        {data.requested.map((r) => (
          <li key={r.user.id}>{r.user.displayName} <span class="badge">review requested</span></li>
        ))}
        {data.reviews.filter((r) => !r.outdated).map((r) => (
          <li key={r.id}>
            {r.reviewer.displayName} <span class={`badge review-${r.status}`}>{STATUS_LABEL[r.status]}</span>
            {r.comment && <span class="muted"> — {r.comment.body.markdown}</span>}
          </li>
        ))}
      </ul>
      {data.requested.length === 0 && data.reviews.length === 0 && <p class="muted">No review yet.</p>}
      {cr.status === 'open' && (
        <form class="inline-form" onSubmit={ask}>
          <label>
            Ask for a review from
            <select name="user" required>
              {candidates.map((m) => <option value={m.user.id}>{m.user.displayName}</option>)}
            </select>
          </label>
          <button type="submit">Request review</button>
          {error && <span class="error" role="alert">{error}</span>}
        </form>
      )}
      {cr.status === 'open' && cr.createdBy?.id !== me.id && <ReviewForm base={base} reload={reload} />}
    </section>
  );
}

function ReviewForm({ base, reload }) {
  const [error, setError] = useState(null);
  const submit = async (event) => {
    event.preventDefault();
    const form = event.currentTarget;
    const fields = new FormData(form);
    const body = { status: fields.get('status') };
    if (fields.get('comment')) body.comment = { markdown: fields.get('comment') };
    try {
      await post(`${base}/reviews`, body);
      setError(null);
      form.reset();
      reload();
    } catch (e) {
      setError(e.message);
    }
  };
  return (
    <form class="stack review-form" onSubmit={submit}>
      <fieldset>
        <legend>Your review</legend>
        <label class="choice"><input type="radio" name="status" value="approved" required /> Approve</label>
        <label class="choice"><input type="radio" name="status" value="changes-requested" /> Request changes</label>
      </fieldset>
      <label>Comment (optional)<textarea name="comment" rows={3} /></label>
      <button type="submit" class="primary">Submit review</button>
      {error && <p class="error" role="alert">{error}</p>}
    </form>
  );
}

/// A comment and its thread: author, text, whether resolved, its replies
/// (shown on demand), 👍, resolving and reopening, replying; only read
/// when `readOnly`. `placed` when it is shown where it is about (its page
/// and block are not named then); `about`, a note on what it was about.
export function Comment({ base, comment, reload, readOnly, placed = false, about }) {
  const [replies, setReplies] = useState(null);
  const showReplies = async () => setReplies(await all(`${base}/comments/${comment.id}/replies`));
  const reply = async (event) => {
    event.preventDefault();
    const form = event.currentTarget;
    const text = new FormData(form).get('reply');
    await post(`${base}/comments/${comment.id}/replies`, { body: { markdown: text } });
    form.reset();
    await showReplies();
    reload();
  };
  const resolved = comment.status === 'resolved';
  const thumbs = comment.reactions?.find((r) => r.emoji === '👍');
  return (
    <li class={`comment${resolved ? ' resolved' : ''}`}>
      <p class="comment-head">
        <strong>{comment.postedBy.displayName}</strong> {resolved && <span class="badge">resolved</span>}
        {about && <span class="muted"> {about}</span>}
        {!placed && comment.target?.page && (
          <span class="muted">
            {' '}on {comment.target.page.title ?? 'a page'}
            {comment.target.node ? ` › #${comment.target.node.id}` : ''}
            {comment.target.page.outdated ? ' (outdated)' : ''}
          </span>
        )}
      </p>
      <p>{comment.body.markdown}</p>
      <div class="toolbar">
        {readOnly ? (
          thumbs?.count > 0 && <span class="badge"><span aria-hidden="true">👍</span> {thumbs.count}<span class="visually-hidden"> thumbs up</span></span>
        ) : (
          <>
            <button type="button" onClick={() => put(`${base}/comments/${comment.id}`, { addedReactions: ['👍'] }).then(reload)}>
              <span aria-hidden="true">👍</span> {thumbs?.count ?? 0}<span class="visually-hidden"> thumbs up</span>
            </button>
            <button type="button" onClick={() => put(`${base}/comments/${comment.id}`, { resolved: !resolved }).then(reload)}>
              {resolved ? 'Reopen' : 'Resolve'}
            </button>
          </>
        )}
        {comment.replies > 0 && !replies && <button type="button" onClick={showReplies}>{comment.replies} repl{comment.replies === 1 ? 'y' : 'ies'}</button>}
      </div>
      {replies && (
        <ul class="replies">
          {replies.map((r) => <li key={r.id}><strong>{r.postedBy.displayName}</strong> {r.body.markdown}</li>)}
        </ul>
      )}
      {!readOnly && (
        <form class="inline-form" onSubmit={reply}>
          <label><span class="visually-hidden">Reply to {comment.postedBy.displayName}</span><input name="reply" placeholder="Reply…" required /></label>
          <button type="submit">Reply</button>
        </form>
      )}
    </li>
  );
}

/// Comments shown together (a block's, a page's), named `label`.
export function Comments({ base, comments, reload, readOnly, label, placed = true, about }) {
  return (
    <ul class="comments" aria-label={label}>
      {comments.map((c) => (
        <Comment key={c.id} base={base} comment={c} reload={reload} readOnly={readOnly} placed={placed} about={about?.(c)} />
      ))}
    </ul>
  );
}

/// The discussion: the change request's general comments (null while
/// they load), and those on pages its review no longer shows
/// (`elsewhere`); read-only once the change request is merged or closed.
function Discussion({ base, comments, elsewhere, reload, readOnly, error }) {
  const submit = async (event) => {
    event.preventDefault();
    const form = event.currentTarget;
    const text = new FormData(form).get('comment');
    await post(`${base}/comments`, { body: { markdown: text } });
    form.reset();
    reload();
  };
  return (
    <section aria-labelledby="discussion-heading">
      <h2 id="discussion-heading">Discussion</h2>
      {error && <p class="error" role="alert">{error.message}</p>}
      <ul class="comments" aria-busy={comments ? undefined : 'true'}>
        {comments?.map((c) => <Comment key={c.id} base={base} comment={c} reload={reload} readOnly={readOnly} />)}
      </ul>
      {comments?.length === 0 && <p class="muted">No comment.</p>}
      {elsewhere.length > 0 && (
        <>
          <h3>On pages this change request no longer changes</h3>
          <Comments base={base} comments={elsewhere} reload={reload} readOnly={readOnly} placed={false} />
        </>
      )}
      {!readOnly && (
        <form class="stack" onSubmit={submit}>
          <label>New comment<textarea name="comment" rows={3} required /></label>
          <button type="submit">Comment</button>
        </form>
      )}
    </section>
  );
}

/// A form posting a comment (`extra`: what it is about), its text box
/// labelled `label`, focused when shown; Escape or Cancel leaves it.
function CommentForm({ base, extra, label, submitLabel, onPosted, onCancel, className }) {
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);
  const text = useRef(null);
  useEffect(() => text.current?.focus(), []);
  const submit = async (event) => {
    event.preventDefault();
    const form = event.currentTarget;
    setBusy(true);
    try {
      await post(`${base}/comments`, { body: { markdown: new FormData(form).get('comment') }, ...extra });
      form.reset();
      setError(null);
      await onPosted();
    } catch (e) {
      setError(e.message);
    } finally {
      setBusy(false);
    }
  };
  const escape = (event) => {
    if (event.key === 'Escape') {
      event.preventDefault();
      onCancel();
    }
  };
  return (
    <form class={`stack ${className}`} onSubmit={submit} onKeyDown={escape}>
      <label>
        {label}
        <textarea ref={text} name="comment" rows={2} required />
      </label>
      <div class="toolbar">
        <button type="submit" class="primary" disabled={busy}>{submitLabel}</button>
        <button type="button" onClick={onCancel}>Cancel</button>
      </div>
      {error && <p class="error" role="alert">{error}</p>}
    </form>
  );
}

/// Commenting on one page of the change request as a whole.
export function PageComment({ base, page, onPosted, onCancel }) {
  return (
    <CommentForm
      base={base}
      extra={{ page: page.id }}
      label={`Comment on ${page.title}`}
      submitLabel="Comment on the page"
      className="page-comment"
      onPosted={onPosted}
      onCancel={onCancel}
    />
  );
}

/// Commenting on one block of a page (`node`, the block's key), under it.
export function BlockComment({ base, pageId, node, onPosted, onCancel }) {
  return (
    <CommentForm
      base={base}
      extra={{ page: pageId, node }}
      label="Your comment on this block"
      submitLabel="Post comment"
      className="block-comment-form"
      onPosted={onPosted}
      onCancel={onCancel}
    />
  );
}

/// Reviews and the discussion. The change request's comments are loaded
/// once for its whole review (ChangeRequests.jsx): `general` are its
/// comments about no page (null while they load), `elsewhere` those on
/// pages not shown, and
/// `reloadComments` loads them again.
export function ReviewPanel({ spaceId, cr, me, orgId, general, elsewhere, commentsError, reloadComments }) {
  const base = `/v1/spaces/${spaceId}/change-requests/${cr.id}`;
  const [{ data }, reloadReviews] = useLoad(async () => {
    const [requested, reviews] = await Promise.all([all(`${base}/requested-reviewers`), all(`${base}/reviews`)]);
    return { requested, reviews };
  }, [cr.id]);
  if (!data) return null;
  // A review may come with a comment: both are loaded again.
  const reload = () => {
    reloadReviews();
    reloadComments();
  };
  return (
    <div class="review-panel">
      <Reviewers base={base} cr={cr} me={me} orgId={orgId} reload={reload} data={data} />
      <Discussion
        base={base}
        comments={general}
        elsewhere={elsewhere}
        error={commentsError}
        reload={reloadComments}
        readOnly={cr.status !== 'open'}
      />
    </div>
  );
}
