// The web application in Debian's Chromium, driven by playwright-core: a
// person signs in by a CLI link, then by password and by OpenID Connect;
// creates an organization, a space and a page; writes the page by keyboard
// (markdown shortcuts and the slash menu), reloads and finds it identical
// (in the editor and through the API's markdown); reviews the change
// request's diff; a reviewer who signs in with OpenID Connect comments on
// one block of the page (the comment shown right under that block, after
// a reload too) and approves it with a comment, the writer replies and
// merges; a conflicting merge is
// settled by editing the result; two versions of the page are compared and
// the page is restored from its history; the organization shows recent
// changes;
// searches with Ctrl-K; an MCP client is allowed through OAuth after
// signing in; pages move in the tree by keyboard and dragging;
// pasting from Google Docs and Word gives clean blocks; pages of a
// repository written by GitBook go through the editor unchanged;
// sees their sessions.
// Every screen is checked with axe-core (no serious or critical
// violation; the page's CSP is bypassed only to inject axe) and photographed at desktop and phone width, in light and
// dark. Run by crates/quire-server/tests/api/web_app.rs with:
//   QUIRE_URL, QUIRE_LINK (a CLI sign-in link), QUIRE_EMAIL,
//   QUIRE_OIDC_NAME and QUIRE_OIDC_EMAIL (when an OpenID provider runs),
//   ARTIFACTS (the screenshots' folder), CHROMIUM (default /usr/bin/chromium).
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { call, launch, saveThroughEditor, stepper } from './browser.mjs';

const require = createRequire(import.meta.url);
const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
const url = process.env.QUIRE_URL;
const artifacts = process.env.ARTIFACTS ?? 'artifacts';
const PASSWORD = 'correct horse battery';
mkdirSync(artifacts, { recursive: true });

const browser = await launch();

let page;

const step = stepper(artifacts, () => [page]);

/// axe-core on the page: no serious or critical violation.
async function accessible(page, screen) {
  await page.addScriptTag({ content: AXE });
  const result = await page.evaluate(async () => window.axe.run(document, { resultTypes: ['violations'] }));
  const bad = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(
    bad.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(', ')}`),
    [],
    `accessibility of ${screen}`,
  );
}

async function shot(page, name) {
  await page.screenshot({ path: `${artifacts}/${name}.png`, fullPage: true });
}

async function screen(page, name) {
  await accessible(page, name);
  await shot(page, name);
}

const desktop = await browser.newContext({ viewport: { width: 1280, height: 800 }, bypassCSP: true });
page = await desktop.newPage();
page.on('pageerror', (error) => console.error(`page error: ${error.message}`));

await step('a CLI sign-in link signs the first admin in and sets a password', async () => {
  await page.goto(process.env.QUIRE_LINK);
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  // The form shows once the link was inspected, after the token left.
  await page.getByLabel('Set a password (optional)').waitFor();
  assert.ok(!page.url().includes('#'), 'the token leaves the address bar');
  await screen(page, 'link-desktop');
  await page.getByLabel('Set a password (optional)').fill(PASSWORD);
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.getByRole('heading', { name: 'Organizations' }).waitFor();
  await screen(page, 'home-empty-desktop');
});

let spaceUrl;
let reviewer;
await step('an organization, a space and a page are created', async () => {
  await page.getByLabel('Organization title').fill('Acme Docs');
  await page.getByRole('button', { name: 'Create organization' }).click();
  await page.getByRole('heading', { name: 'Acme Docs' }).waitFor();
  await page.getByLabel('Space title').fill('Handbook');
  await page.getByRole('button', { name: 'Create space' }).click();
  await page.getByRole('heading', { name: 'Handbook' }).waitFor();
  spaceUrl = page.url();
  await screen(page, 'space-empty-desktop');
  await page.getByRole('button', { name: 'New page' }).click();
  await page.getByLabel('Page title').waitFor();
});

const editor = () => page.locator('.editor-surface .prose');
/// The editor's HTML without the empty paragraphs at its end (the editor
/// keeps one after a last block for the caret; an empty paragraph is no
/// content, and is not saved).
const content = async () => (await editor().innerHTML()).replace(/(<p>(<br class="ProseMirror-trailingBreak">)?<\/p>)+$/, '');
/// Everything typed is saved, and the shared document is editable (its
/// blocks drawn as editable: two frames after the editor became so).
const saved = async () => {
  await page.locator('.save-state[data-state="saved"]').waitFor();
  await page.locator('.editor-surface .ProseMirror[contenteditable="true"]').waitFor();
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
};

let markdownBefore;
let htmlBefore;
await step('a page is written by keyboard, markdown shortcuts and the slash menu', async () => {
  await page.getByLabel('Page title').fill('Welcome');
  await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Welcome' }).waitFor();
  // The shared document is ready (and the title saved) before typing.
  await saved();
  await editor().click();
  const k = page.keyboard;
  await k.type('# Getting started');
  await k.press('Enter');
  await k.type('Quire keeps your **docs** in one place.');
  await k.press('Enter');
  await k.type('/hint');
  await page.getByRole('listbox', { name: 'Insert a block' }).waitFor();
  await shot(page, 'slash-menu-desktop');
  await k.press('Enter');
  await k.type('Every edit happens in a change request.');
  await k.press('Enter');
  await k.press('Enter');
  await k.type('- first item');
  await k.press('Enter');
  await k.type('second item');
  await k.press('Enter');
  await k.press('Enter');
  await k.type('[ ] a task to do');
  await k.press('Enter');
  await k.press('Enter');
  await k.type('> a quote');
  await k.press('Enter');
  await k.press('Enter');
  await k.type('```js ');
  await k.type('const answer = 42;');
  await k.press('ArrowDown');
  await k.type('/tabs');
  await page.getByRole('option', { name: 'Tabs' }).waitFor();
  await k.press('Enter');
  await k.type('On macOS, drag the app to Applications.');
  await page.getByRole('textbox', { name: 'Tab title' }).first().fill('macOS');
  await page.getByRole('textbox', { name: 'Tab title' }).nth(1).fill('Linux');
  await page.locator('.tab-item-body').nth(1).click();
  await k.type('On Linux, unpack the archive.');
  await page.evaluate(() => window.quireEditor.commands.focus('end'));
  await k.type('/expandable');
  await page.getByRole('option', { name: 'Expandable' }).waitFor();
  await k.press('Enter');
  await k.type('Hidden until opened.');
  await page.getByRole('textbox', { name: 'Expandable summary' }).fill('Why two tabs?');
  await page.locator('.expandable-body').click();
  await page.evaluate(() => window.quireEditor.commands.focus('end'));
  await k.type('/table');
  await page.getByRole('option', { name: 'Table' }).waitFor();
  await k.press('Enter');
  await k.type('port');
  await k.press('Tab');
  await k.type('8080');
  await page.evaluate(() => window.quireEditor.commands.focus('end'));
  await k.type('/math');
  await page.getByRole('option', { name: 'Math' }).waitFor();
  await k.press('Enter');
  await k.type('/embed');
  await page.getByRole('option', { name: 'Embed' }).waitFor();
  await k.press('Enter');
  await page.getByLabel('Embed URL').fill('https://example.com/video');
  // Tiptap focuses on the next frame: wait for it before typing.
  const end = async () => {
    await page.evaluate(() => window.quireEditor.commands.focus('end'));
    await page.waitForFunction(() => document.activeElement?.classList.contains('ProseMirror'));
  };
  const insert = async (typed, option) => {
    await end();
    await k.type(typed);
    await page.getByRole('option', { name: option }).waitFor();
    await k.press('Enter');
  };
  await insert('/stepper', 'Stepper');
  await k.type('Install the app.');
  await page.locator('.container-stepperStep > .container-body').nth(1).click();
  await k.type('Open it.');
  await insert('/columns', 'Columns');
  await k.type('Left side.');
  await page.locator('.container-column > .container-body').nth(1).click();
  await k.type('Right side.');
  await insert('/updates', 'Updates (changelog)');
  await k.type('Faster saves.');
  await page.getByLabel('Update: Date').fill('2026-11-26');
  await page.getByLabel('Update: Tags').fill('improvements');
  // The condition's input takes the caret; Enter goes on to the content.
  await insert('/conditional', 'Conditional content');
  await page.waitForFunction(() => document.activeElement?.getAttribute('aria-label') === 'Shown when: Condition');
  await k.press('Enter');
  await k.type('Only for beta readers.');
  await insert('/prompt', 'Prompt');
  await k.type('Summarize this page.');
  await page.getByLabel('Prompt: Description').fill('Summary');
  await insert('/included', 'Included content');
  await page.waitForFunction(() => document.activeElement?.closest('label')?.textContent === 'Reusable content');
  await k.type('../.gitbook/includes/shared.md');
  await k.press('Enter');
  await insert('/openapi', 'OpenAPI operation');
  await page.getByLabel('OpenAPI spec').fill('petstore');
  await page.getByLabel('Path').fill('/pets');
  await insert('/file', 'File (upload)');
  await page.getByLabel('Upload a file').setInputFiles({ name: 'guide.pdf', mimeType: 'application/pdf', buffer: Buffer.from('%PDF-1.4\n%%EOF\n') });
  await page.locator('.opaque-title', { hasText: 'File' }).waitFor();
  await page.getByLabel('Caption').fill('The guide.');
  await saved();
  const html = await content();
  assert.match(html, /<h1[^>]*>Getting started<\/h1>/);
  assert.match(html, /<strong>docs<\/strong>/);
  assert.match(html, /data-hint/);
  assert.match(html, /data-type="taskList"/);
  assert.match(html, /<blockquote/);
  assert.match(html, /language-js/);
  await screen(page, 'editor-desktop');
  htmlBefore = html;
  markdownBefore = await page.evaluate(async () => {
    const [, , space, , number, , pageId] = window.location.pathname.split('/');
    const crs = await (await fetch(`/v1/spaces/${space}/change-requests`)).json();
    const cr = crs.items.find((c) => String(c.number) === number);
    const answer = await (await fetch(`/v1/spaces/${space}/change-requests/${cr.id}/content/page/${pageId}?format=markdown`)).json();
    return answer.markdown;
  });
  for (const expected of ['# Getting started', '**docs**', '{% hint style="info" %}', '- first item', '[ ] a task to do', '> a quote', '```js', '{% embed url="https://example.com/video" %}', 'x^2', '{% tab title="macOS" %}', 'On Linux, unpack the archive.', '<summary>Why two tabs?</summary>', 'Hidden until opened.', '| Column 1 | Column 2 |', '| port | 8080 |',
    '{% stepper %}\n{% step %}\nInstall the app.\n{% endstep %}', 'Open it.', '{% columns %}\n{% column width="50%" %}\nLeft side.', 'Right side.',
    '{% updates format="full" %}\n{% update date="2026-11-26" tags="improvements" %}\nFaster saves.', '{% if visitor.claims.unsigned.beta %}\nOnly for beta readers.',
    '{% prompt description="Summary" %}\n```markdown\nSummarize this page.\n```\n{% endprompt %}', '{% include "../.gitbook/includes/shared.md" %}',
    '{% openapi-operation spec="petstore" path="/pets" method="get" %}', '{% file src="/files/', 'The guide.\n{% endfile %}']) {
    assert.ok(markdownBefore.includes(expected), `the markdown holds ${expected}:\n${markdownBefore}`);
  }
});

await step('reloading finds the page identical, in the editor and through the API', async () => {
  await page.reload();
  await editor().waitFor();
  await saved();
  assert.equal(await content(), htmlBefore);
  const markdownAfter = await page.evaluate(async () => {
    const [, , space, , number, , pageId] = window.location.pathname.split('/');
    const crs = await (await fetch(`/v1/spaces/${space}/change-requests`)).json();
    const cr = crs.items.find((c) => String(c.number) === number);
    return (await (await fetch(`/v1/spaces/${space}/change-requests/${cr.id}/content/page/${pageId}?format=markdown`)).json()).markdown;
  });
  assert.equal(markdownAfter, markdownBefore);
});

await step('the page switches to markdown and back, keeping what was typed', async () => {
  const errors = [];
  const onError = (error) => errors.push(error.message);
  page.on('pageerror', onError);
  const revision = () =>
    page.evaluate(async () => {
      const [, , space, , number] = window.location.pathname.split('/');
      return (await (await fetch(`/v1/spaces/${space}/change-requests/${number}`)).json()).revision;
    });
  const switchTo = async (label) => {
    await page.getByRole('button', { name: label === 'markdown' ? 'Markdown' : 'Rich text' }).click();
  };
  const source = page.getByRole('textbox', { name: 'Page markdown' });
  // Nothing typed: switching saves nothing.
  const before = await revision();
  await switchTo('markdown');
  await source.waitFor();
  assert.ok((await source.inputValue()).includes('# Getting started'), 'the markdown shows the page');
  assert.equal(await revision(), before, 'switching without typing saves nothing');
  // Typed in markdown, then back to rich text: the text is there.
  await source.focus();
  await page.keyboard.press('Control+End');
  await page.keyboard.type('\n\nTyped in markdown mode.\n');
  await page.locator('.save-state[data-state="saved"]').waitFor();
  await switchTo('rich');
  await editor().getByText('Typed in markdown mode.').waitFor();
  await saved();
  // And to markdown again: the text is kept.
  await switchTo('markdown');
  await source.waitFor();
  assert.ok((await source.inputValue()).includes('Typed in markdown mode.'), await source.inputValue());
  await switchTo('rich');
  await editor().getByText('Typed in markdown mode.').waitFor();
  await saved();
  page.off('pageerror', onError);
  assert.equal(await page.getByRole('alert').count(), 0, 'no failure shown');
  assert.deepEqual(errors, [], 'no uncaught error');
});

let reviewUrl;
/// The reviewer's comment on a block, and that block's key.
const BLOCK_COMMENT = 'Could this paragraph name the platforms?';
let blockKey;
await step('the change request shows its diff, side by side', async () => {
  await page.getByRole('link', { name: 'Review and merge' }).click();
  await page.getByRole('heading', { name: '1 changed page' }).waitFor();
  reviewUrl = page.url();
  // The rendered changes first: the page's blocks, the new ones marked.
  await page.locator('.diff-block-added').first().waitFor();
  await screen(page, 'review-desktop');
  await page.getByRole('tab', { name: 'Markdown diff' }).click();
  const added = await page.locator('.diff-added').allTextContents();
  assert.ok(added.some((line) => line.includes('# Getting started')), added.join('\n'));
  await screen(page, 'review-markdown-desktop');
  await page.getByRole('tab', { name: 'Side by side' }).click();
  await page.getByRole('heading', { name: 'After' }).waitFor();
  await shot(page, 'review-side-by-side-desktop');
});

if (process.env.QUIRE_OIDC_NAME) {
  await step('an invited reviewer signs in with OpenID Connect and joins', async () => {
    const orgId = await page.evaluate(async () => {
      const orgs = await (await fetch('/v1/orgs')).json();
      return orgs.items.find((o) => o.title === 'Acme Docs').id;
    });
    const invited = await call(page, 'POST', `/v1/orgs/${orgId}/invites`, {
      emails: [{ email: process.env.QUIRE_OIDC_EMAIL, role: 'review' }],
    });
    assert.equal(invited.status, 200, invited.body);
    const other = await browser.newContext({ viewport: { width: 1280, height: 800 }, bypassCSP: true });
    const p = await other.newPage();
    await p.goto(`${url}/sign-in`);
    await p.getByRole('link', { name: `Sign in with ${process.env.QUIRE_OIDC_NAME}` }).click();
    await p.getByRole('heading', { name: 'Organizations' }).waitFor();
    await p.getByRole('link', { name: 'Acme Docs' }).waitFor();
    const me = await p.evaluate(async () => (await (await fetch('/auth/session')).json()).user.email);
    assert.equal(me, process.env.QUIRE_OIDC_EMAIL);
    reviewer = { context: other, page: p };
  });

  await step('a review is requested, given with a comment and an approval', async () => {
    await page.goto(reviewUrl);
    await page.getByLabel('Ask for a review from').selectOption({ label: 'Grace Hopper' });
    await page.getByRole('button', { name: 'Request review' }).click();
    await page.getByText('review requested').waitFor();
    const p = reviewer.page;
    await p.goto(reviewUrl);
    await p.getByRole('heading', { name: '1 changed page' }).waitFor();
    // A comment on one block of the page, by the button beside it (shown
    // on hover), named by the block's key.
    const block = p.locator('.diff-doc [data-block-key]', { hasText: 'Quire keeps your docs in one place.' });
    await block.hover();
    blockKey = await block.getAttribute('data-block-key');
    assert.ok(blockKey, 'the block has a key');
    await p.getByRole('button', { name: 'Comment on this block' }).and(p.locator(`[data-for-block="${blockKey}"]`)).click();
    await p.getByLabel('Your comment on this block').fill(BLOCK_COMMENT);
    await p.getByRole('button', { name: 'Post comment' }).click();
    const underBlock = p.locator(`.block-beneath[data-for-block="${blockKey}"]`);
    await underBlock.locator('.comment', { hasText: BLOCK_COMMENT }).waitFor();
    // Once reloaded, it is still drawn right under that block (the last
    // block of the blocks drawn before it), and not in the discussion.
    await p.reload();
    await underBlock.locator('.comment', { hasText: BLOCK_COMMENT }).waitFor();
    const above = await underBlock.evaluate((beneath) => {
      const blocks = beneath.previousElementSibling.querySelectorAll('.ProseMirror > [data-block-key]');
      const last = blocks[blocks.length - 1];
      return { key: last?.getAttribute('data-block-key'), text: last?.textContent };
    });
    assert.equal(above.key, blockKey, 'the comment is under its block');
    assert.ok(above.text.includes('Quire keeps your docs in one place.'), above.text);
    assert.equal(await p.locator('section[aria-labelledby="discussion-heading"] .comment', { hasText: BLOCK_COMMENT }).count(), 0);
    await p.setViewportSize({ width: 390, height: 844 });
    await p.emulateMedia({ colorScheme: 'dark' });
    await screen(p, 'review-block-comment-phone-dark');
    await p.setViewportSize({ width: 1280, height: 800 });
    await p.emulateMedia({ colorScheme: 'light' });
    await p.getByLabel('Approve').check();
    await p.getByLabel('Comment (optional)').fill('Clear and short: ship it.');
    await p.getByRole('button', { name: 'Submit review' }).click();
    await p.locator('.review-approved').waitFor();
    await screen(p, 'review-approved-desktop');
    await reviewer.context.close();
    await page.reload();
    await page.locator('.review-approved').waitFor();
    await page.locator(`.block-beneath[data-for-block="${blockKey}"] .comment`, { hasText: BLOCK_COMMENT }).waitFor();
    await page.getByText('Clear and short: ship it.').first().waitFor();
    const reviewComment = page.locator('.comment', { hasText: 'Clear and short: ship it.' });
    await reviewComment.getByRole('textbox', { name: 'Reply to Grace Hopper' }).fill('Thanks!');
    await reviewComment.getByRole('button', { name: 'Reply' }).click();
    await reviewComment.locator('.replies').getByText('Thanks!').waitFor();
    assert.equal(await reviewComment.getByRole('textbox', { name: 'Reply to Grace Hopper' }).inputValue(), '', 'the reply box empties');
    await screen(page, 'review-discussion-desktop');
  });
}

await step('the change request merges', async () => {
  await page.goto(reviewUrl);
  await page.getByLabel('New comment').fill('Merging this one now.');
  await page.getByRole('button', { name: 'Comment', exact: true }).click();
  await page.locator('.comment', { hasText: 'Merging this one now.' }).waitFor();
  await page.getByRole('button', { name: 'Merge' }).click();
  await page.waitForURL(spaceUrl);
  await page.getByRole('heading', { name: 'Welcome', exact: true }).waitFor();
  await page.getByRole('heading', { name: 'Getting started' }).waitFor();
  await screen(page, 'page-desktop');
});

await step('a merged change request opens from the list, read-only', async () => {
  const spaceId = new URL(spaceUrl).pathname.split('/')[2];
  await page.goto(`${url}/s/${spaceId}/change-requests`);
  await page.getByRole('tab', { name: 'merged' }).click();
  const number = new URL(reviewUrl).pathname.split('/')[4];
  await page.locator(`a[href="/s/${spaceId}/change-requests/${number}"]`).click();
  await page.waitForURL(reviewUrl);
  await page.getByRole('heading', { name: '1 changed page' }).waitFor();
  await page.getByText('This change request is merged: it is shown read-only.').waitFor();
  if (blockKey) {
    // The comment on a block is still under it, to read only.
    await page.locator(`.block-beneath[data-for-block="${blockKey}"] .comment`, { hasText: BLOCK_COMMENT }).waitFor();
  }
  await page.getByRole('tab', { name: 'Markdown diff' }).click();
  const added = await page.locator('.diff-added').allTextContents();
  assert.ok(added.some((line) => line.includes('# Getting started')), added.join('\n'));
  await page.locator('.comment', { hasText: 'Merging this one now.' }).waitFor();
  for (const name of ['Merge', 'Comment', 'Request review', 'Comment on this page', 'Comment on this block', 'Post comment', 'Resolve', 'Reply']) {
    assert.equal(await page.getByRole('button', { name, exact: true }).count(), 0, `no ${name} button`);
  }
  assert.equal(await page.getByRole('link', { name: 'Continue editing' }).count(), 0, 'no editing');
  assert.equal(await page.getByText('not found').count(), 0);
  await screen(page, 'review-merged-desktop');
});

await step('a conflicting merge is settled in the browser', async () => {
  const spaceId = new URL(spaceUrl).pathname.split('/')[2];
  const json = async (method, path, body) => {
    const answer = await call(page, method, path, body);
    assert.ok(answer.status < 300, `${method} ${path}: ${answer.status} ${answer.body}`);
    return answer.body ? JSON.parse(answer.body) : null;
  };
  const content = await json('GET', `/v1/spaces/${spaceId}/content`);
  const pageId = content.pages.find((p) => p.title === 'Welcome').id;
  const edit = async (subject, line) => {
    const cr = await json('POST', `/v1/spaces/${spaceId}/change-requests`, { subject });
    await json('POST', `/v1/spaces/${spaceId}/change-requests/${cr.id}/content`, {
      changes: [{ operation: 'update_page', page: pageId, document: { markdown: `# Getting started\n\n${line}\n` } }],
    });
    return cr;
  };
  const mine = await edit('My wording', 'Quire keeps all your docs.');
  const theirs = await edit('Their wording', 'Quire keeps the docs together.');
  await json('POST', `/v1/spaces/${spaceId}/change-requests/${theirs.id}/merge`);
  await page.goto(`${url}/s/${spaceId}/change-requests/${mine.number}`);
  await page.getByRole('heading', { name: 'Conflicts' }).waitFor();
  assert.ok(await page.getByRole('button', { name: 'Merge' }).isDisabled(), 'no merge while pages conflict');
  await page.getByText('Quire keeps the docs together.').waitFor();
  await page.getByLabel('Edit the result').check();
  await page.getByLabel('The result for Welcome').fill('# Getting started\n\nQuire keeps all your docs together.\n');
  await screen(page, 'conflict-desktop');
  await page.getByRole('button', { name: 'Settle conflicts' }).click();
  await page.getByRole('heading', { name: 'Conflicts' }).waitFor({ state: 'detached' });
  await page.getByRole('button', { name: 'Merge' }).click();
  await page.waitForURL(spaceUrl);
  await page.getByText('Quire keeps all your docs together.').waitFor();
});

await step('a page is restored from its history', async () => {
  await page.goto(spaceUrl);
  await page.getByRole('link', { name: 'Page history' }).click();
  await page.getByRole('heading', { name: 'History of Welcome' }).waitFor();
  const versions = page.locator('.history > li');
  assert.equal(await versions.count(), 3, 'written, their wording, my wording');
  await versions.first().getByLabel('Compare').check();
  await versions.last().getByLabel('Compare').check();
  await page.getByRole('heading', { name: 'From the older to the newer version' }).waitFor();
  await screen(page, 'history-desktop');
  await versions.last().getByRole('link', { name: 'View' }).click();
  await page.getByText('You are reading a past version of this space.').waitFor();
  await page.getByText('Every edit happens in a change request.').waitFor();
  await page.getByRole('button', { name: 'Compare with now' }).click();
  await page.locator('.past .diff-added').first().waitFor();
  await screen(page, 'past-version-desktop');
  await page.getByRole('button', { name: 'Restore this page' }).click();
  await page.getByRole('heading', { name: '1 changed page' }).waitFor();
  await page.getByRole('button', { name: 'Merge' }).click();
  await page.waitForURL(spaceUrl);
  await page.getByRole('heading', { name: 'Welcome', exact: true }).waitFor();
  await page.getByText('Every edit happens in a change request.').waitFor();
  // The whole space, compared between its first and latest versions.
  await page.getByRole('link', { name: 'History', exact: true }).click();
  await page.getByRole('heading', { name: 'History', exact: true }).waitFor();
  const all = page.locator('.history > li');
  await all.first().getByLabel('Compare').check();
  await all.last().getByLabel('Compare').check();
  const changed = page.locator('.space-changes > li', { hasText: 'Welcome' });
  await changed.waitFor();
  await changed.getByRole('button', { name: 'Welcome' }).click();
  await changed.locator('.diff-added', { hasText: 'Every edit happens in a change request.' }).first().waitFor();
  await screen(page, 'space-history-desktop');
});

await step('the organization shows its recent changes', async () => {
  await page.goto(spaceUrl);
  await page.getByRole('link', { name: 'Back' }).click();
  await page.getByRole('heading', { name: 'Recent changes' }).waitFor();
  assert.ok((await page.locator('#recent-heading + ul > li').count()) >= 4, 'the merges show');
  await screen(page, 'organization-desktop');
});

await step('Ctrl-K searches across spaces and opens the page', async () => {
  await page.goto(`${url}/`);
  await page.getByRole('heading', { name: 'Organizations' }).waitFor();
  await page.keyboard.press('Control+k');
  const box = page.getByRole('dialog', { name: 'Search' });
  await box.waitFor();
  await page.waitForFunction(() => document.activeElement?.getAttribute('aria-label') === 'Search pages');
  await page.keyboard.type('change request');
  await box.getByRole('option', { name: /Welcome/ }).waitFor();
  await screen(page, 'search-desktop');
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { name: 'Welcome' }).waitFor();
});

await step('one sees and ends sessions on the account screen', async () => {
  await page.goto(`${url}/me`);
  await page.getByRole('heading', { name: 'Sessions' }).waitFor();
  await page.getByText('This browser').waitFor();
  await screen(page, 'account-desktop');
});

const state = await desktop.storageState();

await step('reading works on a phone, in light and dark', async () => {
  for (const colorScheme of ['light', 'dark']) {
    const phone = await browser.newContext({
      viewport: { width: 390, height: 844 },
      isMobile: true,
      hasTouch: true,
      colorScheme,
      storageState: state,
      bypassCSP: true,
    });
    const p = await phone.newPage();
    await p.goto(spaceUrl);
    await p.getByRole('heading', { name: 'Getting started' }).waitFor();
    await screen(p, `page-phone-${colorScheme}`);
    await phone.close();
  }
  const dark = await browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: 'dark', storageState: state, bypassCSP: true });
  const d = await dark.newPage();
  await d.goto(spaceUrl);
  await d.getByRole('heading', { name: 'Getting started' }).waitFor();
  const background = await d.evaluate(() => getComputedStyle(document.body).backgroundColor);
  assert.equal(background, 'rgb(13, 17, 23)', 'the dark setting is followed');
  await screen(d, 'page-desktop-dark');
  await dark.close();
});

await step('a password signs in on another browser', async () => {
  const other = await browser.newContext({ viewport: { width: 1280, height: 800 }, bypassCSP: true });
  const p = await other.newPage();
  await p.goto(spaceUrl);
  await p.getByRole('heading', { name: 'Sign in to Quire' }).waitFor();
  await screen(p, 'sign-in-desktop');
  await p.getByLabel('Email').fill(process.env.QUIRE_EMAIL);
  await p.getByLabel('Password').fill('a wrong password');
  await p.getByRole('button', { name: 'Sign in' }).click();
  await p.getByRole('alert').filter({ hasText: 'wrong email or password' }).waitFor();
  await p.getByLabel('Password').fill(PASSWORD);
  await p.getByRole('button', { name: 'Sign in' }).click();
  await p.getByRole('heading', { name: 'Getting started' }).waitFor();
  await other.close();
});

await step('an MCP client is allowed through OAuth after signing in', async () => {
  // The client registers itself and sends the person to authorize it.
  const registered = await (await fetch(`${url}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'Claude Code', redirect_uris: ['http://127.0.0.1:9/callback'] }),
  })).json();
  const challenge = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';
  const authorize = `${url}/oauth/authorize?response_type=code&client_id=${registered.client_id}`
    + `&redirect_uri=${encodeURIComponent('http://127.0.0.1:9/callback')}&code_challenge=${challenge}`
    + '&code_challenge_method=S256&state=xyz';
  const other = await browser.newContext({ viewport: { width: 1280, height: 800 }, bypassCSP: true });
  // The client's own address answers the browser here.
  await other.route('http://127.0.0.1:9/**', (route) => route.fulfill({ body: 'the client got its code' }));
  const p = await other.newPage();
  await p.goto(authorize);
  await p.getByRole('heading', { name: 'Sign in to Quire' }).waitFor();
  await p.getByLabel('Email').fill(process.env.QUIRE_EMAIL);
  await p.getByLabel('Password').fill(PASSWORD);
  await p.getByRole('button', { name: 'Sign in' }).click();
  await p.getByRole('heading', { name: 'Allow Claude Code?' }).waitFor();
  await screen(p, 'oauth-consent-desktop');
  await p.setViewportSize({ width: 390, height: 844 });
  await screen(p, 'oauth-consent-phone');
  await p.getByRole('button', { name: 'Allow' }).click();
  await p.waitForURL(/127\.0\.0\.1:9\/callback\?code=/);
  const back = new URL(p.url());
  assert.equal(back.searchParams.get('state'), 'xyz');
  assert.equal(back.searchParams.get('iss'), url);
  await other.close();
});

await step('pages move in the tree by keyboard and by dragging', async () => {
  const addPage = async (title) => {
    await page.goto(spaceUrl);
    await page.getByRole('button', { name: 'New page' }).click();
    await page.getByLabel('Page title').fill(title);
    await page.locator('.save-state[data-state="saved"]').waitFor();
  };
  await addPage('Second');
  await addPage('Third');
  await page.reload();
  const tree = page.getByRole('navigation', { name: 'Pages' });
  await tree.getByRole('link', { name: 'Third' }).waitFor();
  const titles = async () => (await tree.getByRole('link').allTextContents()).map((t) => t.trim());
  assert.deepEqual(await titles(), ['Welcome', 'Second', 'Third']);
  const cr = new URL(page.url()).pathname.split('/')[4];
  await tree.getByRole('link', { name: 'Third' }).focus();
  await page.keyboard.press('Alt+ArrowUp');
  await page.waitForFunction(() => [...document.querySelectorAll('.tree a')].map((a) => a.textContent.trim()).join(',') === 'Welcome,Third,Second');
  await page.keyboard.press('Alt+ArrowRight');
  await page.waitForFunction(() => document.querySelector('.tree li:nth-child(2)')?.style.paddingLeft === '1.5rem');
  await tree.getByRole('link', { name: 'Second' }).dragTo(tree.getByRole('link', { name: 'Welcome' }));
  await page.waitForFunction(() => [...document.querySelectorAll('.tree li')].filter((li) => li.style.paddingLeft === '1.5rem').length === 2);
  await screen(page, 'tree-moved-desktop');
  const spaceId = new URL(spaceUrl).pathname.split('/')[2];
  const answer = await call(page, 'GET', `/v1/spaces/${spaceId}/change-requests?status=open`);
  const open = JSON.parse(answer.body).items.find((c) => String(c.number) === cr);
  const content = JSON.parse((await call(page, 'GET', `/v1/spaces/${spaceId}/change-requests/${open.id}/content`)).body);
  const welcome = content.pages.find((p) => p.title === 'Welcome');
  assert.deepEqual(welcome.pages.map((p) => p.title).sort(), ['Second', 'Third']);
});

await step('pasting from Google Docs and Word gives clean blocks; an image is uploaded; a page is linked', async () => {
  await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Third' }).click();
  await page.getByLabel('Page title').waitFor();
  await editor().click();
  const paste = (html) =>
    page.evaluate((html) => {
      const data = new DataTransfer();
      data.setData('text/html', html);
      data.setData('text/plain', 'plain');
      const event = new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true });
      document.querySelector('.editor-surface .ProseMirror').dispatchEvent(event);
    }, html);
  await paste(
    '<meta charset="utf-8"><b style="font-weight:normal;" id="docs-internal-guid-5a1b"><h2 dir="ltr" style="line-height:1.38"><span style="font-size:16pt;font-weight:400">Install</span></h2>' +
      '<p dir="ltr"><span style="font-weight:400">Run the </span><span style="font-weight:700">installer</span><span style="font-weight:400"> twice.</span></p>' +
      '<ul><li dir="ltr"><p dir="ltr"><span style="font-weight:400">One</span></p></li><li dir="ltr"><p dir="ltr"><span style="font-weight:400">Two</span></p></li></ul></b>',
  );
  await page.keyboard.press('Enter');
  await page.keyboard.press('Enter');
  await paste(
    "<html xmlns:o='urn:schemas-microsoft-com:office:office'><head><style>p.MsoNormal{margin:0}</style></head><body>" +
      "<p class=MsoNormal><span lang=EN-US style='font-size:11pt'>From <i>Word</i> as well<o:p></o:p></span></p></body></html>",
  );
  // An image, uploaded from the slash menu.
  await page.keyboard.press('Enter');
  await page.keyboard.type('/image');
  await page.getByRole('option', { name: 'Image (upload)' }).waitFor();
  await page.keyboard.press('Enter');
  const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
  await page.getByLabel('Upload a file').setInputFiles({ name: 'diagram.png', mimeType: 'image/png', buffer: png });
  // The image is shown, and takes a caption.
  const images = page.locator('.images-block');
  await images.locator('img[src]').waitFor();
  await page.waitForFunction(() => document.querySelector('.images-block img')?.naturalWidth > 0);
  await images.getByLabel('Caption').fill('A diagram');
  await images.getByLabel('Alternative text').fill('The diagram');
  // Back to the line after the image.
  await page.evaluate(() => {
    const editor = window.quireEditor;
    let after = null;
    editor.state.doc.forEach((node, offset) => {
      if (node.type.name === 'opaque' && JSON.parse(node.attrs.json).type === 'images') after = offset + node.nodeSize + 1;
    });
    editor.commands.focus(after);
  });
  await page.waitForFunction(() => document.activeElement?.classList.contains('ProseMirror'));
  // A link to another page, picked by typing its title.
  await page.keyboard.type('See ');
  await page.keyboard.press('Enter');
  await page.keyboard.type('/link');
  await page.getByRole('option', { name: 'Link to a page' }).waitFor();
  await page.keyboard.press('Enter');
  await page.getByRole('dialog', { name: 'Link to a page' }).waitFor();
  await page.waitForFunction(() => document.activeElement?.getAttribute('aria-label') === 'Find a page to link to');
  await page.keyboard.type('Sec');
  await page.keyboard.press('Enter');
  await page.getByRole('dialog', { name: 'Link to a page' }).waitFor({ state: 'detached' });
  // A card linking to a page, picked the same way.
  await page.evaluate(() => window.quireEditor.commands.focus('end'));
  await page.waitForFunction(() => document.activeElement?.classList.contains('ProseMirror'));
  await page.keyboard.type('/card');
  await page.getByRole('option', { name: 'Link card (page)' }).waitFor();
  await page.keyboard.press('Enter');
  await page.getByRole('dialog', { name: 'Link card to a page' }).waitFor();
  await page.keyboard.type('Sec');
  await page.keyboard.press('Enter');
  await page.locator('.card-target', { hasText: 'Second' }).waitFor();
  await saved();
  const pageId = new URL(page.url()).pathname.split('/').pop();
  const spaceId = new URL(spaceUrl).pathname.split('/')[2];
  const number = new URL(page.url()).pathname.split('/')[4];
  const crs = JSON.parse((await call(page, 'GET', `/v1/spaces/${spaceId}/change-requests?status=open`)).body).items;
  const cr = crs.find((c) => String(c.number) === number);
  const markdown = JSON.parse((await call(page, 'GET', `/v1/spaces/${spaceId}/change-requests/${cr.id}/content/page/${pageId}?format=markdown`)).body).markdown;
  for (const expected of ['## Install', 'Run the **installer** twice.', '- One', '- Two', 'From *Word* as well', '![The diagram](/files/', '"A diagram")', '[Second](', '{% content-ref url="']) {
    assert.ok(markdown.includes(expected), `the pasted page holds ${expected}:\n${markdown}`);
  }
  for (const unwanted of ['**Run', 'mso', 'o:p', 'font-']) {
    assert.ok(!markdown.includes(unwanted), `no ${unwanted} in:\n${markdown}`);
  }
});

await step('discoverable editing: placeholder, + handle, / anywhere, shortcuts dialog, table and code controls', async () => {
  await page.goto(spaceUrl);
  await page.getByRole('button', { name: 'New page' }).click();
  await page.getByLabel('Page title').fill('Discoverable');
  await saved();
  const k = page.keyboard;
  const json = () => page.evaluate(() => window.quireEditor.getJSON());
  const focusEnd = async () => {
    await page.evaluate(() => window.quireEditor.commands.focus('end'));
    await page.waitForFunction(() => document.activeElement?.classList.contains('ProseMirror'));
  };
  // An empty page shows the hint, which is a decoration, not text.
  const hint = editor().locator('p.is-empty[data-placeholder="Type / for blocks, or start writing"]');
  await hint.waitFor();
  assert.equal(await editor().textContent(), '');
  await editor().click();
  await k.type('Intro text');
  assert.equal(await hint.count(), 0);
  await k.press('Enter');
  await hint.waitFor();
  // "/" after a space opens the menu filtered by what follows; Escape
  // closes it and keeps what was typed.
  await k.press('Backspace');
  await k.type(' /head');
  const menu = page.getByRole('listbox', { name: 'Insert a block' });
  await menu.waitFor();
  assert.deepEqual(await menu.getByRole('option').allTextContents(), ['Heading 1', 'Heading 2', 'Heading 3']);
  await k.press('Escape');
  await menu.waitFor({ state: 'detached' });
  assert.equal((await json()).content[0].content[0].text, 'Intro text /head');
  // Choosing removes "/query" and puts the block after the line.
  await k.type(' /quote');
  await page.getByRole('option', { name: 'Quote' }).waitFor();
  await k.press('Enter');
  await k.type('Quoted');
  let doc = await json();
  assert.equal(doc.content[0].content[0].text, 'Intro text /head ');
  assert.equal(doc.content[1].type, 'blockquote');
  await k.press('Enter');
  await k.press('Enter');
  await k.type('After the quote');
  // The "+" beside the caret's block opens the same menu; the block goes
  // after it.
  await page.getByRole('button', { name: 'Insert a block' }).click();
  await menu.waitFor();
  await k.type('divider');
  await k.press('Enter');
  doc = await json();
  assert.deepEqual(doc.content.slice(1, 4).map((n) => n.type), ['blockquote', 'paragraph', 'horizontalRule']);
  // Escape after "+" takes back the "/" it typed.
  const before = JSON.stringify(await json());
  await page.getByRole('button', { name: 'Insert a block' }).click();
  await menu.waitFor();
  await k.press('Escape');
  await menu.waitFor({ state: 'detached' });
  assert.equal(JSON.stringify(await json()), before);
  // Markdown shortcuts: ```lang, ---, $$ (a math block, its formula's
  // input focused).
  await focusEnd();
  await k.type('---');
  await k.type('$$ ');
  await page.waitForFunction(() => document.activeElement?.closest('label')?.textContent === 'Formula (TeX)');
  await k.type('E = mc^2');
  await focusEnd();
  await k.type('```python ');
  await k.type('print(1)');
  doc = await json();
  const blocks = doc.content.filter((n) => n.type !== 'paragraph');
  assert.deepEqual(blocks.map((n) => n.type), ['blockquote', 'horizontalRule', 'horizontalRule', 'opaque', 'codeBlock']);
  assert.equal(JSON.parse(blocks[3].attrs.json).data.formula, 'E = mc^2');
  // The code block's toolbar: language, title, line numbers.
  const code = page.getByRole('group', { name: 'Code block' });
  await code.waitFor();
  assert.equal(await code.getByLabel('Language').inputValue(), 'python');
  await code.getByLabel('Language').selectOption('javascript');
  await code.getByLabel('Code title').fill('hello.js');
  await code.getByLabel('Line numbers').check();
  doc = await json();
  const block = doc.content.find((n) => n.type === 'codeBlock');
  assert.deepEqual([block.attrs.language, block.attrs.title, JSON.parse(block.attrs.extra).lineNumbers], ['javascript', 'hello.js', true]);
  await code.getByLabel('Code title').press('Escape');
  await page.waitForFunction(() => document.activeElement?.classList.contains('ProseMirror'));
  // A table: Tab in the last cell adds a row; the toolbar adds and
  // deletes rows and columns (a new column gets a title cell).
  await focusEnd();
  await k.type('/table');
  await page.getByRole('option', { name: 'Table' }).waitFor();
  await k.press('Enter');
  await k.type('a');
  await k.press('Tab');
  await k.type('b');
  await k.press('Tab');
  await k.type('c');
  const table = page.getByRole('toolbar', { name: 'Table' });
  await table.waitFor();
  await table.getByRole('button', { name: 'Add column right' }).click();
  await table.getByRole('button', { name: 'Add row below' }).click();
  const rows = async () => (await json()).content.find((n) => n.type === 'table').content;
  let grid = await rows();
  assert.equal(grid.length, 4);
  assert.deepEqual(grid.map((r) => r.content.length), [3, 3, 3, 3]);
  assert.deepEqual(grid[0].content.map((c) => c.type), ['tableHeader', 'tableHeader', 'tableHeader']);
  await table.getByRole('button', { name: 'Delete row' }).click();
  await table.getByRole('button', { name: 'Delete column' }).click();
  grid = await rows();
  assert.deepEqual(grid.map((r) => r.content.length), [2, 2, 2]);
  // The controls are not part of the document.
  assert.equal(await editor().locator('button, select').count(), 0);
  // The keyboard shortcuts: a modal dialog, by the button and by Ctrl-/.
  await page.getByRole('button', { name: 'Shortcuts' }).click();
  const dialog = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
  await dialog.waitFor();
  assert.equal(await dialog.getAttribute('aria-modal'), 'true');
  await page.waitForFunction(() => document.activeElement?.closest('[role="dialog"]'));
  for (let i = 0; i < 4; i += 1) {
    await k.press('Tab');
    assert.ok(await page.evaluate(() => Boolean(document.activeElement?.closest('[role="dialog"]'))), 'the focus stays in the dialog');
  }
  await dialog.getByRole('rowheader', { name: 'Math block' }).waitFor();
  await screen(page, 'shortcuts-desktop');
  await k.press('Escape');
  await dialog.waitFor({ state: 'detached' });
  assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Shortcuts');
  await focusEnd();
  await k.press('Control+/');
  await dialog.waitFor();
  await page.waitForFunction(() => document.activeElement?.closest('[role="dialog"]'));
  await k.press('Escape');
  await dialog.waitFor({ state: 'detached' });
  await page.waitForFunction(() => document.activeElement?.classList.contains('ProseMirror'));
  await saved();
  await screen(page, 'editor-controls-desktop');
  // What the page holds, through the API: the title and line numbers
  // travel as the code block's data; the table has its new column's title.
  const pageId = new URL(page.url()).pathname.split('/').pop();
  const spaceId = new URL(spaceUrl).pathname.split('/')[2];
  const number = new URL(page.url()).pathname.split('/')[4];
  const crs = JSON.parse((await call(page, 'GET', `/v1/spaces/${spaceId}/change-requests?status=open`)).body).items;
  const cr = crs.find((c) => String(c.number) === number);
  const saved_ = JSON.parse((await call(page, 'GET', `/v1/spaces/${spaceId}/change-requests/${cr.id}/content/page/${pageId}`)).body).document;
  const codeBlock = saved_.nodes.find((n) => n.type === 'code');
  assert.equal(codeBlock.data.syntax, 'javascript');
  assert.equal(codeBlock.data.title, 'hello.js');
  assert.equal(codeBlock.data.lineNumbers, true);
  const savedTable = saved_.nodes.find((n) => n.type === 'table');
  assert.equal(savedTable.data.view.columns.length, 2);
  assert.ok(!JSON.stringify(saved_).includes('Type / for blocks'), 'the hint is not saved');
});

if (process.env.QUIRE_REAL_SPACE) {
  await step('pages GitBook wrote go through the editor unchanged', async () => {
    const space = process.env.QUIRE_REAL_SPACE;
    const json = async (method, path, body) => {
      const answer = await call(page, method, path, body);
      assert.ok(answer.status < 300, `${method} ${path}: ${answer.status} ${answer.body}`);
      return answer.body ? JSON.parse(answer.body) : null;
    };
    const content = await json('GET', `/v1/spaces/${space}/content`);
    const flat = [];
    const walk = (pages) => pages.forEach((p) => (p.type === 'document' && flat.push(p), walk(p.pages ?? [])));
    walk(content.pages);
    assert.ok(flat.length >= 6, `the repository's pages: ${flat.length}`);
    const cr = await json('POST', `/v1/spaces/${space}/change-requests`, { subject: 'Open every page' });
    let markdownPages = 0;
    for (const p of flat) {
      const before = (await json('GET', `/v1/spaces/${space}/content/page/${p.id}?format=markdown`)).markdown;
      if (await saveThroughEditor(page, url, space, cr.number, p.id)) markdownPages += 1;
      const after = (await json('GET', `/v1/spaces/${space}/change-requests/${cr.id}/content/page/${p.id}?format=markdown`)).markdown;
      assert.equal(after, before, `${p.title} changed by going through the editor`);
      if (p.title === 'Cards and tables') {
        // Text in GitBook's inline HTML is drawn as its element.
        await page.locator('.ProseMirror kbd.html-tag', { hasText: 'Ctrl' }).first().waitFor();
        const marked = page.locator('.ProseMirror mark.html-tag', { hasText: 'important' });
        assert.equal(await marked.evaluate((el) => getComputedStyle(el).backgroundColor), 'rgb(255, 255, 0)');
        // HTML kept as written is its source, not a grey box.
        const html = await page.getByRole('textbox', { name: 'HTML' }).first().inputValue();
        assert.ok(html.includes('<table>') && html.includes('<kbd>Ctrl</kbd>'), html);
        await page.locator('.opaque-inline', { hasText: 'icon: keyboard' }).waitFor();
        await screen(page, 'real-inline-html-desktop');
      }
    }
    assert.equal(markdownPages, 0, 'every page opens in the block editor');
    await screen(page, 'real-page-editor-desktop');
  });
}

await browser.close();
