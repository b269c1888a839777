// An organization's OpenAPI specifications: add one from a URL or a file,
// give a new version, see how its processing went (and its errors), its
// versions, and the operations it describes — which pages show as API
// reference blocks.
import { useState } from 'preact/hooks';
import { all, del, get, patch, post, put } from '../api.js';
import { Pending, usePolling, useLoad } from './Home.jsx';
import { Frame, useAction } from './Admin.jsx';

const STATES = { pending: 'Waiting to be read', progress: 'Being read…', complete: 'Read' };
const METHODS = ['get', 'put', 'post', 'patch', 'delete', 'head', 'options', 'trace'];

/// What a spec form gives: `{url}` or `{text}` (a chosen file's text).
async function sourceOf(form) {
  const file = form.file.files?.[0];
  if (file) return { text: await file.text() };
  if (form.url.value) return { url: form.url.value };
  throw new Error('Give the specification’s URL or choose its file.');
}

export function OpenApiSpecs({ orgId, slug }) {
  const base = `/v1/orgs/${orgId}/openapi`;
  const [open, setOpen] = useState(slug ?? null);
  const [{ data, error }, reload] = useLoad(async () => {
    const [org, specs] = await Promise.all([get(`/v1/orgs/${orgId}`), all(base)]);
    return { org, specs };
  }, [orgId]);
  const [act, feedback] = useAction(reload);
  const processing = data?.specs.some((s) => s.processingState !== 'complete');
  usePolling(processing, reload);
  if (!data) return <Pending error={error} />;
  const add = (event) => {
    event.preventDefault();
    const form = event.currentTarget;
    const elements = form.elements;
    act(async () => {
      await post(base, { slug: elements.slug.value, source: await sourceOf(elements) });
      setOpen(elements.slug.value);
      form.reset();
    }, 'Specification added.');
  };
  return (
    <Frame orgId={orgId} org={data.org} current="openapi">
      <h1>OpenAPI specifications</h1>
      {feedback}
      {data.specs.length === 0 && <p class="muted">No specification yet. Pages show a specification's operations as API reference blocks.</p>}
      {data.specs.map((spec) => (
        <Spec key={spec.id} base={base} spec={spec} act={act} open={open === spec.slug} onOpen={() => setOpen(open === spec.slug ? null : spec.slug)} />
      ))}
      <h2>Add a specification</h2>
      <form class="stack-form" onSubmit={add}>
        <label>Name in addresses (slug)<input name="slug" required pattern="[a-z0-9][a-z0-9-]*" maxLength={100} placeholder="payments-api" /></label>
        <label>Its URL (Quire reads it again on each new version)<input name="url" type="url" placeholder="https://example.com/openapi.yaml" /></label>
        <label>Or its file (JSON or YAML)<input name="file" type="file" accept=".json,.yaml,.yml,application/json,application/yaml" /></label>
        <button type="submit" class="primary">Add specification</button>
      </form>
    </Frame>
  );
}

function Spec({ base, spec, act, open, onOpen }) {
  const at = `${base}/${spec.slug}`;
  const update = (event) => {
    event.preventDefault();
    const form = event.currentTarget;
    const elements = form.elements;
    act(async () => {
      await put(at, { source: await sourceOf(elements) });
      form.reset();
    }, 'New version given.');
  };
  return (
    <section class="conflict" aria-labelledby={`spec-${spec.id}`}>
      <h2 id={`spec-${spec.id}`}>{spec.slug}</h2>
      <p>
        <span class={`state state-${spec.lastProcessErrorCode ? 'error' : spec.processingState}`}>
          {spec.lastProcessErrorCode ? 'Could not be read' : STATES[spec.processingState] ?? spec.processingState}
        </span>
        {spec.sourceURL && <span class="muted"> · from <a href={spec.sourceURL} data-native>{spec.sourceURL}</a></span>}
        {spec.lastProcessedAt && <span class="muted"> · {new Date(spec.lastProcessedAt).toLocaleString()}</span>}
      </p>
      {spec.lastProcessedErrors?.length > 0 && (
        <ul class="error" aria-label={`Errors of ${spec.slug}`}>
          {spec.lastProcessedErrors.map((e, i) => <li key={i}>{e.message ?? JSON.stringify(e)}</li>)}
        </ul>
      )}
      <div class="toolbar">
        <button type="button" aria-expanded={open} onClick={onOpen}>{open ? 'Hide' : 'Show'} operations and versions</button>
        <label class="choice">
          <input type="checkbox" checked={spec.visibility === 'public'}
            onChange={(e) => act(() => patch(at, { visibility: e.currentTarget.checked ? 'public' : 'private' }), 'Visibility changed.')} />
          Public (anyone may download it)
        </label>
        <button type="button" onClick={() => act(() => del(at), `${spec.slug} removed.`)}>Remove {spec.slug}</button>
      </div>
      {open && <SpecDetails at={at} spec={spec} />}
      <form class="inline-form" onSubmit={update}>
        <label>New version from a URL<input name="url" type="url" defaultValue={spec.sourceURL ?? ''} /></label>
        <label>or a file<input name="file" type="file" accept=".json,.yaml,.yml,application/json,application/yaml" /></label>
        <button type="submit">Give a new version</button>
      </form>
    </section>
  );
}

/// The latest version's operations (from its document) and every version.
function SpecDetails({ at, spec }) {
  const [{ data, error }] = useLoad(async () => {
    const [versions, content] = await Promise.all([
      all(`${at}/versions`),
      spec.lastVersion ? get(`${at}/versions/latest/content`) : null,
    ]);
    return { versions, document: content ? Object.values(content.filesystem)[0] : null };
  }, [at, spec.updatedAt, spec.processingState, spec.lastVersion]);
  if (error) return <p class="error" role="alert">{error.message}</p>;
  if (!data) return <p aria-busy="true">…</p>;
  const operations = Object.entries(data.document?.paths ?? {}).flatMap(([path, item]) =>
    METHODS.filter((m) => item?.[m]).map((method) => ({ method, path, summary: item[method].summary ?? item[method].operationId ?? '' })),
  );
  return (
    <>
      <h3>Operations ({operations.length})</h3>
      <ul class="operations" aria-label={`Operations of ${spec.slug}`}>
        {operations.map((o) => (
          <li key={`${o.method} ${o.path}`}><span class="method">{o.method}</span> <code>{o.path}</code> <span class="muted">{o.summary}</span></li>
        ))}
      </ul>
      <h3>Versions</h3>
      <ol class="history" reversed aria-label={`Versions of ${spec.slug}`}>
        {data.versions.map((v) => <li key={v.id}>{new Date(v.createdAt).toLocaleString()}</li>)}
      </ol>
    </>
  );
}
