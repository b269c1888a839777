// An organization's published sites: the list, and one site's screen —
// publishing and its address, what it holds (site spaces, sections,
// section groups), its look with a live preview, and who may read it
// (visibility, share links, the visitor-authentication key, the adaptive
// schema). Everything goes through the public API.
import { useEffect, useRef, useState } from 'preact/hooks';
import { all, del, get, patch, post, put } from '../api.js';
import { navigate } from '../router.js';
import { Pending, useLoad } from './Home.jsx';
import { CopyField, Frame, useAction } from './Admin.jsx';

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

/// The parts of the customization this screen edits, read from the settings.
function lookOf(settings, site) {
  return {
    title: settings.title ?? site.title,
    light: settings.styling?.primaryColor?.light ?? '#346DDB',
    dark: settings.styling?.primaryColor?.dark ?? '#346DDB',
    theme: settings.themes?.default ?? 'system',
    announcement: settings.announcement?.enabled ? settings.announcement.message ?? '' : '',
    copyright: settings.footer?.copyright ?? '',
    look: settings.styling?.theme ?? 'clean',
    corners: settings.styling?.corners ?? 'straight',
    depth: settings.styling?.depth ?? 'subtle',
    links: settings.styling?.links ?? 'default',
    sidebar: settings.styling?.sidebar?.background ?? 'default',
    list: settings.styling?.sidebar?.list ?? 'default',
    search: settings.styling?.search ?? 'prominent',
    external: settings.externalLinks?.target ?? 'self',
    pagination: settings.pagination?.enabled === false ? 'off' : 'on',
  };
}

/// The styling choices the published page follows as attributes of its
/// `<html>` (`data-look`, `data-corners`, ...), as the server writes them.
const STYLING = ['look', 'corners', 'depth', 'links', 'sidebar', 'list', 'search'];

/// The official values of each choice, with their names here.
const CHOICES = {
  look: [['clean', 'Clean'], ['muted', 'Muted'], ['bold', 'Bold'], ['gradient', 'Gradient']],
  corners: [['straight', 'Straight'], ['rounded', 'Rounded'], ['circular', 'Circular']],
  depth: [['subtle', 'Subtle shadows'], ['flat', 'Flat']],
  links: [['default', 'Default'], ['accent', 'Underlined in the accent']],
  sidebar: [['default', 'Plain'], ['filled', 'Filled']],
  list: [['default', 'Default'], ['pill', 'Pill'], ['line', 'Line']],
  search: [['prominent', 'Prominent'], ['subtle', 'Subtle']],
  external: [['self', 'In the same tab'], ['blank', 'In a new tab']],
  pagination: [['on', 'Shown'], ['off', 'Hidden']],
};

/// Shows `look` on the published page in the preview frame as it is
/// typed: the accent colour, the title, the theme and the announcement.
function showInPreview(frame, look) {
  const doc = frame?.contentDocument;
  if (!doc?.documentElement) return;
  let style = doc.getElementById('quire-preview');
  if (!style) {
    style = doc.createElement('style');
    style.id = 'quire-preview';
    doc.head.append(style);
  }
  style.textContent = `:root{--accent:${look.light}}:root[data-theme=dark]{--accent:${look.dark}}`;
  if (look.theme === 'light' || look.theme === 'dark') doc.documentElement.dataset.theme = look.theme;
  else delete doc.documentElement.dataset.theme;
  for (const name of STYLING) doc.documentElement.dataset[name] = look[name];
  const brand = doc.querySelector('.brand');
  if (brand) {
    const image = brand.querySelector('img');
    brand.textContent = look.title;
    if (image) brand.prepend(image);
  }
  let banner = doc.querySelector('.announcement');
  if (look.announcement) {
    if (!banner) {
      banner = doc.createElement('div');
      banner.className = 'announcement hint hint-info';
      doc.body.prepend(banner);
    }
    banner.textContent = look.announcement;
  } else if (banner) {
    banner.remove();
  }
}

/// The site's look, with the published page beside it changing as the
/// fields change; saved as the official customization settings.
function Look({ base, site, customization, reload }) {
  const [act, feedback] = useAction(reload);
  const initial = lookOf(customization, site);
  const [look, setLook] = useState(initial);
  const frame = useRef(null);
  useEffect(() => setLook(lookOf(customization, site)), [customization]);
  useEffect(() => showInPreview(frame.current, look), [look]);
  const sameOrigin = site.urls.published && new URL(site.urls.published, location.href).origin === location.origin;
  const field = (name) => ({
    name,
    value: look[name],
    onInput: (e) => setLook({ ...look, [name]: e.currentTarget.value }),
  });
  const save = (event) => {
    event.preventDefault();
    const { updatedAt, ...settings } = customization;
    const next = {
      ...settings,
      title: look.title,
      styling: {
        ...settings.styling,
        primaryColor: { light: look.light, dark: look.dark },
        theme: look.look,
        corners: look.corners,
        depth: look.depth,
        links: look.links,
        search: look.search,
        sidebar: { ...settings.styling?.sidebar, background: look.sidebar, list: look.list },
      },
      externalLinks: { ...settings.externalLinks, target: look.external },
      pagination: { ...settings.pagination, enabled: look.pagination === 'on' },
      themes: { ...settings.themes, default: look.theme },
      footer: { ...settings.footer, copyright: look.copyright || undefined },
      announcement: { ...(settings.announcement ?? {}), enabled: true, message: look.announcement, style: settings.announcement?.style ?? 'info' },
    };
    if (!look.announcement) delete next.announcement;
    if (!next.footer.copyright) delete next.footer.copyright;
    act(() => put(`${base}/customization`, next), 'Look saved.');
  };
  return (
    <section aria-labelledby="look">
      <h2 id="look">Look</h2>
      <div class="look">
        <form class="stack-form" onSubmit={save}>
          <label>Title shown on the site<input {...field('title')} required maxLength={50} /></label>
          <label>Accent colour (light)<input type="color" {...field('light')} /></label>
          <label>Accent colour (dark)<input type="color" {...field('dark')} /></label>
          <label>
            Theme
            <select {...field('theme')}>
              <option value="system">The reader's setting</option>
              <option value="light">Light</option>
              <option value="dark">Dark</option>
            </select>
          </label>
          {[
            ['look', 'Style'],
            ['corners', 'Corners'],
            ['depth', 'Depth'],
            ['links', 'Links'],
            ['sidebar', 'Sidebar'],
            ['list', 'Current page in the sidebar'],
            ['search', 'Search box'],
            ['external', 'Links to other sites open'],
            ['pagination', 'Previous and next under pages'],
          ].map(([name, label]) => (
            <label key={name}>
              {label}
              <select {...field(name)}>
                {CHOICES[name].map(([value, text]) => <option key={value} value={value}>{text}</option>)}
              </select>
            </label>
          ))}
          <label>Announcement (empty: none)<input {...field('announcement')} maxLength={128} /></label>
          <label>Copyright in the footer<input {...field('copyright')} maxLength={200} /></label>
          <button type="submit" class="primary">Save look</button>
          {feedback}
        </form>
        {sameOrigin ? (
          <iframe
            ref={frame}
            class="site-preview"
            title="Preview of the site"
            src={site.urls.published}
            onLoad={() => showInPreview(frame.current, look)}
          />
        ) : (
          <p class="muted">Publish the site to see its pages here as you change its look.</p>
        )}
      </div>
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
