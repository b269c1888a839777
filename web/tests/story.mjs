// A writer's first week, in Debian's Chromium driven by playwright-core,
// all through the web application as a person uses it:
//  1. Ada signs in with a CLI sign-in link, opens the empty space "Widgets"
//     of the organization "Acme Docs" (both made by the driver) and imports
//     a repository GitBook wrote through the Git Sync screen (its URL, the
//     branch picked from the repository's branches, Import);
//  2. she opens the imported page "Create an application", edits it in a
//     change request's block editor and writes every block the slash menu
//     offers, by keyboard, text in each that takes text: an uploaded file
//     and an uploaded image with its caption among them;
//  3. she reloads the editor and finds her blocks still there;
//  4. she opens the review: 1 changed page, her blocks shown added in the
//     rendered changes, and comments on one block (the comment shows right
//     under it, and is still there after a reload);
//  5. she merges, goes back to the list of change requests, opens the
//     merged one by its number and finds the diff and her comment there,
//     read-only;
//  6. she exports the space to its repository from Git Sync (the driver
//     then checks the commit touched only what she changed).
// Every screen is checked with axe-core (no serious or critical violation;
// the CSP is bypassed only to inject axe) and photographed at desktop width
// in light and at phone width (390x844) in dark.
// Run by crates/quire-server/tests/api/writer_story.rs with:
//   QUIRE_URL      the server,
//   QUIRE_LINK     Ada's CLI sign-in link,
//   QUIRE_SPACE    the id of the empty space "Widgets",
//   QUIRE_REPO     the repository's URL (file://, in GitBook's Git Sync layout),
//   QUIRE_UPLOADS  a folder holding ada-dashboard.png and release-checklist.pdf,
//   ARTIFACTS      the screenshots' folder (default artifacts),
//   CHROMIUM       the browser (default /usr/bin/chromium).
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { call, launch, newPage, screen as check, stepper } from './browser.mjs';

const env = process.env;
const url = env.QUIRE_URL;
const space = env.QUIRE_SPACE;
const artifacts = env.ARTIFACTS ?? 'artifacts';
mkdirSync(artifacts, { recursive: true });

/// How long anything may take to show (an import or an export: longer).
const TIMEOUT = 20_000;
const JOB_TIMEOUT = 60_000;

const browser = await launch();
const pages = [];
const step = stepper(artifacts, () => pages);
const page = await newPage(browser, pages);
page.setDefaultTimeout(TIMEOUT);
const k = page.keyboard;
/// The screen is checked with axe-core and photographed.
const screen = (name) => check(page, name, artifacts);

/// The page Ada edits, and what her comment says.
const TITLE = 'Create an application';
const COMMENT = 'Could this say why small releases are safer?';
const QUOTE = 'Ship small, ship often.';

/// The texts of the blocks she writes that have text of their own: each is
/// found in the editor after a reload and marked added in the review.
const WRITTEN = [
  'Deploy to production',
  'Before you start',
  'Check the port',
  'Ada checks the port before every release.',
  'Build the image',
  'Stop the old version',
  'Tell the team',
  QUOTE,
  'docker run -p 8080:8080 widgets',
  'Releases go out on Tuesdays.',
  'A green build can ship.',
  'Mind the firewall.',
  'Never deploy on a Friday evening.',
  'Install with Homebrew.',
  'Each system installs differently.',
  'Build it.',
  'Left side.',
  'Faster deploys.',
  'Only for beta readers.',
  'Summarize this release.',
  'for the card layouts.',
];

/// What the page's markdown holds once she wrote it (the forms the API
/// writes, as tests/e2e.mjs checks them).
const MARKDOWN = [
  '# Deploy to production',
  '## Before you start',
  '### Check the port',
  'Ada checks the port before every release.',
  '- Build the image',
  '1. Stop the old version',
  '[ ] Tell the team',
  `> ${QUOTE}`,
  '```bash\ndocker run -p 8080:8080 widgets\n```',
  '{% hint style="info" %}\nReleases go out on Tuesdays.',
  '{% hint style="success" %}\nA green build can ship.',
  '{% hint style="warning" %}\nMind the firewall.',
  '{% hint style="danger" %}\nNever deploy on a Friday evening.',
  '{% tab title="macOS" %}\nInstall with Homebrew.',
  '{% tab title="Linux" %}\nUnpack the archive.',
  '<summary>Why two tabs?</summary>',
  'Each system installs differently.',
  '| port | 8080 |',
  '{% stepper %}\n{% step %}\nBuild it.\n{% endstep %}',
  'Ship it.',
  '{% columns %}\n{% column width="50%" %}\nLeft side.',
  'Right side.',
  '{% updates format="full" %}\n{% update date="2026-11-30" tags="release" %}\nFaster deploys.',
  '{% if visitor.claims.unsigned.beta %}\nOnly for beta readers.',
  '{% prompt description="Summary" %}\n```markdown\nSummarize this release.\n```\n{% endprompt %}',
  '{% include "../.gitbook/includes/release-note.md" %}',
  '{% embed url="https://example.com/demo" %}',
  'E = mc^2',
  '{% openapi-operation spec="widgets" path="/widgets" method="get" %}',
  '{% file src="/files/',
  'The release checklist.\n{% endfile %}',
  '![The dashboard](/files/',
  '"The dashboard after deploy")',
  '[Cards and tables](',
  '{% content-ref url="',
];

// The editor.
const editor = () => page.locator('.editor-surface .prose');
const menu = page.getByRole('listbox', { name: 'Insert a block' });
const images = page.locator('.images-block');
const fileBlock = page.locator('.opaque', { has: page.locator('.opaque-title', { hasText: /^File$/ }) });

/// Everything typed is saved, and the shared document is editable (its
/// blocks drawn as editable: two frames after the editor became so).
async function saved() {
  await page.locator('.save-state[data-state="saved"]').waitFor();
  await page.locator('.editor-surface .ProseMirror[contenteditable="true"]').waitFor();
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
}

/// The editor has the keyboard (Tiptap focuses on the next frame).
const focused = () => page.waitForFunction(() => document.activeElement?.classList.contains('ProseMirror'));

/// The caret in an empty line at the end of the page, as a writer clicks
/// below the last block: the editor keeps an empty paragraph after a last
/// block that is not one; after a paragraph with text, Enter makes one.
async function end() {
  const emptyLine = () =>
    page.evaluate(() => {
      const { $from } = window.quireEditor.state.selection;
      return $from.depth === 1 && $from.parent.type.name === 'paragraph' && $from.parent.content.size === 0;
    });
  await page.evaluate(() => window.quireEditor.commands.focus('end'));
  await focused();
  if (!(await emptyLine())) await k.press('Enter');
  assert.ok(await emptyLine(), 'the caret is in an empty line at the end of the page');
}

/// A block from the slash menu, by keyboard: "/" and `query` typed in an
/// empty line at the end of the page, `downs` times the down arrow, then
/// Enter on `option` (checked to be the one chosen).
async function insert(query, option, downs = 0) {
  await end();
  await k.type(`/${query}`);
  await menu.getByRole('option', { name: option, exact: true }).waitFor();
  for (let i = 0; i < downs; i += 1) await k.press('ArrowDown');
  await menu.getByRole('option', { name: option, exact: true, selected: true }).waitFor();
  await k.press('Enter');
  await menu.waitFor({ state: 'detached' });
}

/// The editor's top-level blocks, without the empty line kept at the end.
/// A block the editor holds as its JSON is read as that JSON (the editor
/// leaves out the keys the server gives blocks).
const blocks = () =>
  page.evaluate(() => {
    const content = window.quireEditor.getJSON().content ?? [];
    while (content.length && content.at(-1).type === 'paragraph' && !content.at(-1).content?.length) content.pop();
    return content.map((node) => (node.type === 'opaque' ? { type: 'opaque', block: JSON.parse(node.attrs.json) } : node));
  });

/// Every image in the editor is drawn (its file read back from the server;
/// images load when they come near the screen, so each is scrolled to).
const imagesDrawn = async () => {
  for (const img of await page.locator('.images-block img').all()) await img.scrollIntoViewIfNeeded();
  await page.waitForFunction(() => {
    const shown = [...document.querySelectorAll('.images-block img')];
    return shown.length > 0 && shown.every((img) => img.complete && img.naturalWidth > 0);
  });
};

/// `method path` as Ada, answered with 2xx: its JSON.
async function api(method, path, body) {
  const answer = await call(page, method, path, body);
  assert.ok(answer.status < 300, `${method} ${path}: ${answer.status} ${answer.body}`);
  return answer.body ? JSON.parse(answer.body) : null;
}

// Where she works: the change request's number and the page's id, from
// the editor's address (/s/{space}/change-requests/{number}/edit/{page}).
let number;
let pageId;
const markdownNow = async () => {
  const cr = await api('GET', `/v1/spaces/${space}/change-requests/${number}`);
  return (await api('GET', `/v1/spaces/${space}/change-requests/${cr.id}/content/page/${pageId}?format=markdown`)).markdown;
};

// The review: the page's changes (its section), a block in them, and the
// comments under a block.
const change = () => page.locator('section', { has: page.getByRole('heading', { level: 3, name: new RegExp(`^${TITLE}`) }) });
const addedBlock = (text) => change().locator('.diff-block-added', { hasText: text });
const postedComment = () =>
  change().getByRole('list', { name: 'Comments on this block' }).getByText(COMMENT, { exact: true });

/// The "Comment on this block" button of `block` (each block of the
/// changes has one; the button and its block name the same block key).
async function commentButtonOf(block) {
  const key = await block.getAttribute('data-block-key');
  assert.ok(key, 'the block has a key');
  return change().getByRole('button', { name: 'Comment on this block' }).and(page.locator(`[data-for-block="${key}"]`));
}

/// The comment is drawn right under its block: below it, with no other
/// block of the changes between them.
async function assertRightUnder(block, comment) {
  await comment.scrollIntoViewIfNeeded();
  const problem = await comment.evaluate((note, above) => {
    const bottom = above.getBoundingClientRect().bottom;
    const top = note.getBoundingClientRect().top;
    if (top < bottom - 1) return `the comment (top ${top}) is not under its block (bottom ${bottom})`;
    const between = [...document.querySelectorAll('.diff-block')].filter((other) => {
      if (other === above || other.contains(note)) return false;
      const r = other.getBoundingClientRect();
      return r.top >= bottom - 1 && r.bottom <= top + 1;
    });
    return between.length ? `${between.length} other block(s) between the block and its comment` : null;
  }, await block.elementHandle());
  assert.equal(problem, null);
}

/// The rendered changes show every block she wrote as added, and nothing
/// of the page as it was changed or removed.
async function assertBlocksAdded() {
  await page.getByRole('tab', { name: 'Changes', exact: true, selected: true }).waitFor();
  await change().locator('.diff-block-added').first().waitFor();
  for (const text of WRITTEN) await addedBlock(text).first().waitFor();
  const summary = (await change().locator('.diff-summary').textContent()).trim();
  assert.match(summary, /^\d+ blocks added\.$/, 'only blocks added: the page as it was is unchanged');
}

await step('Ada signs in with her CLI link and opens the empty space', async () => {
  await page.goto(env.QUIRE_LINK);
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  await page.getByRole('button', { name: 'Continue' }).waitFor();
  assert.ok(!page.url().includes('#'), 'the token leaves the address bar');
  await screen('sign-in-link');
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.getByRole('heading', { name: 'Organizations' }).waitFor();
  await page.getByRole('link', { name: 'Acme Docs', exact: true }).click();
  await page.getByRole('heading', { name: 'Acme Docs', level: 1 }).waitFor();
  await screen('organization');
  await page.getByRole('link', { name: 'Widgets', exact: true }).first().click();
  await page.waitForURL(`${url}/s/${space}/`);
  await page.getByText('This space has no page yet.').waitFor();
  await screen('space-empty');
});

await step('she imports the GitBook repository through Git Sync', async () => {
  await page.getByRole('link', { name: 'Git Sync' }).click();
  await page.getByRole('heading', { name: 'Git Sync', level: 1 }).waitFor();
  await page.getByLabel('Repository URL').fill(env.QUIRE_REPO);
  // The branch is picked among the repository's own, its default chosen.
  await page.getByRole('button', { name: 'Find the branches' }).click();
  await page.locator('select[name="branch"]').waitFor();
  const branch = page.getByLabel('Branch');
  assert.equal(await branch.inputValue(), 'main');
  assert.deepEqual(await branch.getByRole('option').allTextContents(), ['main (default)']);
  await page.getByRole('button', { name: 'Import from the repository' }).click();
  await page.getByRole('status').filter({ hasText: 'Import: Done' }).waitFor({ timeout: JOB_TIMEOUT });
  await page.getByText(/^\d+ pages and \d+ files imported from commit [0-9a-f]{10}\.$/).waitFor();
  await screen('import');
  await page.getByRole('link', { name: 'Open the imported pages' }).click();
  await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: TITLE }).waitFor();
});

let before;
let markdownBefore;
await step('she opens "Create an application" in a change request\'s block editor', async () => {
  await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: TITLE }).click();
  await page.waitForURL(`${url}/s/${space}/getting-started/create-an-application`);
  await page.getByRole('main').getByRole('heading', { name: TITLE, level: 1 }).first().waitFor();
  await page.getByRole('main').getByText('First run').first().waitFor();
  await screen('page');
  await page.getByRole('button', { name: 'Edit', exact: true }).click();
  await page.waitForURL(/\/change-requests\/\d+\/edit\/[^/]+$/);
  [, , , , number, , pageId] = new URL(page.url()).pathname.split('/');
  assert.equal(await page.getByLabel('Page title').inputValue(), TITLE);
  // The imported page opens in the block editor (not as markdown).
  assert.equal(await page.getByRole('textbox', { name: 'Page markdown' }).count(), 0, 'the block editor, not markdown');
  await saved();
  await editor().getByText('First run').waitFor();
  before = await blocks();
  markdownBefore = await markdownNow();
});

let written;
await step('she writes every block of the slash menu, an uploaded image with its caption among them', async () => {
  const uploads = env.QUIRE_UPLOADS;
  // Headings, text, lists, a task, a quote.
  await insert('heading', 'Heading 1');
  await k.type('Deploy to production');
  await insert('heading', 'Heading 2', 1);
  await k.type('Before you start');
  await insert('heading', 'Heading 3', 2);
  await k.type('Check the port');
  await insert('text', 'Text');
  await k.type('Ada checks the port before every release.');
  await insert('bulleted', 'Bulleted list');
  await k.type('Build the image');
  await k.press('Enter');
  await k.type('Push it to the registry');
  await insert('numbered', 'Numbered list');
  await k.type('Stop the old version');
  await k.press('Enter');
  await k.type('Start the new one');
  await insert('task', 'Task list');
  await k.type('Tell the team');
  await insert('quote', 'Quote');
  await k.type(QUOTE);
  // A code block, its language picked in its toolbar.
  await insert('code', 'Code block');
  await k.type('docker run -p 8080:8080 widgets');
  const code = page.getByRole('group', { name: 'Code block' });
  await code.getByLabel('Language').selectOption('bash');
  assert.equal(await code.getByLabel('Language').inputValue(), 'bash');
  // A hint of each style.
  await insert('(info)', 'Hint (info)');
  await k.type('Releases go out on Tuesdays.');
  await insert('(success)', 'Hint (success)');
  await k.type('A green build can ship.');
  await insert('(warning)', 'Hint (warning)');
  await k.type('Mind the firewall.');
  await insert('(danger)', 'Hint (danger)');
  await k.type('Never deploy on a Friday evening.');
  await insert('divider', 'Divider');
  // Tabs, titled; an expandable, summarized; a table.
  await insert('tabs', 'Tabs');
  await k.type('Install with Homebrew.');
  await page.getByRole('textbox', { name: 'Tab title' }).first().fill('macOS');
  await page.getByRole('textbox', { name: 'Tab title' }).nth(1).fill('Linux');
  await page.locator('.tab-item-body').nth(1).click();
  await k.type('Unpack the archive.');
  await insert('expandable', 'Expandable');
  await k.type('Each system installs differently.');
  await page.getByRole('textbox', { name: 'Expandable summary' }).fill('Why two tabs?');
  await insert('table', 'Table');
  await k.type('port');
  await k.press('Tab');
  await k.type('8080');
  // GitBook's containers: stepper, columns, updates, conditional content,
  // prompt.
  await insert('stepper', 'Stepper');
  await k.type('Build it.');
  await page.locator('.container-stepperStep > .container-body').nth(1).click();
  await k.type('Ship it.');
  await insert('columns', 'Columns');
  await k.type('Left side.');
  await page.locator('.container-column > .container-body').nth(1).click();
  await k.type('Right side.');
  await insert('updates', 'Updates (changelog)');
  await k.type('Faster deploys.');
  await page.getByLabel('Update: Date').fill('2026-11-30');
  await page.getByLabel('Update: Tags').fill('release');
  // The condition's input takes the caret; Enter goes on to the content.
  await insert('conditional', 'Conditional content');
  await page.waitForFunction(() => document.activeElement?.getAttribute('aria-label') === 'Shown when: Condition');
  await k.press('Enter');
  await k.type('Only for beta readers.');
  await insert('prompt', 'Prompt');
  await k.type('Summarize this release.');
  await page.getByLabel('Prompt: Description').fill('Summary');
  // Blocks without text of their own: their fields filled.
  await insert('included', 'Included content');
  await page.waitForFunction(() => document.activeElement?.closest('label')?.textContent === 'Reusable content');
  await k.type('../.gitbook/includes/release-note.md');
  await k.press('Enter');
  await insert('embed', 'Embed');
  await page.getByLabel('Embed URL').fill('https://example.com/demo');
  await insert('math', 'Math');
  await page.getByLabel('Formula (TeX)').fill('E = mc^2');
  await insert('openapi', 'OpenAPI operation');
  await page.getByLabel('OpenAPI spec').fill('widgets');
  await page.getByLabel('Path', { exact: true }).fill('/widgets');
  // Uploads: a file with a caption, an image with its caption and
  // alternative text (the menu opens the file chooser; the file is given to
  // its input, as the chooser would).
  await insert('file', 'File (upload)');
  await page.getByLabel('Upload a file').setInputFiles(join(uploads, 'release-checklist.pdf'));
  await fileBlock.waitFor();
  await fileBlock.getByLabel('Caption').fill('The release checklist.');
  await insert('image', 'Image (upload)');
  await page.getByLabel('Upload a file').setInputFiles(join(uploads, 'ada-dashboard.png'));
  await images.locator('img[src]').waitFor();
  await imagesDrawn();
  await images.getByLabel('Caption').fill('The dashboard after deploy');
  await images.getByLabel('Alternative text').fill('The dashboard');
  // A link to another page and a card for another, each picked by typing
  // its title.
  await insert('link', 'Link to a page');
  const linkDialog = page.getByRole('dialog', { name: 'Link to a page' });
  await linkDialog.waitFor();
  await page.waitForFunction(() => document.activeElement?.getAttribute('aria-label') === 'Find a page to link to');
  await k.type('Cards');
  await linkDialog.getByRole('option', { name: 'Cards and tables', selected: true }).waitFor();
  await k.press('Enter');
  await linkDialog.waitFor({ state: 'detached' });
  await focused();
  await k.type('for the card layouts.');
  await insert('card', 'Link card (page)');
  const cardDialog = page.getByRole('dialog', { name: 'Link card to a page' });
  await cardDialog.waitFor();
  await page.waitForFunction(() => document.activeElement?.getAttribute('aria-label') === 'Find a page to link to');
  await k.type('Steps');
  await cardDialog.getByRole('option', { name: 'Steps and columns', selected: true }).waitFor();
  await k.press('Enter');
  await page.locator('.card-target', { hasText: 'Steps and columns' }).waitFor();
  await saved();

  // What the editor holds: the page as it was, then her blocks.
  written = await blocks();
  assert.deepEqual(written.slice(0, before.length), before, 'the page as it was comes first, unchanged');
  const types = written.slice(before.length).map((n) => (n.type === 'opaque' ? n.block.type : n.type));
  for (const type of ['heading', 'bulletList', 'orderedList', 'taskList', 'blockquote', 'codeBlock', 'hint', 'horizontalRule', 'tabs', 'expandable', 'table', 'stepper', 'columns', 'updates', 'conditional', 'prompt', 'reusable-content', 'embed', 'math', 'openapi-operation', 'file', 'images', 'content-ref']) {
    assert.ok(types.includes(type), `a ${type} block among ${types.join(', ')}`);
  }
  assert.equal(written.filter((n) => n.type === 'hint').length, 4, 'a hint of each style');
  // What the server saved: the same page, her blocks after it.
  const markdown = await markdownNow();
  assert.ok(markdown.startsWith(`${markdownBefore.trimEnd()}\n\n`), `the page as it was comes first:\n${markdown}`);
  for (const expected of MARKDOWN) {
    assert.ok(markdown.includes(expected), `the markdown holds ${JSON.stringify(expected)}:\n${markdown}`);
  }
  await screen('editor');
});

await step('she reloads the editor and finds her blocks still there', async () => {
  await page.reload();
  await editor().waitFor();
  await saved();
  await imagesDrawn();
  assert.deepEqual(await blocks(), written, 'the same blocks after a reload');
  for (const text of WRITTEN) await editor().getByText(text, { exact: false }).first().waitFor();
  assert.equal(await images.getByLabel('Caption').inputValue(), 'The dashboard after deploy');
  assert.equal(await fileBlock.getByLabel('Caption').inputValue(), 'The release checklist.');
  assert.equal(await page.getByRole('textbox', { name: 'Expandable summary' }).inputValue(), 'Why two tabs?');
});

await step('the review lists 1 changed page with her blocks added, and she comments on one block', async () => {
  await page.getByRole('link', { name: 'Review and merge' }).click();
  await page.waitForURL(`${url}/s/${space}/change-requests/${number}`);
  await page.getByRole('heading', { name: '1 changed page' }).waitFor();
  await assertBlocksAdded();
  const quote = addedBlock(QUOTE);
  await quote.hover();
  await (await commentButtonOf(quote)).click();
  await page.getByRole('textbox', { name: 'Your comment on this block' }).fill(COMMENT);
  await page.getByRole('button', { name: 'Post comment' }).click();
  await postedComment().waitFor();
  await page.getByRole('textbox', { name: 'Your comment on this block' }).waitFor({ state: 'detached' });
  await assertRightUnder(quote, postedComment());
  await screen('review-comment');
});

await step('her comment is in place after reloading', async () => {
  await page.reload();
  await page.getByRole('heading', { name: '1 changed page' }).waitFor();
  await addedBlock(QUOTE).waitFor();
  await postedComment().waitFor();
  await assertRightUnder(addedBlock(QUOTE), postedComment());
});

await step('she merges', async () => {
  await page.getByRole('button', { name: 'Merge', exact: true }).click();
  await page.waitForURL(`${url}/s/${space}/`);
  await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: TITLE }).click();
  await page.waitForURL(`${url}/s/${space}/getting-started/create-an-application`);
  await page.locator('article').getByText('Deploy to production').waitFor();
  await page.locator('article').getByText(QUOTE).waitFor();
  // Read afresh (nothing left from the editor): the image is the space's
  // file, the link card names its page.
  await page.reload();
  await page.locator('article').getByText(QUOTE).waitFor();
  await imagesDrawn();
  await page.locator('article').getByText('Steps and columns').first().waitFor();
  await screen('page-merged');
});

await step('the merged change request opens from the list by its number, its diff and comment kept, read-only', async () => {
  await page.getByRole('link', { name: 'Change requests' }).click();
  await page.getByRole('heading', { name: 'Change requests', level: 1 }).waitFor();
  await page.getByRole('tab', { name: 'merged' }).click();
  const link = page.getByRole('link', { name: new RegExp(`^#${number} `) });
  await link.waitFor();
  assert.equal(await link.textContent(), `#${number} Edit ${TITLE}`);
  await screen('change-requests-merged');
  await link.click();
  await page.waitForURL(`${url}/s/${space}/change-requests/${number}`);
  await page.getByRole('heading', { name: '1 changed page' }).waitFor();
  await page.getByText('This change request is merged: it is shown read-only.').waitFor();
  // Read afresh too: its image and its link card's page title are shown.
  await page.reload();
  await page.getByRole('heading', { name: '1 changed page' }).waitFor();
  await imagesDrawn();
  await page.locator('.rendered-diff').getByText('Steps and columns').first().waitFor();
  await assertBlocksAdded();
  await postedComment().waitFor();
  await assertRightUnder(addedBlock(QUOTE), postedComment());
  for (const name of ['Merge', 'Comment', 'Comment on this block', 'Post comment', 'Comment on this page', 'Request review', 'Resolve', 'Reply']) {
    assert.equal(await page.getByRole('button', { name, exact: true }).count(), 0, `no ${name} button`);
  }
  assert.equal(await page.getByRole('link', { name: 'Continue editing' }).count(), 0, 'no editing');
  assert.equal(await page.locator('textarea').count(), 0, 'nothing to write in');
  await screen('change-request-merged');
});

await step('she exports the space to its repository from Git Sync', async () => {
  await page.getByRole('link', { name: 'Change requests' }).click();
  await page.getByRole('link', { name: 'Back to the space' }).click();
  await page.getByRole('link', { name: 'Git Sync' }).click();
  await page.getByRole('heading', { name: 'Git Sync', level: 1 }).waitFor();
  // The space remembers its repository and branch.
  await page.getByRole('status').filter({ hasText: 'Import: Done' }).waitFor();
  assert.equal(await page.getByLabel('Repository URL').inputValue(), env.QUIRE_REPO);
  assert.equal(await page.getByLabel('Branch').inputValue(), 'main');
  await page.getByRole('button', { name: 'Export to the repository' }).click();
  await page.getByRole('status').filter({ hasText: 'Export: Done' }).waitFor({ timeout: JOB_TIMEOUT });
  // The page and the two files she uploaded; nothing else.
  await page.getByText(/^3 files written, 0 deleted in commit [0-9a-f]{10}\.$/).waitFor();
  await screen('export');
});

await browser.close();
