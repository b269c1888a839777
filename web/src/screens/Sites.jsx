// An organization's published sites: the list, and one site's screen —
// publishing and its address, what it holds (site spaces, sections,
// section groups), its look with a live preview (`SiteLook.jsx`), and who
// may read it (visibility, share links, the visitor-authentication key, the
// adaptive schema). Everything goes through the public API.
import { useState } from 'preact/hooks';
import { all, del, get, patch, post, put } from '../api.js';
import { navigate } from '../router.js';
import { Pending, useLoad } from './Home.jsx';
import { CopyField, Frame, useAction } from './Admin.jsx';
import { Look } from './SiteLook.jsx';

const VISIBILITY = {
  public: 'Public: anyone, and search engines',
  unlisted: 'Unlisted: anyone with the address',
  'share-link': 'Share links only',
  'visitor-auth': 'Visitors signed in by your own service',
};

export function Sites({ orgId }) {
  const [{ data, error }] = useLoad(async () => {
    const [org, sites] = await Promise.all([get(`/v1/orgs/${orgId}`), all(`/v1/orgs/${orgId}/sites`)]);
    return { org, sites };
  }, [orgId]);
  const [run, feedback] = useAction();
  if (!data) return <Pending error={error} />;
  const create = (event) => {
    event.preventDefault();
    const title = event.currentTarget.elements.title.value;
    run(async () => {
      const site = await post(`/v1/orgs/${orgId}/sites`, { title });
      navigate(`/o/${orgId}/sites/${site.id}`);
    });
  };
  return (
    <Frame orgId={orgId} org={data.org} current="sites">
      <h1>Sites</h1>
      {data.sites.length === 0 ? (
        <p class="muted">No site yet: a site publishes one or more spaces at an address of their own.</p>
      ) : (
        <table class="grid" aria-label="Sites">
          <thead><tr><th scope="col">Site</th><th scope="col">Who may read it</th><th scope="col">Address</th></tr></thead>
          <tbody>
            {data.sites.map((site) => (
              <tr key={site.id}>
                <td><a href={`/o/${orgId}/sites/${site.id}`}>{site.title}</a></td>
                <td>{VISIBILITY[site.visibility]?.split(':')[0] ?? site.visibility}</td>
                <td>{site.urls.published ? <a href={site.urls.published} data-native>{site.urls.published}</a> : <span class="muted">Not published</span>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <form class="inline-form" onSubmit={create}>
        <label>Site name<input name="title" required maxLength={50} /></label>
        <button type="submit" class="primary">Create site</button>
      </form>
      {feedback}
    </Frame>
  );
}

/// One site, every part of it on one screen.
export function Site({ orgId, siteId }) {
  const base = `/v1/orgs/${orgId}/sites/${siteId}`;
  const [{ data, error }, reload] = useLoad(async () => {
    const [org, site, siteSpaces, sections, groups, spaces, shareLinks, customization] = await Promise.all([
      get(`/v1/orgs/${orgId}`),
      get(base),
      all(`${base}/site-spaces`),
      all(`${base}/sections`),
      all(`${base}/section-groups`),
      all(`/v1/orgs/${orgId}/spaces`),
      all(`${base}/share-links`),
      get(`${base}/customization`),
    ]);
    return { org, site, siteSpaces, sections, groups, spaces, shareLinks, customization };
  }, [orgId, siteId]);
  const [act, feedback] = useAction(reload);
  if (!data) return <Pending error={error} />;
  const { site } = data;
  const saveSettings = (event) => {
    event.preventDefault();
    const form = event.currentTarget.elements;
    act(() => patch(base, { title: form.title.value, basename: form.basename.value, visibility: form.visibility.value }), 'Site settings saved.');
  };
  return (
    <Frame orgId={orgId} org={data.org} current="sites">
      <p class="crumbs"><a href={`/o/${orgId}/sites`}>Sites</a></p>
      <h1>{site.title}</h1>
      <section aria-labelledby="publishing">
        <h2 id="publishing">Publishing</h2>
        {site.published ? (
          <p>
            Published at <a href={site.urls.published} data-native>{site.urls.published}</a>{' '}
            <button type="button" onClick={() => act(() => post(`${base}/unpublish`), 'The site is no longer published.')}>Unpublish</button>
          </p>
        ) : (
          <p>
            <span class="muted">Not published. </span>
            <button type="button" class="primary" disabled={data.siteSpaces.length === 0}
              onClick={() => act(() => post(`${base}/publish`), 'The site is published.')}>Publish</button>
            {data.siteSpaces.length === 0 && <span class="muted"> Add a space first.</span>}
          </p>
        )}
        {feedback}
        <form class="stack-form" onSubmit={saveSettings}>
          <label>Site name<input name="title" defaultValue={site.title} required maxLength={50} /></label>
          <label>Path of its address<input name="basename" defaultValue={site.basename} required pattern="[a-z0-9][a-z0-9-]*" /></label>
          <label>
            Who may read it
            <select name="visibility">
              {Object.entries(VISIBILITY).map(([value, words]) => (
                <option key={value} value={value} selected={value === site.visibility}>{words}</option>
              ))}
            </select>
          </label>
          <button type="submit">Save site settings</button>
        </form>
      </section>
      <Content base={base} data={data} reload={reload} />
      <Look base={base} site={site} customization={data.customization} reload={reload} />
      <Audience base={base} site={site} shareLinks={data.shareLinks} reload={reload} />
    </Frame>
  );
}

/// What the site holds: its spaces (site spaces), sections and their groups.
function Content({ base, data, reload }) {
  const [act, feedback] = useAction(reload);
  const addSpace = (event) => {
    event.preventDefault();
    const spaceId = event.currentTarget.elements.space.value;
    act(() => post(`${base}/site-spaces`, { spaceId }), 'Space added.');
  };
  const addSection = (event) => {
    event.preventDefault();
    const form = event.currentTarget.elements;
    act(() => post(`${base}/sections`, { spaceId: form.space.value, title: form.title.value }), 'Section added.');
  };
  const addGroup = (event) => {
    event.preventDefault();
    const form = event.currentTarget;
    const sections = [...form.querySelectorAll('input[name=section]:checked')].map((i) => i.value);
    act(() => post(`${base}/section-groups`, { title: form.elements.title.value, sections }), 'Section group added.');
  };
  const spaceOptions = data.spaces.map((s) => <option key={s.id} value={s.id}>{s.title}</option>);
  return (
    <section aria-labelledby="content">
      <h2 id="content">Content</h2>
      {feedback}
      {data.siteSpaces.length === 0 && <p class="muted">No space published by this site yet.</p>}
      <ul class="links" aria-label="Spaces of the site">
        {data.siteSpaces.map((s) => (
          <li key={s.id}>
            <span><strong>{s.space.title}</strong> <span class="muted">at /{s.path}{s.default ? ' (default)' : ''}</span></span>
            <button type="button" onClick={() => act(() => del(`${base}/site-spaces/${s.id}`), 'Space removed from the site.')}>Remove {s.space.title}</button>
          </li>
        ))}
      </ul>
      <form class="inline-form" onSubmit={addSpace}>
        <label>Space to publish<select name="space">{spaceOptions}</select></label>
        <button type="submit">Add space</button>
      </form>
      <h3>Sections</h3>
      <p class="muted">Sections split a large site into products or areas, each with its own spaces, shown as tabs.</p>
      <ul class="links" aria-label="Sections">
        {data.sections.map((s) => (
          <li key={s.id}>
            <span><strong>{s.title}</strong> <span class="muted">at /{s.path}</span></span>
            <button type="button" onClick={() => act(() => del(`${base}/sections/${s.id}`), 'Section removed.')}>Remove section {s.title}</button>
          </li>
        ))}
      </ul>
      <form class="inline-form" onSubmit={addSection}>
        <label>Section title<input name="title" required maxLength={50} /></label>
        <label>Its space<select name="space">{spaceOptions}</select></label>
        <button type="submit">Add section</button>
      </form>
      {data.sections.length > 1 && (
        <>
          <h3>Section groups</h3>
          <ul class="links" aria-label="Section groups">
            {data.groups.map((g) => (
              <li key={g.id}>
                <span><strong>{g.title}</strong> <span class="muted">{g.sections.map((s) => s.title).join(', ')}</span></span>
                <button type="button" onClick={() => act(() => del(`${base}/section-groups/${g.id}`), 'Section group removed.')}>Remove group {g.title}</button>
              </li>
            ))}
          </ul>
          <form class="inline-form" onSubmit={addGroup}>
            <label>Group title<input name="title" required maxLength={50} /></label>
            <fieldset>
              <legend>Sections in it</legend>
              {data.sections.map((s) => (
                <label key={s.id} class="choice"><input type="checkbox" name="section" value={s.id} />{s.title}</label>
              ))}
            </fieldset>
            <button type="submit">Add section group</button>
          </form>
        </>
      )}
    </section>
  );
}

/// Who may read the site beyond its visibility: share links, the key of
/// visitor authentication, the claims adaptive content reads.
function Audience({ base, site, shareLinks, reload }) {
  const [act, feedback] = useAction(reload);
  const createLink = (event) => {
    event.preventDefault();
    const form = event.currentTarget;
    const name = form.elements.name.value;
    act(async () => { await post(`${base}/share-links`, { name }); form.reset(); }, 'Share link created.');
  };
  return (
    <section aria-labelledby="audience">
      <h2 id="audience">Audience</h2>
      {feedback}
      <h3>Share links</h3>
      <p class="muted">
        {site.visibility === 'share-link'
          ? 'Only people with one of these links can read the site. Revoke a link and it stops working at once.'
          : 'Share links work once the site is readable by share links only (see “Who may read it”).'}
      </p>
      <ul class="links" aria-label="Share links">
        {shareLinks.map((link) => (
          <li key={link.id}>
            {link.urls.published ? (
              <CopyField label={`Share link ${link.name}`} value={link.urls.published} />
            ) : (
              <span>{link.name} <span class="muted">{link.active ? '(works once the site is published)' : '(revoked)'}</span></span>
            )}
            {link.active ? (
              <button type="button" onClick={() => act(() => patch(`${base}/share-links/${link.id}`, { active: false }), 'Share link revoked.')}>Revoke {link.name}</button>
            ) : (
              <button type="button" onClick={() => act(() => patch(`${base}/share-links/${link.id}`, { active: true }), 'Share link restored.')}>Restore {link.name}</button>
            )}
            <button type="button" onClick={() => act(() => del(`${base}/share-links/${link.id}`), 'Share link deleted.')}>Delete {link.name}</button>
          </li>
        ))}
      </ul>
      <form class="inline-form" onSubmit={createLink}>
        <label>Share link name<input name="name" required maxLength={50} placeholder="For the partners" /></label>
        <button type="submit">Create share link</button>
      </form>
      {site.visibility === 'visitor-auth' && <VisitorAuth base={base} />}
      <AdaptiveSchema base={base} />
    </section>
  );
}

/// The key a site's own service signs visitors' tokens with.
function VisitorAuth({ base }) {
  const [{ data, error }, reload] = useLoad(() => get(`${base}/publishing/auth`), [base]);
  const [act, feedback] = useAction(reload);
  if (error) return <p class="error" role="alert">{error.message}</p>;
  if (!data) return null;
  const save = (event) => {
    event.preventDefault();
    const url = event.currentTarget.elements.fallback.value;
    act(() => patch(`${base}/publishing/auth`, { backend: 'custom', fallbackURL: url || null }), 'Visitor authentication saved.');
  };
  return (
    <>
      <h3>Visitor authentication</h3>
      <p class="muted">
        Your service signs each visitor's token (a JWT, HS256) with this key and sends them to the site with it; the
        fallback address is where visitors without one are sent to sign in.
      </p>
      <CopyField label="Signing key" value={data.privateKey} />
      <button type="button" onClick={() => act(() => post(`${base}/publishing/auth/regenerate`), 'A new key was made; tokens signed with the old one no longer work.')}>Make a new key</button>
      {feedback}
      <form class="inline-form" onSubmit={save}>
        <label>Fallback address<input name="fallback" type="url" defaultValue={data.fallbackURL ?? ''} placeholder="https://example.com/sign-in" /></label>
        <button type="submit">Save fallback address</button>
      </form>
    </>
  );
}

/// The JSON schema of the claims adaptive content may use in conditions.
function AdaptiveSchema({ base }) {
  const [{ data }] = useLoad(() => get(`${base}/adaptive-schema`).catch(() => null), [base]);
  const [act, feedback] = useAction();
  const [problem, setProblem] = useState(null);
  const save = (event) => {
    event.preventDefault();
    let jsonSchema;
    try {
      jsonSchema = JSON.parse(event.currentTarget.elements.schema.value);
      setProblem(null);
    } catch (e) {
      setProblem(`Not JSON: ${e.message}`);
      return;
    }
    act(() => put(`${base}/adaptive-schema`, { jsonSchema }), 'Adaptive schema saved.');
  };
  const shown = data?.jsonSchema ?? {
    type: 'object',
    properties: {
      unsigned: { type: 'object', description: 'Unsigned claims of the site visitor.', properties: {}, additionalProperties: false },
    },
    additionalProperties: false,
  };
  return (
    <>
      <h3>Adaptive content</h3>
      <p class="muted">The visitor claims that conditions on pages and spaces may read, as a JSON schema.</p>
      <form class="stack" onSubmit={save}>
        <label>
          Claims schema (JSON)
          <textarea class="json" name="schema" defaultValue={JSON.stringify(shown, null, 2)} spellcheck={false} />
        </label>
        {problem && <p class="error" role="alert">{problem}</p>}
        <button type="submit">Save schema</button>
        {feedback}
      </form>
    </>
  );
}
