// Publishing and connecting an organization in Debian's Chromium: Ada
// creates a site, gives it a space, publishes it, changes its look in the
// live preview, makes it readable by a share link only (which a stranger
// opens), turns on visitor authentication and sets the adaptive schema;
// connects a space to a Git repository and imports it, problems listed;
// runs a translation against a local provider and adds a glossary term;
// adds an OpenAPI spec from a file and sees its operations; configures a
// SAML identity provider with the values to copy; makes, uses and revokes
// an API token; downloads PDFs of a space and a change request; shares a
// collection. Every screen is checked with axe-core and photographed.
// Run by crates/quire-server/tests/api/admin_screens.rs with QUIRE_URL,
// QUIRE_ORG, QUIRE_SPACE (with pages), QUIRE_IMPORTED (an empty space),
// QUIRE_COLLECTION, QUIRE_CR (a change request's number in QUIRE_SPACE),
// QUIRE_REPO, QUIRE_SPEC_FILE, QUIRE_IDP_ENTITY, QUIRE_IDP_SSO,
// QUIRE_IDP_CERTIFICATE, QUIRE_LINK (Ada's sign-in link), ARTIFACTS.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { call, launch, newPage as openPage, screen as check, stepper } from './browser.mjs';

const env = process.env;
const url = env.QUIRE_URL;
const org = env.QUIRE_ORG;
const artifacts = env.ARTIFACTS ?? 'artifacts';
mkdirSync(artifacts, { recursive: true });

const browser = await launch();
const pages = [];
const step = stepper(artifacts, () => pages);
const screen = (page, name) => check(page, name, artifacts);

const newPage = () => openPage(browser, pages);

const status = (page, text) => page.getByRole('status').filter({ hasText: text }).first().waitFor();

const ada = await newPage();
const stranger = await newPage();
let published;

await step('a site is created, given a space and published', async () => {
  await ada.goto(env.QUIRE_LINK);
  await ada.getByRole('button', { name: 'Continue' }).click();
  await ada.getByRole('heading', { name: 'Organizations' }).waitFor();
  await ada.goto(`${url}/o/${org}/`);
  await ada.getByRole('navigation', { name: 'Administration' }).getByRole('link', { name: 'Sites' }).click();
  await ada.getByRole('heading', { name: 'Sites', exact: true }).waitFor();
  await ada.getByLabel('Site name').fill('Public docs');
  await ada.getByRole('button', { name: 'Create site' }).click();
  await ada.getByRole('heading', { name: 'Public docs', level: 1 }).waitFor();
  await ada.getByLabel('Space to publish').selectOption({ label: 'Handbook' });
  await ada.getByRole('button', { name: 'Add space' }).click();
  await ada.getByRole('list', { name: 'Spaces of the site' }).getByText('Handbook', { exact: true }).waitFor();
  await ada.getByRole('button', { name: 'Publish', exact: true }).click();
  await status(ada, 'The site is published.');
  published = await ada.getByRole('link', { name: /^http/ }).first().getAttribute('href');
  const answer = await stranger.goto(published);
  assert.equal(answer.status(), 200);
  await stranger.getByText('Read this first.').waitFor();
  await screen(ada, 'site');
});

await step('its look changes in the live preview as it is typed, and is saved', async () => {
  const preview = ada.frameLocator('iframe[title="Preview of the site"]');
  await preview.locator('.brand').waitFor();
  await ada.getByLabel('Title shown on the site').fill('Acme Docs');
  await ada.getByLabel('Accent colour (light)').fill('#aa3300');
  await ada.getByLabel('Announcement (empty: none)').fill('Version 2 is out');
  await preview.locator('.brand', { hasText: 'Acme Docs' }).waitFor();
  await preview.locator('.announcement', { hasText: 'Version 2 is out' }).waitFor();
  const accent = await preview.locator('html').evaluate((root) => getComputedStyle(root).getPropertyValue('--accent').trim());
  assert.equal(accent, '#aa3300');
  await ada.getByLabel('Style').selectOption('bold');
  await ada.getByLabel('Corners').selectOption('rounded');
  await ada.getByLabel('Previous and next links under pages').uncheck();
  await preview.locator('html[data-look="bold"][data-corners="rounded"]').waitFor({ state: 'attached' });
  await screen(ada, 'site-look');
  await ada.getByRole('button', { name: 'Save look' }).click();
  await status(ada, 'Look saved.');
  await stranger.goto(published);
  await stranger.locator('.brand', { hasText: 'Acme Docs' }).waitFor();
  await stranger.getByText('Version 2 is out').waitFor();
  await stranger.locator('html[data-look="bold"][data-corners="rounded"]').waitFor({ state: 'attached' });
  assert.equal(await stranger.locator('.pager').count(), 0, 'no previous and next');
});

/// A logo the test serves itself (at an https address, as an
/// administrator's CDN would), to the screen's preview and to readers.
const LOGO = 'https://cdn.acme.example/logo.svg';
const LOGO_SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="96" height="28" viewBox="0 0 96 28"><rect width="96" height="28" rx="6" fill="#fff"/><text x="48" y="20" text-anchor="middle" font-family="sans-serif" font-size="16" font-weight="700" fill="#aa3300">ACME</text></svg>';
for (const page of [ada, stranger]) {
  await page.context().route(LOGO, (route) => route.fulfill({ contentType: 'image/svg+xml', body: LOGO_SVG }));
}

await step('fonts, code theme, logo, header links, social accounts and reader features are set, saved and published', async () => {
  const site = new URL(ada.url()).pathname.split('/').at(-1);
  const path = `/v1/orgs/${org}/sites/${site}/customization`;
  // Links set through the API that the screen does not edit: a menu of
  // links and a link to a space for some visitors only.
  const kept = [
    { title: 'Products', localizedTitle: { fr: 'Produits' }, to: null, links: [{ title: 'Pets API', to: { kind: 'url', url: 'https://acme.example/pets' } }] },
    { title: 'Pro guide', to: { kind: 'space', space: env.QUIRE_SPACE }, links: [], condition: 'visitor.claims.unsigned.plan == "pro"' },
  ];
  const { updatedAt, ...before } = JSON.parse((await call(ada, 'GET', path)).body);
  const stored = await call(ada, 'PUT', path, { ...before, header: { ...before.header, links: kept } });
  assert.equal(stored.status, 200, stored.body);
  await ada.reload();
  const header = (n) => ada.getByRole('group', { name: `Header link ${n}`, exact: true });
  const social = (n) => ada.getByRole('group', { name: `Social account ${n}`, exact: true });
  await header(1).getByText('Set through the API; kept as it is').waitFor();
  await header(2).getByText('shown to some visitors only').waitFor();

  await ada.getByLabel('Heading font').selectOption({ label: 'Open Sans' });
  await ada.getByLabel('Code font').selectOption({ label: 'JetBrains Mono' });
  await ada.getByLabel('Code theme (light)').selectOption({ label: 'GitHub Light' });
  await ada.getByLabel('Code theme (dark)').selectOption({ label: 'GitHub Dark Dimmed' });
  await ada.getByLabel('Logo (light theme)').fill(LOGO);
  const thumb = ada.getByRole('img', { name: 'Logo (light theme), as it loads' });
  assert.ok(await thumb.evaluate(async (img) => { await img.decode(); return img.naturalWidth > 0; }), 'the logo shows beside its address');
  const preview = ada.frameLocator('iframe[title="Preview of the site"]');
  await preview.locator(`.brand img.logo[src="${LOGO}"]`).waitFor();
  await ada.getByRole('button', { name: 'Add a header link' }).click();
  await header(3).getByLabel('Text').fill('Get started');
  await header(3).getByLabel('Address').fill('https://acme.example/start');
  await header(3).getByLabel('Shown as').selectOption({ label: 'Button' });
  await ada.getByRole('button', { name: 'Move header link 3 up' }).click();
  await ada.getByRole('button', { name: 'Move header link 2 up' }).click();
  assert.equal(await header(1).getByLabel('Text').inputValue(), 'Get started');
  await ada.getByRole('button', { name: 'Add a social account' }).click();
  await social(1).getByLabel('Platform').selectOption({ label: 'GitHub' });
  await social(1).getByLabel('Handle').fill('acme');
  await ada.getByLabel('Ask readers whether a page helped').check();
  await ada.getByLabel('Open the page in ChatGPT or Claude').uncheck();
  await ada.getByLabel('AI answers').selectOption('search');

  // A refusal names the setting, beside the form, and points at its field.
  await ada.getByLabel('Logo (dark theme, empty: the same)').fill('ftp://cdn.acme.example/logo.svg');
  await ada.getByRole('button', { name: 'Save look' }).click();
  await ada.getByRole('alert').filter({ hasText: 'header.logo.dark' }).waitFor();
  const dark = ada.getByLabel('Logo (dark theme, empty: the same)');
  assert.equal(await dark.getAttribute('aria-invalid'), 'true');
  assert.ok(await dark.evaluate((input) => document.activeElement === input), 'the refused field has the focus');
  await dark.fill('');
  await ada.getByRole('button', { name: 'Save look' }).click();
  await status(ada, 'Look saved.');
  await screen(ada, 'site-look-everything');
  // The screen as it is seen at desktop width, from its top to its save button.
  for (const [part, heading] of [['brand', 'Look'], ['header', 'Header links'], ['footer', 'Footer']]) {
    await ada.getByRole('heading', { name: heading, exact: true }).evaluate((h) => {
      h.scrollIntoView({ block: 'start' });
      window.scrollBy(0, -64);
    });
    await ada.screenshot({ path: `${artifacts}/site-look-${part}-desktop.png` });
  }

  // Read again, the screen shows what was saved.
  await ada.reload();
  await header(1).getByLabel('Text').waitFor();
  assert.equal(await ada.getByLabel('Heading font').inputValue(), 'OpenSans');
  assert.equal(await ada.getByLabel('Code font').inputValue(), 'JetBrainsMono');
  assert.equal(await ada.getByLabel('Code theme (light)').inputValue(), 'github-light');
  assert.equal(await ada.getByLabel('Code theme (dark)').inputValue(), 'github-dark-dimmed');
  assert.equal(await ada.getByLabel('Logo (light theme)').inputValue(), LOGO);
  assert.equal(await header(1).getByLabel('Text').inputValue(), 'Get started');
  assert.equal(await header(1).getByLabel('Address').inputValue(), 'https://acme.example/start');
  assert.equal(await header(1).getByLabel('Shown as').inputValue(), 'button-primary');
  await header(2).getByText('Products').waitFor();
  await header(3).getByText('Pro guide').waitFor();
  assert.equal(await social(1).getByLabel('Platform').inputValue(), 'github');
  assert.equal(await social(1).getByLabel('Handle').inputValue(), 'acme');
  assert.ok(await ada.getByLabel('Ask readers whether a page helped').isChecked());
  assert.ok(!(await ada.getByLabel('Open the page in ChatGPT or Claude').isChecked()));
  assert.equal(await ada.getByLabel('AI answers').inputValue(), 'search');
  assert.equal(await ada.getByLabel('Title shown on the site').inputValue(), 'Acme Docs', 'what the first save set is kept');

  // The official settings: what the screen set, and what it did not edit kept as it was.
  const saved = JSON.parse((await call(ada, 'GET', path)).body);
  assert.equal(saved.styling.headingFont, 'OpenSans');
  assert.equal(saved.styling.monospaceFont, 'JetBrainsMono');
  assert.deepEqual(saved.styling.codeTheme.default, { light: 'github-light', dark: 'github-dark-dimmed' });
  assert.deepEqual(saved.styling.codeTheme.openapi, before.styling.codeTheme.openapi);
  assert.deepEqual(saved.header.logo, { light: LOGO, dark: LOGO });
  assert.deepEqual(saved.header.links, [
    { title: 'Get started', to: { kind: 'url', url: 'https://acme.example/start' }, style: 'button-primary', links: [] },
    ...kept,
  ]);
  assert.deepEqual(saved.socialAccounts, [{ platform: 'github', handle: 'acme', display: { footer: true, header: false } }]);
  assert.equal(saved.feedback.enabled, true);
  assert.equal(saved.ai.mode, 'search');
  assert.deepEqual(saved.pageActions.items, before.pageActions.items.filter((a) => a !== 'external-ai'));
  assert.equal(saved.styling.theme, 'bold', 'the first save is kept');
  assert.equal(saved.pagination.enabled, false, 'the first save is kept');

  // The published page: the logo in place of the title, the button, the account.
  await stranger.goto(published);
  const brand = stranger.locator('.brand');
  await brand.locator(`img.logo[src="${LOGO}"][alt="Acme Docs"]`).waitFor();
  assert.equal((await brand.textContent()).trim(), '', 'the logo replaces the title');
  const button = stranger.locator('a.header-link.button.primary', { hasText: 'Get started' });
  assert.equal(await button.getAttribute('href'), 'https://acme.example/start');
  await stranger.locator('details.dropdown summary', { hasText: 'Products' }).waitFor();
  const account = stranger.locator('footer .socials a.social-github');
  assert.equal(await account.getAttribute('href'), 'https://github.com/acme');
});

await step('a share link opens the site, which no longer opens without one', async () => {
  await ada.getByLabel('Who may read it').selectOption('share-link');
  await ada.getByRole('button', { name: 'Save site settings' }).click();
  await status(ada, 'Site settings saved.');
  await ada.getByLabel('Share link name').fill('Partners');
  await ada.getByRole('button', { name: 'Create share link' }).click();
  const field = ada.getByLabel('Share link Partners', { exact: true });
  await field.waitFor();
  const shared = await field.inputValue();
  assert.notEqual(shared, published);
  const through = await stranger.goto(shared);
  assert.equal(through.status(), 200);
  await stranger.getByText('Read this first.').waitFor();
  const without = await stranger.goto(published);
  assert.notEqual(without.status(), 200, 'the site without a share link');
  await screen(ada, 'site-audience');
  await ada.getByRole('button', { name: 'Revoke Partners' }).click();
  await status(ada, 'Share link revoked.');
  const revoked = await stranger.goto(shared);
  assert.notEqual(revoked.status(), 200, 'a revoked share link');
  await ada.getByRole('button', { name: 'Restore Partners' }).click();
  await status(ada, 'Share link restored.');
});

await step('visitor authentication shows its key, and the adaptive schema is saved', async () => {
  await ada.getByLabel('Who may read it').selectOption('visitor-auth');
  await ada.getByRole('button', { name: 'Save site settings' }).click();
  await status(ada, 'Site settings saved.');
  const key = ada.getByLabel('Signing key', { exact: true });
  await key.waitFor();
  const first = await key.inputValue();
  assert.ok(first.length >= 16, 'a signing key');
  await ada.getByRole('button', { name: 'Make a new key' }).click();
  await status(ada, 'A new key was made');
  assert.notEqual(await ada.getByLabel('Signing key', { exact: true }).inputValue(), first);
  const schema = ada.getByLabel('Claims schema (JSON)');
  const claims = JSON.parse(await schema.inputValue());
  await schema.fill('{ "type": ');
  await ada.getByRole('button', { name: 'Save schema' }).click();
  await ada.getByRole('alert').filter({ hasText: 'Not JSON' }).waitFor();
  claims.properties.unsigned.properties.plan = { type: 'string', description: "The visitor's plan" };
  await schema.fill(JSON.stringify(claims, null, 2));
  await ada.getByRole('button', { name: 'Save schema' }).click();
  await status(ada, 'Adaptive schema saved.');
  await screen(ada, 'site-visitors');
});

await step('a space is connected to a Git repository and imported, its problems listed', async () => {
  await ada.goto(`${url}/s/${env.QUIRE_IMPORTED}/`);
  await ada.getByRole('link', { name: 'Git Sync' }).click();
  await ada.getByRole('heading', { name: 'Git Sync' }).waitFor();
  await ada.getByLabel('Repository URL').fill(env.QUIRE_REPO);
  // The repository's branches, its default chosen.
  await ada.getByRole('button', { name: 'Find the branches' }).click();
  const branch = ada.getByLabel('Branch');
  await ada.locator('select[name="branch"]').waitFor();
  assert.equal(await branch.inputValue(), 'main');
  assert.deepEqual(await branch.locator('option').allTextContents(), ['main (default)']);
  await ada.getByRole('button', { name: 'Import from the repository' }).click();
  await ada.getByRole('status').filter({ hasText: 'Import: Done' }).waitFor({ timeout: 60_000 });
  await ada.getByText('2 pages and 0 files imported').waitFor();
  await ada.getByRole('table', { name: 'Problems of the last operation' }).getByText('missing.md').waitFor();
  await screen(ada, 'git-sync');
  await ada.getByRole('link', { name: 'Open the imported pages' }).click();
  await ada.getByRole('link', { name: 'Setup' }).waitFor();
});

await step('a translation runs against the local provider, and the glossary takes a term', async () => {
  await ada.goto(`${url}/o/${org}/translations`);
  await ada.getByRole('heading', { name: 'Translations' }).waitFor();
  await ada.getByLabel('Space to translate').selectOption({ label: 'Handbook' });
  await ada.getByLabel('Written in').selectOption('en');
  await ada.getByLabel('Translate into').selectOption('fr');
  await ada.getByRole('button', { name: 'Add translation' }).click();
  await ada.getByRole('button', { name: 'Run French' }).click();
  const table = ada.getByRole('table', { name: 'Translations' });
  await table.getByText('Translated', { exact: true }).waitFor({ timeout: 60_000 });
  await table.getByText(/2 pages and \d+ words in the last run/).waitFor();
  await ada.getByLabel('Language of the term').selectOption('en');
  await ada.getByLabel('Term', { exact: true }).fill('Quire');
  await ada.getByLabel('Language of its translation').selectOption('fr');
  await ada.getByLabel('Translated as').fill('Quire');
  await ada.getByRole('button', { name: 'Add term' }).click();
  await ada.getByRole('table', { name: 'Glossary' }).getByText('Quire (en)').waitFor();
  await screen(ada, 'translations');
});

await step('an OpenAPI spec is added from a file and its operations are seen', async () => {
  await ada.goto(`${url}/o/${org}/openapi`);
  await ada.getByRole('heading', { name: 'OpenAPI specifications' }).waitFor();
  await ada.getByLabel('Name in addresses (slug)').fill('pets');
  await ada.getByLabel('Or its file (JSON or YAML)').setInputFiles(env.QUIRE_SPEC_FILE);
  await ada.getByRole('button', { name: 'Add specification' }).click();
  await ada.getByText('Read', { exact: true }).waitFor({ timeout: 60_000 });
  const operations = ada.getByRole('list', { name: 'Operations of pets' });
  await operations.getByText('List pets').waitFor();
  await operations.getByText('/pets', { exact: true }).waitFor();
  await screen(ada, 'openapi');
});

await step('single sign-on is configured, with the values to copy into the identity provider', async () => {
  await ada.goto(`${url}/o/${org}/sso`);
  await ada.getByRole('heading', { name: 'Single sign-on' }).waitFor();
  await ada.getByLabel('Name shown on the sign-in button').fill('Test IdP');
  await ada.getByRole('button', { name: 'Add identity provider' }).click();
  await ada.getByRole('heading', { name: 'Test IdP', level: 2 }).waitFor();
  await ada.getByText('Not ready').waitFor();
  const acs = await ada.getByLabel('Single sign-on URL (ACS)', { exact: true }).inputValue();
  assert.match(acs, /^http.*\/saml\/.+\/acs$/);
  const entity = await ada.getByLabel("Audience (SP entity ID, also Quire's metadata URL)", { exact: true }).inputValue();
  await ada.getByLabel("Identity provider's entity ID (issuer)").fill(env.QUIRE_IDP_ENTITY);
  await ada.getByLabel("Identity provider's sign-in URL").fill(env.QUIRE_IDP_SSO);
  await ada.getByLabel('Its signing certificate (PEM or base64)').fill(env.QUIRE_IDP_CERTIFICATE);
  await ada.getByRole('button', { name: 'Save Test IdP' }).click();
  await status(ada, 'Test IdP saved.');
  await ada.getByText('Ready: members can sign in with it').waitFor();
  const metadata = await (await fetch(entity)).text();
  assert.ok(metadata.includes(acs), 'the metadata names the ACS');
  await screen(ada, 'sso');
});

await step("one's API token is made, works, and stops working once revoked", async () => {
  await ada.goto(`${url}/me`);
  await ada.getByLabel('Token name').fill('Release script');
  await ada.getByRole('button', { name: 'Make a token' }).click();
  const token = await ada.getByLabel('Token Release script', { exact: true }).inputValue();
  const asToken = () => fetch(`${url}/v1/user`, { headers: { Authorization: `Bearer ${token}` } });
  assert.equal((await asToken()).status, 200);
  await screen(ada, 'account');
  await ada.getByRole('button', { name: 'Revoke Release script' }).click();
  await ada.getByRole('list', { name: 'Your API tokens' }).getByText('Release script', { exact: true }).waitFor({ state: 'detached' });
  assert.equal((await asToken()).status, 401);
});

/// Clicks `button` and returns the PDF the page then opens.
async function pdfFrom(page, button) {
  const [answer] = await Promise.all([
    page.waitForResponse((r) => r.url().includes('/~pdf/'), { timeout: 60_000 }),
    page.getByRole('button', { name: button }).click(),
  ]);
  assert.equal(answer.status(), 200);
  assert.match(answer.headers()['content-type'], /application\/pdf/);
  await page.waitForURL(/\/~pdf\//);
}

await step('PDFs of a space and of a change request are downloaded', async () => {
  await ada.goto(`${url}/s/${env.QUIRE_SPACE}/`);
  await pdfFrom(ada, 'Download as PDF');
  await ada.goto(`${url}/s/${env.QUIRE_SPACE}/change-requests/${env.QUIRE_CR}`);
  await pdfFrom(ada, 'PDF of this change request');
});

await step('a collection is shared with a member', async () => {
  await ada.goto(`${url}/c/${env.QUIRE_COLLECTION}/`);
  await ada.getByRole('link', { name: 'Sharing' }).click();
  await ada.getByRole('heading', { name: 'Sharing' }).waitFor();
  await ada.getByLabel('Share with').selectOption({ label: 'Bob' });
  await ada.getByLabel('Role to share').selectOption('edit');
  await ada.getByRole('button', { name: 'Share', exact: true }).click();
  await ada.getByRole('list', { name: 'People with access' }).getByText('Bob', { exact: true }).waitFor();
  await screen(ada, 'collection-sharing');
});

await browser.close();
