// Every page of a space (a GitBook repository imported through Git Sync,
// say) opened in the editor and saved back, the way a writer would, then
// compared with what it was: a real-content check of the editor's round
// trip. Prints one line per page that changed and a summary.
//
//   QUIRE_URL=http://127.0.0.1:8092 QUIRE_LINK=<sign-in link> QUIRE_SPACE=<space id> \
//     node tests/real-content.mjs [--limit N]
//
// or, with QUIRE_REPO (a Git URL the server may fetch: `file://` needs
// `--allow-private-fetch`) instead of QUIRE_SPACE, into a new space
// imported through Git Sync first (QUIRE_REF, default `refs/heads/main`;
// QUIRE_PROJECT_DIR for a repository holding several spaces).
import { call, launch, saveThroughEditor } from './browser.mjs';

const url = process.env.QUIRE_URL;
// With --edit, a word is typed at the start of each page's first line of
// text and kept: the page must then differ from what it was in one place
// only (the edited block), the rest as written.
const edit = process.argv.includes('--edit');
const limitAt = process.argv.indexOf('--limit');
const limit = limitAt > 0 ? Number(process.argv[limitAt + 1]) : Infinity;
const browser = await launch();
const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
await page.goto(process.env.QUIRE_LINK);
await page.getByRole('button', { name: 'Continue' }).click();
await page.getByRole('heading', { name: 'Organizations' }).waitFor();

const json = async (method, path, body) => {
  const answer = await call(page, method, path, body);
  if (answer.status >= 300) throw new Error(`${method} ${path}: ${answer.status} ${answer.body}`);
  return answer.body ? JSON.parse(answer.body) : null;
};

/// Markdown with the differences of form only taken out: bullet and
/// emphasis markers (in quotes too), table padding, a trailing
/// non-breaking space entity, escaped brackets and dollars, runs of blank
/// lines, trailing blank lines.
function form(markdown) {
  return markdown
    .split('\n')
    .map((line) =>
      line
        .replace(/^((?:>\s*)*\s*)\* /, '$1- ')
        .replace(/\\\$/g, '$')
        .replace(/(^|[^\w*])_([^_\n]+)_(?=[^\w]|$)/g, '$1*$2*')
        .replace(/&#x20;/g, '')
        .replace(/\\([[\]])/g, '$1')
        .replace(/\s*\|\s*/g, '|')
        .replace(/\|:?-+:?(?=\|)/g, '|-')
        .trimEnd(),
    )
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trimEnd();
}

/// A new space holding QUIRE_REPO, imported through Git Sync.
async function imported() {
  const org = await json('POST', '/v1/orgs', { title: 'Real content' });
  const created = await json('POST', `/v1/orgs/${org.id}/spaces`, { title: process.env.QUIRE_REPO.split('/').pop() });
  const body = { url: process.env.QUIRE_REPO, ref: process.env.QUIRE_REF ?? 'refs/heads/main' };
  if (process.env.QUIRE_PROJECT_DIR) body.repoProjectDirectory = process.env.QUIRE_PROJECT_DIR;
  const started = Date.now();
  await json('POST', `/v1/spaces/${created.id}/git/import`, body);
  for (;;) {
    const info = await json('GET', `/v1/spaces/${created.id}/git/info`);
    const state = info.operation?.state ?? info.state;
    if (state === 'failure' || info.operation?.error) throw new Error(`import failed: ${JSON.stringify(info)}`);
    if (state === 'success') break;
    if (Date.now() - started > 600_000) throw new Error(`import still running: ${JSON.stringify(info)}`);
    await page.waitForTimeout(500);
  }
  console.log(`imported ${process.env.QUIRE_REPO} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return created.id;
}

const space = process.env.QUIRE_SPACE ?? (await imported());
const content = await json('GET', `/v1/spaces/${space}/content`);
const pages = [];
const walk = (list) => list.forEach((p) => (p.type === 'document' && pages.push(p), walk(p.pages ?? [])));
walk(content.pages);
const cr = await json('POST', `/v1/spaces/${space}/change-requests`, { subject: 'Round trip through the editor' });
let rich = 0;
let markdown = 0;
const changed = [];
const meaning = [];
for (const p of pages.slice(0, limit)) {
  const before = (await json('GET', `/v1/spaces/${space}/content/page/${p.id}?format=markdown`)).markdown;
  if (await saveThroughEditor(page, url, space, cr.number, p.id, edit ? 'Quire ' : undefined)) markdown += 1;
  else rich += 1;
  const after = (await json('GET', `/v1/spaces/${space}/change-requests/${cr.id}/content/page/${p.id}?format=markdown`)).markdown;
  if (edit) {
    // One changed region (lines), holding the typed word, and no blank line
    // inside it on either side: one block of text.
    const a = before.split('\n');
    const b = after.split('\n');
    let start = 0;
    while (start < a.length && start < b.length && a[start] === b[start]) start += 1;
    let end = 0;
    while (end < a.length - start && end < b.length - start && a[a.length - 1 - end] === b[b.length - 1 - end]) end += 1;
    const was = a.slice(start, a.length - end);
    const now = b.slice(start, b.length - end);
    const one = now.join('\n').includes('Quire') && !was.some((l) => l.trim() === '') && !now.some((l) => l.trim() === '');
    if (!one) {
      changed.push(p.path);
      console.log(`MORE THAN THE EDITED BLOCK: ${p.path} (lines ${start + 1}-${a.length - end}: ${JSON.stringify(was.join('\n').slice(0, 160))} -> ${JSON.stringify(now.join('\n').slice(0, 160))})`);
    }
    continue;
  }
  if (after !== before) {
    const beyond = form(after) !== form(before);
    const a = (beyond ? form(before) : before).split('\n');
    const b = (beyond ? form(after) : after).split('\n');
    const line = a.findIndex((l, i) => l !== b[i]);
    changed.push(p.path);
    if (beyond) meaning.push(p.path);
    console.log(`${beyond ? 'CHANGED BEYOND FORM' : 'changed in form'}: ${p.path} (line ${line + 1}: ${JSON.stringify(a[line]?.slice(0, 120))} -> ${JSON.stringify(b[line]?.slice(0, 120))})`);
  }
}
if (edit) {
  console.log(`${Math.min(pages.length, limit)} pages edited in the first line of text: ${changed.length} changed beyond the edited block`);
} else {
  console.log(
    `${Math.min(pages.length, limit)} pages: ${rich} in the rich editor, ${markdown} as markdown; ${changed.length} changed, ` +
      `${meaning.length} beyond form${meaning.length ? `: ${meaning.join(', ')}` : ''}`,
  );
}
await browser.close();
