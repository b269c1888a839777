// Running an organization from the browser: its settings, its members
// (invited by email or by link, their roles, removed), its teams, and the
// screen an invite link opens. Everything goes through the public API.
import { useState } from 'preact/hooks';
import { del, get, patch, post, put, request } from '../api.js';
import { navigate } from '../router.js';
import { useLoad } from './Home.jsx';

/// The organization roles a member can hold (the API's names), most
/// powerful first; `null` is a guest.
export const ROLES = ['admin', 'create', 'review', 'edit', 'comment', 'read'];
export const ROLE_NAMES = { admin: 'Admin', create: 'Creator', review: 'Reviewer', edit: 'Editor', comment: 'Commenter', read: 'Reader' };
/// What each role may do, in one line (each role may do what the ones
/// below it may); `''` is a guest.
export const ROLE_DESCRIPTIONS = {
  admin: 'Runs the organization: members, teams, settings, sites and sign-in, and everything a Creator may.',
  create: 'Creates, moves and deletes spaces and collections, and everything a Reviewer may.',
  review: 'Reviews and merges change requests, and everything an Editor may.',
  edit: 'Edits content in change requests, and everything a Commenter may.',
  comment: 'Reads content and comments on it.',
  read: 'Reads the organization\'s content.',
  '': 'Sees only the spaces and collections shared with them.',
};
/// Members shown at first (and added by "Show more").
const MEMBERS_PAGE = 50;

function RoleSelect({ value, onChange, label, guest = true }) {
  return (
    <select aria-label={label} value={value ?? ''} onChange={(e) => onChange(e.currentTarget.value || null)}>
      {ROLES.map((r) => (
        <option key={r} value={r}>{ROLE_NAMES[r]}</option>
      ))}
      {guest && <option value="">Guest</option>}
    </select>
  );
}

/// A form's role choice, starting at `initial` (Preact sets a select's
/// first value through its options).
export function RoleOptions({ name, initial }) {
  return (
    <select name={name}>
      {ROLES.map((r) => (
        <option key={r} value={r} selected={r === initial}>{ROLE_NAMES[r]}</option>
      ))}
      <option value="">Guest</option>
    </select>
  );
}

/// The tabs of an organization's administration.
export function AdminNav({ orgId, current }) {
  const tabs = [
    ['settings', 'Settings'],
    ['members', 'Members'],
    ['teams', 'Teams'],
    ['sites', 'Sites'],
    ['translations', 'Translations'],
    ['openapi', 'OpenAPI'],
    ['sso', 'Single sign-on'],
  ];
  return (
    <nav class="admin-nav" aria-label="Administration">
      <a href={`/o/${orgId}/`}>Spaces</a>
      {tabs.map(([key, label]) => (
        <a key={key} href={`/o/${orgId}/${key}`} aria-current={key === current ? 'page' : undefined}>{label}</a>
      ))}
    </nav>
  );
}

/// An administration screen of an organization: where it is, the tabs.
export function Frame({ orgId, org, current, children }) {
  return (
    <main id="main" class="page">
      <p class="crumbs"><a href="/">Organizations</a> / <a href={`/o/${orgId}/`}>{org?.title ?? 'Organization'}</a></p>
      <AdminNav orgId={orgId} current={current} />
      {children}
    </main>
  );
}

/// Runs `action`, showing what went wrong or `done` when it worked; with
/// `reload`, the screen's data is read again after an action that worked.
export function useAction(reload = null) {
  const [state, setState] = useState({ error: null, done: null });
  const run = async (action, done = null) => {
    try {
      await action();
      if (reload) await reload();
      setState({ error: null, done });
    } catch (error) {
      setState({ error: error.message, done: null });
    }
  };
  const view = (
    <>
      {state.error && <p class="error" role="alert">{state.error}</p>}
      {state.done && <p role="status">{state.done}</p>}
    </>
  );
  return [run, view];
}

export function OrgSettings({ orgId }) {
  const [{ data, error }, reload] = useLoad(() => get(`/v1/orgs/${orgId}`), [orgId]);
  const [run, feedback] = useAction();
  if (error) return <main id="main" class="page"><p class="error" role="alert">{error.message}</p></main>;
  if (!data) return <main id="main" class="page" aria-busy="true" />;
  const submit = (event) => {
    event.preventDefault();
    const form = event.currentTarget.elements;
    const domains = form.domains.value.split(/[\s,]+/).filter(Boolean);
    run(async () => {
      await patch(`/v1/orgs/${orgId}`, { title: form.title.value, emailDomains: domains, defaultRole: form.role.value || null });
      await reload();
    }, 'Settings saved.');
  };
  return (
    <Frame orgId={orgId} org={data} current="settings">
      <h1>Settings</h1>
      <form class="stack-form" onSubmit={submit}>
        <label>Name<input name="title" defaultValue={data.title} required maxLength={50} /></label>
        <label>
          Email domains whose people may join (comma-separated)
          <input name="domains" defaultValue={(data.emailDomains ?? []).join(', ')} />
        </label>
        <label>
          Role of people who join by domain
          <select name="role">
            <option value="" selected={!data.defaultRole}>None (invited people only)</option>
            {ROLES.map((r) => (
              <option key={r} value={r} selected={r === data.defaultRole}>{ROLE_NAMES[r]}</option>
            ))}
          </select>
        </label>
        <button type="submit" class="primary">Save settings</button>
        {feedback}
      </form>
    </Frame>
  );
}

export function Members({ orgId }) {
  const [shown, setShown] = useState(MEMBERS_PAGE);
  const [{ data, error }, reload] = useLoad(async () => {
    const [org, members, links, pending] = await Promise.all([
      get(`/v1/orgs/${orgId}`),
      get(`/v1/orgs/${orgId}/members?limit=${shown}`),
      get(`/v1/orgs/${orgId}/link-invites`).catch(() => ({ items: [] })),
      get(`/v1/orgs/${orgId}/invites?limit=100`).catch(() => ({ items: [] })),
    ]);
    return { org, members, links: links.items, pending: pending.items };
  }, [orgId, shown]);
  const [run, feedback] = useAction();
  const [issued, setIssued] = useState(null);
  // The invite form's role stays what the admin chose, invitation after
  // invitation ('' is a guest).
  const [inviteRole, setInviteRole] = useState('edit');
  if (error) return <main id="main" class="page"><p class="error" role="alert">{error.message}</p></main>;
  if (!data) return <main id="main" class="page" aria-busy="true" />;
  const { org, members, links, pending } = data;

  const invite = (event) => {
    event.preventDefault();
    const form = event.currentTarget;
    const email = form.elements.email.value.trim();
    const role = inviteRole || null;
    run(async () => {
      await post(`/v1/orgs/${orgId}/invites`, { emails: [{ email, role }] });
      // Someone without a sign-in of their own gets a one-time link to hand
      // over (it lets them set a password, and they join); someone with one
      // accepts the invitation from their home page.
      const link = await post('/auth/links', { email }).catch((e) => {
        if (e.status === 403) return null;
        throw e;
      });
      setIssued({ email, url: link?.url ?? null });
      form.elements.email.value = '';
      await reload();
    }, `${email} is invited.`);
  };
  const makeLink = (event) => {
    event.preventDefault();
    const role = event.currentTarget.elements.role.value || null;
    run(async () => {
      await post(`/v1/orgs/${orgId}/link-invites`, { role });
      await reload();
    }, 'Invite link created.');
  };

  return (
    <Frame orgId={orgId} org={org} current="members">
      <h1>Members</h1>
      <section aria-labelledby="invite-heading">
        <h2 id="invite-heading">Invite people</h2>
        <form class="inline-form" onSubmit={invite}>
          <label><span class="visually-hidden">Email to invite</span><input name="email" type="email" placeholder="name@example.com" required /></label>
          <label><span class="visually-hidden">Role of the invited person</span>
            <select name="role" value={inviteRole} aria-describedby="invite-role-help" onChange={(e) => setInviteRole(e.currentTarget.value)}>
              {ROLES.map((r) => (
                <option key={r} value={r}>{ROLE_NAMES[r]}</option>
              ))}
              <option value="">Guest</option>
            </select>
          </label>
          <button type="submit" class="primary">Invite by email</button>
        </form>
        <p id="invite-role-help" class="muted">{ROLE_NAMES[inviteRole] ?? 'Guest'}: {ROLE_DESCRIPTIONS[inviteRole]}</p>
        <details>
          <summary>What each role may do</summary>
          <dl class="roles" aria-label="Roles">
            {[...ROLES, ''].map((r) => (
              <div key={r}><dt>{ROLE_NAMES[r] ?? 'Guest'}</dt><dd>{ROLE_DESCRIPTIONS[r]}</dd></div>
            ))}
          </dl>
        </details>
        {issued?.url && (
          <p class="issued">
            Give {issued.email} this one-time link to join: <input aria-label={`Link for ${issued.email}`} readOnly value={issued.url} onFocus={(e) => e.currentTarget.select()} />
          </p>
        )}
        {issued && !issued.url && (
          <p class="issued">{issued.email} already has an account: they join once they accept the invitation on their home page.</p>
        )}
        <form class="inline-form" onSubmit={makeLink}>
          <label><span class="visually-hidden">Role of people who join by link</span>
            <RoleOptions name="role" initial="read" />
          </label>
          <button type="submit">Create an invite link</button>
        </form>
        {links.length > 0 && (
          <ul class="links" aria-label="Invite links">
            {links.map((link) => {
              const url = `${window.location.origin}/o/${orgId}/join/${link.id}`;
              return (
                <li key={link.id}>
                  <input aria-label={`Invite link (${ROLE_NAMES[link.role] ?? 'Guest'})`} readOnly value={url} onFocus={(e) => e.currentTarget.select()} />
                  <span class="muted">{ROLE_NAMES[link.role] ?? 'Guest'}</span>
                  <button type="button" onClick={() => run(async () => { await del(`/v1/orgs/${orgId}/link-invites/${link.id}`); await reload(); }, 'Invite link deleted.')}>
                    Delete link
                  </button>
                </li>
              );
            })}
          </ul>
        )}
        {feedback}
      </section>
      {pending.length > 0 && (
        <section aria-labelledby="pending-heading">
          <h2 id="pending-heading">Pending invitations</h2>
          <table class="grid" aria-label="Pending invitations">
            <thead><tr><th scope="col">Email</th><th scope="col">Role</th><th scope="col">Invited by</th><th scope="col">Sent</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
            <tbody>
              {pending.map((invitation) => (
                <tr key={invitation.id}>
                  <td>{invitation.email}</td>
                  <td>{ROLE_NAMES[invitation.role] ?? 'Guest'}</td>
                  <td>{invitation.invitedBy?.displayName ?? <span class="muted">Someone no longer here</span>}</td>
                  <td><time dateTime={invitation.createdAt}>{new Date(invitation.createdAt).toLocaleDateString()}</time></td>
                  <td>
                    <button type="button" aria-label={`Revoke the invitation of ${invitation.email}`} onClick={() => run(async () => { await del(`/v1/orgs/${orgId}/invites/${invitation.id}`); await reload(); }, `The invitation of ${invitation.email} was revoked.`)}>
                      Revoke
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}
      <table class="grid" aria-label="Members">
        <thead><tr><th scope="col">Name</th><th scope="col">Email</th><th scope="col">Role</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
        <tbody>
          {members.items.map((m) => (
            <tr key={m.id}>
              <td>{m.user.displayName}</td>
              <td>{m.user.email}</td>
              <td>
                <RoleSelect
                  label={`Role of ${m.user.displayName}`}
                  value={m.role}
                  onChange={(role) => run(async () => { await patch(`/v1/orgs/${orgId}/members/${m.id}`, { role }); await reload(); }, `${m.user.displayName} is now ${ROLE_NAMES[role] ?? 'a guest'}.`)}
                />
              </td>
              <td>
                <button type="button" onClick={() => run(async () => { await del(`/v1/orgs/${orgId}/members/${m.id}`); await reload(); }, `${m.user.displayName} was removed.`)}>
                  Remove {m.user.displayName}
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {members.next && <button type="button" onClick={() => setShown(shown + MEMBERS_PAGE)}>Show more</button>}
    </Frame>
  );
}

export function Teams({ orgId }) {
  const [open, setOpen] = useState(null);
  const [{ data, error }, reload] = useLoad(async () => {
    const [org, teams, members] = await Promise.all([
      get(`/v1/orgs/${orgId}`),
      get(`/v1/orgs/${orgId}/teams`),
      get(`/v1/orgs/${orgId}/members?limit=100`),
    ]);
    const team = open ? await get(`/v1/orgs/${orgId}/teams/${open}/members`) : null;
    return { org, teams: teams.items, members: members.items, team };
  }, [orgId, open]);
  const [run, feedback] = useAction();
  if (error) return <main id="main" class="page"><p class="error" role="alert">{error.message}</p></main>;
  if (!data) return <main id="main" class="page" aria-busy="true" />;
  const create = (event) => {
    event.preventDefault();
    const form = event.currentTarget;
    const title = form.elements.title.value;
    run(async () => {
      const team = await put(`/v1/orgs/${orgId}/teams`, { title });
      form.reset();
      setOpen(team.id);
      await reload();
    }, `Team ${title} created.`);
  };
  const current = data.teams.find((t) => t.id === open);
  const inTeam = new Set((data.team?.items ?? []).map((m) => m.organization?.id));
  return (
    <Frame orgId={orgId} org={data.org} current="teams">
      <h1>Teams</h1>
      <form class="inline-form" onSubmit={create}>
        <label><span class="visually-hidden">Team name</span><input name="title" placeholder="New team name" required maxLength={50} /></label>
        <button type="submit" class="primary">Create team</button>
      </form>
      {feedback}
      <ul class="cards">
        {data.teams.map((t) => (
          <li key={t.id}>
            <button type="button" aria-pressed={t.id === open} onClick={() => setOpen(t.id === open ? null : t.id)}>{t.title}</button>
          </li>
        ))}
      </ul>
      {current && (
        <section aria-labelledby="team-heading">
          <h2 id="team-heading">{current.title}</h2>
          <ul class="team-members" aria-label={`Members of ${current.title}`}>
            {data.members.map((m) => (
              <li key={m.id}>
                <label>
                  <input
                    type="checkbox"
                    checked={inTeam.has(m.id)}
                    onChange={(e) => {
                      const adding = e.currentTarget.checked;
                      run(async () => {
                        if (adding) await put(`/v1/orgs/${orgId}/teams/${current.id}/members/${m.id}`, { role: 'member' });
                        else await del(`/v1/orgs/${orgId}/teams/${current.id}/members/${m.id}`);
                        await reload();
                      }, `${m.user.displayName} ${adding ? 'added to' : 'removed from'} ${current.title}.`);
                    }}
                  />{' '}
                  {m.user.displayName}
                </label>
              </li>
            ))}
          </ul>
          <button type="button" onClick={() => run(async () => { await del(`/v1/orgs/${orgId}/teams/${current.id}`); setOpen(null); await reload(); }, 'Team deleted.')}>
            Delete team
          </button>
        </section>
      )}
    </Frame>
  );
}

/// The screen an invite link opens: join the organization.
export function Join({ orgId, inviteId }) {
  const [run, feedback] = useAction();
  return (
    <main id="main" class="page">
      <h1>Join the organization</h1>
      <p>You were given a link to join an organization on Quire.</p>
      <button
        type="button"
        class="primary"
        onClick={() =>
          run(async () => {
            await request('POST', `/v1/orgs/${orgId}/invites/${inviteId}`, {});
            navigate(`/o/${orgId}/`);
          })
        }
      >
        Join
      </button>
      {feedback}
    </main>
  );
}

const SOURCE_WORDS = {
  organization: () => 'their role in the organization',
  default: (s) => `everyone's access to ${s.resource?.title ?? 'a collection above'}`,
  user: (s) => `shared with them on ${s.resource?.title ?? 'a collection above'}`,
  team: (s) => `team ${s.team?.title} on ${s.resource?.title ?? 'a collection above'}`,
};

/// Why a person holds their role on a space, in words.
function Explained({ spaceId, userId }) {
  const [{ data, error }] = useLoad(() => get(`/v1/spaces/${spaceId}/access/${userId}`), [spaceId, userId]);
  if (error) return <p class="error" role="alert">{error.message}</p>;
  if (!data) return <p aria-busy="true">…</p>;
  return (
    <section class="explained" aria-label={`Why ${data.user.displayName} has access`}>
      <p>
        <strong>{data.user.displayName}</strong>{' '}
        {data.role ? `is ${ROLE_NAMES[data.role]} here, the strongest of:` : 'has no access here.'}
      </p>
      <ul>
        {data.sources.map((s, i) => (
          <li key={i}>{ROLE_NAMES[s.role]} through {SOURCE_WORDS[s.kind](s)}</li>
        ))}
      </ul>
    </section>
  );
}

/// Who may touch a space or a collection (`resource` is `spaces` or
/// `collections`): people and teams it is shared with (their roles,
/// removed), sharing with more, and, for a space, why anyone holds their
/// role (a collection's grants show there, on each space under it).
export function Sharing({ resource, id }) {
  const [why, setWhy] = useState(null);
  const [{ data, error }, reload] = useLoad(async () => {
    const space = await get(`/v1/${resource}/${id}`);
    const [users, teams, members, orgTeams] = await Promise.all([
      get(`/v1/${resource}/${id}/permissions/users`),
      get(`/v1/${resource}/${id}/permissions/teams`),
      get(`/v1/orgs/${space.organization}/members?limit=100`),
      get(`/v1/orgs/${space.organization}/teams`),
    ]);
    return { space, users: users.items, teams: teams.items, members: members.items, orgTeams: orgTeams.items };
  }, [resource, id]);
  const [run, feedback] = useAction();
  if (error) return <main id="main" class="page"><p class="error" role="alert">{error.message}</p></main>;
  if (!data) return <main id="main" class="page" aria-busy="true" />;
  const base = `/v1/${resource}/${id}/permissions`;
  const isSpace = resource === 'spaces';
  const share = (event) => {
    event.preventDefault();
    const form = event.currentTarget.elements;
    const [kind, id] = form.who.value.split(':');
    const role = form.role.value || null;
    run(async () => {
      await post(base, { role, [kind === 'team' ? 'teams' : 'users']: [id] });
      await reload();
    }, 'Shared.');
  };
  return (
    <main id="main" class="page">
      <p class="crumbs"><a href={isSpace ? `/s/${id}/` : `/c/${id}/`}>{data.space.title}</a></p>
      <h1>Sharing</h1>
      <form class="inline-form" onSubmit={share}>
        <label><span class="visually-hidden">Share with</span>
          <select name="who">
            {data.orgTeams.map((t) => <option key={t.id} value={`team:${t.id}`}>Team {t.title}</option>)}
            {data.members.map((m) => <option key={m.id} value={`user:${m.id}`}>{m.user.displayName}</option>)}
          </select>
        </label>
        <label><span class="visually-hidden">Role to share</span><RoleOptions name="role" initial="edit" /></label>
        <button type="submit" class="primary">Share</button>
      </form>
      {feedback}
      <h2>Teams</h2>
      {data.teams.length === 0 && <p class="muted">Not shared with a team.</p>}
      <ul class="links" aria-label="Teams with access">
        {data.teams.map((t) => (
          <li key={t.team.id}>
            <span>{t.team.title}</span>
            <RoleSelect label={`Role of team ${t.team.title}`} value={t.permission} guest={false}
              onChange={(role) => run(async () => { await patch(`${base}/teams/${t.team.id}`, { role }); await reload(); }, 'Role changed.')} />
            <button type="button" onClick={() => run(async () => { await del(`${base}/teams/${t.team.id}`); await reload(); }, 'No longer shared.')}>Stop sharing with {t.team.title}</button>
          </li>
        ))}
      </ul>
      <h2>People</h2>
      {data.users.length === 0 && <p class="muted">Not shared with anyone in person.</p>}
      <ul class="links" aria-label="People with access">
        {data.users.map((u) => (
          <li key={u.user.id}>
            <span>{u.user.displayName}</span>
            <RoleSelect label={`Role of ${u.user.displayName} here`} value={u.permission} guest={false}
              onChange={(role) => run(async () => { await patch(`${base}/users/${u.user.id}`, { role }); await reload(); }, 'Role changed.')} />
            <button type="button" onClick={() => run(async () => { await del(`${base}/users/${u.user.id}`); await reload(); }, 'No longer shared.')}>Stop sharing with {u.user.displayName}</button>
          </li>
        ))}
      </ul>
      {isSpace ? (
        <>
          <h2>Why does someone have access?</h2>
          <label>
            Person
            <select onChange={(e) => setWhy(e.currentTarget.value || null)}>
              <option value="">Choose a person</option>
              {data.members.map((m) => <option key={m.id} value={m.id}>{m.user.displayName}</option>)}
            </select>
          </label>
          {why && <Explained spaceId={id} userId={why} />}
        </>
      ) : (
        <p class="muted">Every space in this collection (and in collections inside it) inherits these roles; a space's Sharing screen says why someone has access there.</p>
      )}
    </main>
  );
}

/// A value to hand over (a link, a key, an address for an identity
/// provider): read-only, selected on focus, copied with one click.
export function CopyField({ label, value }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied(true);
    } catch {
      setCopied(false);
    }
  };
  return (
    <div class="copy-field">
      <label>
        {label}
        <input readOnly value={value} onFocus={(e) => e.currentTarget.select()} />
      </label>
      <button type="button" onClick={copy} aria-label={`Copy ${label}`}>{copied ? 'Copied' : 'Copy'}</button>
    </div>
  );
}
