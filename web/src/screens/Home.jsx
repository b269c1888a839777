// Finding one's way: organizations, then their collections and spaces.
import { useEffect, useRef, useState } from 'preact/hooks';
import { all, del, get, post } from '../api.js';
import { navigate } from '../router.js';
import { AdminNav } from './Admin.jsx';

/// Loads data for a screen again whenever `deps` change; an answer that
/// arrives after a newer request started is dropped.
function useLoad(load, deps) {
  const [state, setState] = useState({ data: null, error: null });
  const latest = useRef(0);
  const reload = () => {
    latest.current += 1;
    const mine = latest.current;
    const keep = (next) => mine === latest.current && setState(next);
    return load().then((data) => keep({ data, error: null }), (error) => keep({ data: null, error }));
  };
  useEffect(() => {
    reload();
  }, deps);
  return [state, reload];
}

export { useLoad };

/// Calls `reload` every `every` ms while `active` (an operation running).
export function usePolling(active, reload, every = 1000) {
  useEffect(() => {
    if (!active) return undefined;
    const timer = setInterval(reload, every);
    return () => clearInterval(timer);
  }, [active]);
}

/// What a screen shows before its data: the error, or that it is loading.
export function Pending({ error }) {
  if (error) return <main id="main" class="page"><p class="error" role="alert">{error.message}</p></main>;
  return <main id="main" class="page" aria-busy="true" />;
}

function CreateForm({ label, onCreate }) {
  const [error, setError] = useState(null);
  const submit = async (event) => {
    event.preventDefault();
    const input = event.currentTarget.elements.title;
    try {
      await onCreate(input.value);
      input.value = '';
      setError(null);
    } catch (e) {
      setError(e.message);
    }
  };
  return (
    <form class="inline-form" onSubmit={submit}>
      <label>
        <span class="visually-hidden">{label} title</span>
        <input name="title" placeholder={`New ${label.toLowerCase()} title`} required maxLength={50} />
      </label>
      <button type="submit">Create {label.toLowerCase()}</button>
      {error && <span class="error" role="alert">{error}</span>}
    </form>
  );
}

const ROLE_WORDS = { admin: 'an admin', create: 'a creator', review: 'a reviewer', edit: 'an editor', comment: 'a commenter', read: 'a reader' };

/// The invitations waiting for an answer: which organization asks, who
/// invited, with what role; nobody joins without accepting.
function Invitations({ onJoined }) {
  const [{ data }, reload] = useLoad(() => get('/v1/user/invites'), []);
  const [error, setError] = useState(null);
  if (!data || data.items.length === 0) return null;
  const answer = async (invitation, accept) => {
    try {
      if (accept) {
        await post(`/v1/orgs/${invitation.organization.id}/invites/${invitation.id}`, {});
      } else {
        await del(`/v1/user/invites/${invitation.id}`);
      }
      setError(null);
      await reload();
      if (accept) onJoined();
    } catch (e) {
      setError(e.message);
    }
  };
  return (
    <section aria-labelledby="invitations-heading">
      <h2 id="invitations-heading">Invitations</h2>
      <ul class="list">
        {data.items.map((invitation) => (
          <li key={invitation.id}>
            <strong>{invitation.organization.title}</strong> invites you to join as{' '}
            {invitation.role ? ROLE_WORDS[invitation.role] ?? invitation.role : 'a guest'}
            {invitation.invitedBy ? ` (sent by ${invitation.invitedBy.displayName})` : ''}.{' '}
            <button type="button" class="primary" onClick={() => answer(invitation, true)}>
              Accept<span class="visually-hidden"> the invitation of {invitation.organization.title}</span>
            </button>{' '}
            <button type="button" onClick={() => answer(invitation, false)}>
              Decline<span class="visually-hidden"> the invitation of {invitation.organization.title}</span>
            </button>
          </li>
        ))}
      </ul>
      {error && <p class="error" role="alert">{error}</p>}
    </section>
  );
}

export function Home() {
  const [{ data: orgs, error }, reload] = useLoad(() => all('/v1/orgs'), []);
  return (
    <main id="main" class="page">
      <h1>Organizations</h1>
      <Invitations onJoined={reload} />
      {error && <p class="error" role="alert">{error.message}</p>}
      <ul class="cards">
        {orgs?.map((org) => (
          <li key={org.id}><a href={`/o/${org.id}/`}>{org.title}</a></li>
        ))}
      </ul>
      {orgs && orgs.length === 0 && <p class="muted">You belong to no organization yet: create one.</p>}
      <CreateForm
        label="Organization"
        onCreate={async (title) => {
          const org = await post('/v1/orgs', { title });
          reload();
          navigate(`/o/${org.id}/`);
        }}
      />
    </main>
  );
}

function SpaceList({ spaces, collections }) {
  return (
    <ul class="cards">
      {collections.map((c) => (
        <li key={c.id}><a href={`/c/${c.id}/`}><span aria-hidden="true">▤ </span>{c.title}</a></li>
      ))}
      {spaces.map((s) => (
        <li key={s.id}><a href={`/s/${s.id}/`}>{s.emoji ? `${s.emoji} ` : ''}{s.title}</a></li>
      ))}
    </ul>
  );
}

/// The latest revisions of the organization's spaces (the 20 first
/// spaces, 5 revisions each), newest first.
function RecentChanges({ spaces }) {
  const [{ data }] = useLoad(async () => {
    const lists = await Promise.all(
      spaces.slice(0, 20).map((space) =>
        get(`/v1/spaces/${space.id}/revisions?limit=5`).then(
          (answer) => answer.items.map((entry) => ({ ...entry, space })),
          () => [],
        ),
      ),
    );
    return lists
      .flat()
      .filter((entry) => entry.parents.length > 0)
      .sort((a, b) => (a.createdAt < b.createdAt ? 1 : -1))
      .slice(0, 15);
  }, [spaces.map((s) => s.id).join()]);
  if (!data || data.length === 0) return null;
  return (
    <section aria-labelledby="recent-heading">
      <h2 id="recent-heading">Recent changes</h2>
      <ul class="list">
        {data.map((entry) => (
          <li key={entry.id}>
            <a href={`/s/${entry.space.id}/revisions/${entry.id}/`}>{entry.space.title}</a>{' '}
            <span class="muted">
              {entry.type} {entry.author ? `by ${entry.author.displayName} ` : ''}· {new Date(entry.createdAt).toLocaleString()}
            </span>
          </li>
        ))}
      </ul>
    </section>
  );
}

export function Org({ orgId }) {
  const [{ data, error }, reload] = useLoad(async () => {
    const [org, spaces, collections] = await Promise.all([
      get(`/v1/orgs/${orgId}`),
      all(`/v1/orgs/${orgId}/spaces`),
      all(`/v1/orgs/${orgId}/collections`),
    ]);
    return {
      org,
      spaces: spaces.filter((s) => !s.parent),
      collections: collections.filter((c) => !c.parent),
    };
  }, [orgId]);
  if (error) return <main id="main" class="page"><p class="error" role="alert">{error.message}</p></main>;
  if (!data) return <main id="main" class="page" aria-busy="true" />;
  return (
    <main id="main" class="page">
      <p class="crumbs"><a href="/">Organizations</a></p>
      <AdminNav orgId={orgId} current={null} />
      <h1>{data.org.title}</h1>
      <h2>Spaces</h2>
      <SpaceList spaces={data.spaces} collections={data.collections} />
      <CreateForm
        label="Space"
        onCreate={async (title) => {
          const space = await post(`/v1/orgs/${orgId}/spaces`, { title });
          reload();
          navigate(`/s/${space.id}/`);
        }}
      />
      <RecentChanges spaces={data.spaces} />
    </main>
  );
}

export function Collection({ collectionId }) {
  const [{ data, error }] = useLoad(async () => {
    const collection = await get(`/v1/collections/${collectionId}`);
    const [spaces, collections] = await Promise.all([
      all(`/v1/collections/${collectionId}/spaces`),
      all(`/v1/orgs/${collection.organization}/collections`),
    ]);
    return { collection, spaces, collections: collections.filter((c) => c.parent === collectionId) };
  }, [collectionId]);
  if (error) return <main id="main" class="page"><p class="error" role="alert">{error.message}</p></main>;
  if (!data) return <main id="main" class="page" aria-busy="true" />;
  return (
    <main id="main" class="page">
      <p class="crumbs"><a href={`/o/${data.collection.organization}/`}>Organization</a></p>
      <h1>{data.collection.title}</h1>
      <p><a href={`/c/${collectionId}/permissions`}>Sharing</a></p>
      <SpaceList spaces={data.spaces} collections={data.collections} />
    </main>
  );
}
