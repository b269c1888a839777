// A change request's review panel: reviewers asked and their reviews, a
// review of one's own (approve, or ask for changes with a comment), and
// the discussion (comments with replies, reactions and resolving).
import { useState } from 'preact/hooks';
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

function Comment({ base, comment, reload, readOnly }) {
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
        {comment.target?.page && (
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

/// The discussion; read-only once the change request is merged or closed.
function Discussion({ base, comments, reload, readOnly }) {
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
      <ul class="comments">
        {comments.map((c) => <Comment key={c.id} base={base} comment={c} reload={reload} readOnly={readOnly} />)}
      </ul>
      {comments.length === 0 && <p class="muted">No comment.</p>}
      {!readOnly && (
        <form class="stack" onSubmit={submit}>
          <label>New comment<textarea name="comment" rows={3} required /></label>
          <button type="submit">Comment</button>
        </form>
      )}
    </section>
  );
}

/// Commenting on one page of the change request, or on one of its sections
/// (a heading, by its anchor).
export function PageComment({ base, page, headings, onPosted }) {
  const [error, setError] = useState(null);
  const submit = async (event) => {
    event.preventDefault();
    const form = event.currentTarget;
    const fields = new FormData(form);
    const body = { body: { markdown: fields.get('comment') }, page: page.id };
    if (fields.get('node')) body.node = fields.get('node');
    try {
      await post(`${base}/comments`, body);
      form.reset();
      setError(null);
      onPosted();
    } catch (e) {
      setError(e.message);
    }
  };
  return (
    <form class="stack page-comment" onSubmit={submit}>
      <label>
        Comment on {page.title}
        <textarea name="comment" rows={2} required />
      </label>
      {headings.length > 0 && (
        <label>
          About the section
          <select name="node">
            <option value="">The whole page</option>
            {headings.map((h) => <option value={h.id}>{h.text}</option>)}
          </select>
        </label>
      )}
      <button type="submit">Comment on the page</button>
      {error && <p class="error" role="alert">{error}</p>}
    </form>
  );
}

export function ReviewPanel({ spaceId, cr, me, orgId, refresh = 0 }) {
  const base = `/v1/spaces/${spaceId}/change-requests/${cr.id}`;
  const [{ data }, reload] = useLoad(async () => {
    const [requested, reviews, comments] = await Promise.all([
      all(`${base}/requested-reviewers`),
      all(`${base}/reviews`),
      all(`${base}/comments?status=all`),
    ]);
    return { requested, reviews, comments };
  }, [cr.id, refresh]);
  if (!data) return null;
  return (
    <div class="review-panel">
      <Reviewers base={base} cr={cr} me={me} orgId={orgId} reload={reload} data={data} />
      <Discussion base={base} comments={data.comments} reload={reload} readOnly={cr.status !== 'open'} />
    </div>
  );
}
