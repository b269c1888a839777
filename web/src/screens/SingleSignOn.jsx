// An organization's single sign-on: its SAML identity providers (the
// values to copy into the identity provider, the provider's own values,
// whether it can sign people in yet), whether members must sign in through
// one, and the instance's OpenID Connect sign-in (set by the operator).
import { all, del, get, patch, post } from '../api.js';
import { Pending, useLoad } from './Home.jsx';
import { CopyField, Frame, RoleOptions, useAction } from './Admin.jsx';

export function SingleSignOn({ orgId }) {
  const base = `/v1/orgs/${orgId}/saml`;
  const [{ data, error }, reload] = useLoad(async () => {
    const [org, providers, teams, methods] = await Promise.all([
      get(`/v1/orgs/${orgId}`),
      all(base),
      all(`/v1/orgs/${orgId}/teams`),
      get('/auth/methods'),
    ]);
    return { org, providers, teams, methods };
  }, [orgId]);
  const [act, feedback] = useAction(reload);
  if (!data) return <Pending error={error} />;
  const add = (event) => {
    event.preventDefault();
    const form = event.currentTarget;
    const label = form.elements.label.value;
    act(async () => { await post(base, { label }); form.reset(); }, `${label} added: copy its values into the identity provider, then give it the provider's.`);
  };
  const active = data.providers.some((p) => p.status === 'active');
  return (
    <Frame orgId={orgId} org={data.org} current="sso">
      <h1>Single sign-on</h1>
      {feedback}
      <section aria-labelledby="enforce">
        <h2 id="enforce">Members sign in through</h2>
        <label class="choice">
          <input type="checkbox" checked={data.org.sso} disabled={!active && !data.org.sso}
            onChange={(e) => act(() => patch(`/v1/orgs/${orgId}`, { sso: e.currentTarget.checked }), e.currentTarget.checked ? 'Members must now sign in through single sign-on.' : 'Members may sign in any way.')} />
          Require single sign-on for members (their API tokens and sessions need it too)
        </label>
        {!active && <p class="muted">Set up an identity provider below first.</p>}
      </section>
      {data.providers.map((provider) => (
        <Provider key={provider.id} base={base} provider={provider} teams={data.teams} act={act} />
      ))}
      <h2>Add a SAML identity provider</h2>
      <form class="inline-form" onSubmit={add}>
        <label>Name shown on the sign-in button<input name="label" required maxLength={100} placeholder="Okta" /></label>
        <button type="submit" class="primary">Add identity provider</button>
      </form>
      <h2>OpenID Connect</h2>
      {data.methods.oidc ? (
        <>
          <p>People of this instance may sign in with <strong>{data.methods.oidc.name}</strong>. Its redirect address:</p>
          <CopyField label="Redirect URI for the OpenID provider" value={`${location.origin}/auth/oidc/callback`} />
        </>
      ) : (
        <p class="muted">Not set up: the operator gives Quire an OpenID provider (QUIRE_OIDC_ISSUER and its client) when starting it.</p>
      )}
    </Frame>
  );
}

function Provider({ base, provider, teams, act }) {
  const at = `${base}/${provider.id}`;
  const save = (event) => {
    event.preventDefault();
    const form = event.currentTarget.elements;
    act(() => patch(at, {
      entityID: form.entityID.value,
      ssoURL: form.ssoURL.value,
      certificate: form.certificate.value,
      defaultRole: form.role.value || null,
      defaultTeam: form.team.value || null,
    }), `${provider.label} saved.`);
  };
  return (
    <section class="conflict" aria-labelledby={`idp-${provider.id}`}>
      <h2 id={`idp-${provider.id}`}>{provider.label}</h2>
      <p>
        <span class={`state state-${provider.status === 'active' ? 'success' : 'pending'}`}>
          {provider.status === 'active' ? 'Ready: members can sign in with it' : 'Not ready'}
        </span>
        {provider.problem && <span class="muted"> · {provider.problem}</span>}
      </p>
      <h3>Copy into {provider.label}</h3>
      <CopyField label="Single sign-on URL (ACS)" value={provider.service.acsURL} />
      <CopyField label="Audience (SP entity ID, also Quire's metadata URL)" value={provider.service.entityID} />
      <CopyField label="Sign-in address for members" value={provider.service.startURL} />
      <h3>From {provider.label}</h3>
      <form class="stack-form" onSubmit={save}>
        <label>Identity provider's entity ID (issuer)<input name="entityID" defaultValue={provider.entityID} required /></label>
        <label>Identity provider's sign-in URL<input name="ssoURL" type="url" defaultValue={provider.ssoURL} required /></label>
        <label>Its signing certificate (PEM or base64)<textarea class="json" name="certificate" defaultValue={provider.certificate} required spellcheck={false} /></label>
        <label>Role of people who join through it<RoleOptions name="role" initial={provider.defaultRole ?? 'read'} /></label>
        <label>
          Team they join
          <select name="team">
            <option value="">None</option>
            {teams.map((t) => <option key={t.id} value={t.id} selected={t.id === provider.defaultTeam?.id}>{t.title}</option>)}
          </select>
        </label>
        <div class="toolbar">
          <button type="submit" class="primary">Save {provider.label}</button>
          {provider.status === 'active' && <a class="button" href={provider.service.startURL} data-native>Try signing in</a>}
          <button type="button" onClick={() => act(() => del(at), `${provider.label} removed.`)}>Remove {provider.label}</button>
        </div>
      </form>
    </section>
  );
}
