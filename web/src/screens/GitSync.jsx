// A space's Git Sync: connect it to a repository, import from it, export
// to it, and what the latest operation did (pages and files written, the
// problems met). Reads `GET /v1/spaces/{id}/git/info` again every second
// while an operation runs.
import { useState } from 'preact/hooks';
import { get, post } from '../api.js';
import { Pending, usePolling, useLoad } from './Home.jsx';
import { useAction } from './Admin.jsx';

const STATES = { running: 'Running', pending: 'Waiting to run', success: 'Done', failure: 'Failed' };

/// The repository's branch as Git names it (`main` → `refs/heads/main`).
function fullRef(branch) {
  return branch.startsWith('refs/') ? branch : `refs/heads/${branch}`;
}

/// `GET .../git/info`, or null when the space is not connected (404).
async function gitInfo(spaceId) {
  try {
    return await get(`/v1/spaces/${spaceId}/git/info`);
  } catch (error) {
    if (error.status === 404) return null;
    throw error;
  }
}

export function GitSync({ spaceId }) {
  const [{ data, error }, reload] = useLoad(async () => {
    const [space, info, content] = await Promise.all([
      get(`/v1/spaces/${spaceId}`),
      gitInfo(spaceId),
      get(`/v1/spaces/${spaceId}/content`),
    ]);
    return { space, info, git: content.git ?? null };
  }, [spaceId]);
  const [run, feedback] = useAction();
  // The repository's branches once asked for: its default and every one.
  const [branches, setBranches] = useState(null);
  const [branch, setBranch] = useState(null);
  const [finding, setFinding] = useState(null);
  const operation = data?.info?.operation;
  const busy = operation && (operation.state === 'running' || operation.state === 'pending');
  usePolling(busy, reload);
  if (!data) return <Pending error={error} />;
  const known = data.info?.url && !data.info.url.includes('***') ? data.info.url : '';
  const connectedBranch = data.git?.ref?.replace(/^refs\/heads\//, '') ?? '';
  const shortName = (ref) => ref.replace(/^refs\/heads\//, '');
  /// Asks the repository for its branches; the branch field takes its
  /// default unless one of its branches is already chosen.
  const findBranches = async (form) => {
    setFinding('Reading the repository…');
    try {
      const found = await post(`/v1/spaces/${spaceId}/git/branches`, { url: form.url.value });
      setBranches(found);
      const names = found.items.map(shortName);
      const current = form.branch.value;
      if (!names.includes(current) && found.default) setBranch(shortName(found.default));
      setFinding(names.length ? null : 'The repository has no branch yet: exporting creates the one named.');
    } catch (error) {
      setBranches(null);
      setFinding(error.message);
    }
  };
  const start = (direction) => (event) => {
    event.preventDefault();
    const form = (event.currentTarget.form ?? event.currentTarget).elements;
    const body = { url: form.url.value, ref: fullRef(form.branch.value || 'main') };
    if (form.directory.value) body.repoProjectDirectory = form.directory.value.replace(/^\/+|\/+$/g, '');
    if (direction === 'export') body.commitMessage = form.message.value || 'Update from Quire';
    run(async () => {
      // A first import with the branch left as it was takes the
      // repository's default branch when it has no such branch (`master`
      // in GitBook-era repositories).
      if (direction === 'import' && !connectedBranch && branch === null && !branches) {
        const found = await post(`/v1/spaces/${spaceId}/git/branches`, { url: body.url }).catch(() => null);
        if (found?.default && !found.items.includes(body.ref)) body.ref = found.default;
      }
      await post(`/v1/spaces/${spaceId}/git/${direction}`, body);
      await reload();
      // The operation's own status (above, announced) says how it goes.
    });
  };
  return (
    <main id="main" class="page">
      <p class="crumbs"><a href={`/s/${spaceId}/`}>{data.space.title}</a></p>
      <h1>Git Sync</h1>
      <p class="muted">
        Keep the space and a Git repository in step: the repository holds the pages as markdown in GitBook's layout
        (<code>SUMMARY.md</code>, <code>.gitbook.yaml</code>). Import reads the repository into the space; export
        commits the space to it.
      </p>
      {data.info && <LastOperation info={data.info} git={data.git} />}
      <form class="stack-form" onSubmit={start('import')}>
        <label>Repository URL<input name="url" type="text" required defaultValue={known} placeholder="https://github.com/acme/docs.git" /></label>
        <div class="toolbar">
          <button type="button" onClick={(e) => findBranches(e.currentTarget.form)}>Find the branches</button>
          {finding && <span role="status" class="muted">{finding}</span>}
        </div>
        <label>
          Branch
          {branches && branches.items.length > 0 ? (
            <select name="branch" value={branch ?? (connectedBranch || shortName(branches.default ?? ''))} onChange={(e) => setBranch(e.currentTarget.value)}>
              {branches.items.map((ref) => (
                <option value={shortName(ref)}>
                  {shortName(ref)}
                  {ref === branches.default ? ' (default)' : ''}
                </option>
              ))}
            </select>
          ) : (
            <input name="branch" value={branch ?? (connectedBranch || 'main')} onInput={(e) => setBranch(e.currentTarget.value)} />
          )}
        </label>
        <label>Folder in the repository (empty: its root)<input name="directory" placeholder="docs" /></label>
        <label>Commit message of exports<input name="message" placeholder="Update from Quire" /></label>
        <div class="toolbar">
          <button type="submit" class="primary" disabled={busy}>Import from the repository</button>
          <button type="button" disabled={busy} onClick={start('export')}>Export to the repository</button>
        </div>
        <p class="muted">A private repository takes its credentials in the URL (https://user:token@host/…); Quire never shows them again.</p>
        {feedback}
      </form>
    </main>
  );
}

function LastOperation({ info, git }) {
  const operation = info.operation;
  const result = operation?.result;
  return (
    <section aria-labelledby="last-operation" class="stack">
      <h2 id="last-operation">Connected to {info.repoName}</h2>
      <p>
        <a href={info.url} data-native>{info.url}</a>
        {git?.oid && <span class="muted"> · last synced commit <code>{git.oid.slice(0, 10)}</code></span>}
      </p>
      {operation && (
        <p role="status" aria-live="polite">
          {operation.direction === 'export' ? 'Export' : 'Import'}:{' '}
          <span class={`state state-${operation.state}`}>{STATES[operation.state] ?? operation.state}</span>
          {operation.endedAt && <span class="muted"> · {new Date(operation.endedAt).toLocaleString()}</span>}
        </p>
      )}
      {operation?.error && <p class="error">{operation.error}</p>}
      {result && (
        <>
          <p>
            {result.ignored
              ? `Nothing was done: ${result.ignored}.`
              : operation.direction === 'export'
                ? `${result.written} files written, ${result.deleted} deleted${result.commit ? ` in commit ${result.commit.slice(0, 10)}` : ''}.`
                : `${result.pages} pages and ${result.files} files imported${result.commit ? ` from commit ${result.commit.slice(0, 10)}` : ''}.`}
          </p>
          {operation.direction === 'import' && operation.state === 'success' && !result.ignored && (
            <p>
              <a class="button" href={`/s/${info.installationId}/`}>Open the imported pages</a>
            </p>
          )}
          {result.changeRequest && <p>The repository and the space both changed: <a href={`/s/${info.installationId}/change-requests`}>a change request</a> holds the repository's version.</p>}
          <h3>Problems</h3>
          {result.problems.length === 0 ? (
            <p class="muted">None.</p>
          ) : (
            <table class="grid" aria-label="Problems of the last operation">
              <thead><tr><th scope="col">File</th><th scope="col">Problem</th></tr></thead>
              <tbody>
                {result.problems.map((p, i) => (
                  <tr key={i}><td><code>{p.path}</code></td><td>{p.problem}</td></tr>
                ))}
              </tbody>
            </table>
          )}
        </>
      )}
    </section>
  );
}
