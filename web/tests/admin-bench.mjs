// How fast the administration screens are on a large organization: 1,000
// members, 200 spaces and 10 sites, made through the API (members join by
// an invite link, each with a token QUIRE_BIN makes), then each screen
// opened in Debian's Chromium three times, timed from navigation to the
// screen's content usable.
//   QUIRE_URL=... QUIRE_BIN=target/release/quire QUIRE_DATA=/tmp/bench
//   QUIRE_LINK=(a sign-in link for admin@example.com) node tests/admin-bench.mjs
import { execFileSync } from 'node:child_process';
import { launch } from './browser.mjs';

const env = process.env;
const url = env.QUIRE_URL;
const MEMBERS = Number(env.MEMBERS ?? 1000);
const SPACES = Number(env.SPACES ?? 200);
const SITES = Number(env.SITES ?? 10);

function tokenFor(email, name) {
  const out = execFileSync(env.QUIRE_BIN, ['token', 'create', '--data-dir', env.QUIRE_DATA, '--email', email, '--name', name], { encoding: 'utf8' });
  return out.trim().split('\n').pop();
}

async function call(token, method, path, body) {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: body ? JSON.stringify(body) : undefined,
  });
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return response.status === 204 ? null : response.json();
}

const admin = tokenFor('admin@example.com', 'Admin');
const org = await call(admin, 'POST', '/v1/orgs', { title: 'Large organization' });
const invite = await call(admin, 'POST', `/v1/orgs/${org.id}/link-invites`, { role: 'read' });
for (let i = 0; i < MEMBERS; i += 1) {
  const token = tokenFor(`member${i}@example.com`, `Member ${i}`);
  await call(token, 'POST', `/v1/orgs/${org.id}/invites/${invite.id}`, {});
}
let space;
for (let i = 0; i < SPACES; i += 1) space = await call(admin, 'POST', `/v1/orgs/${org.id}/spaces`, { title: `Space ${i}` });
const team = await call(admin, 'PUT', `/v1/orgs/${org.id}/teams`, { title: 'Writers' });
await call(admin, 'POST', `/v1/spaces/${space.id}/permissions`, { role: 'edit', teams: [team.id] });
let site;
for (let i = 0; i < SITES; i += 1) site = await call(admin, 'POST', `/v1/orgs/${org.id}/sites`, { title: `Site ${i}` });
await call(admin, 'POST', `/v1/orgs/${org.id}/sites/${site.id}/site-spaces`, { spaceId: space.id });
await call(admin, 'POST', `/v1/orgs/${org.id}/sites/${site.id}/share-links`, { name: 'Partners' });
await call(admin, 'POST', `/v1/orgs/${org.id}/translations`, { language: 'fr', source: { space: space.id, language: 'en' } });
await call(admin, 'POST', `/v1/orgs/${org.id}/saml`, { label: 'Okta' });
console.log(`made: ${MEMBERS} members, ${SPACES} spaces, ${SITES} sites`);

const browser = await launch();
const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
const page = await context.newPage();
await page.goto(env.QUIRE_LINK);
await page.getByRole('button', { name: 'Continue' }).click();
await page.getByRole('heading', { name: 'Organizations' }).waitFor();
const screens = [
  ['organization', `/o/${org.id}/`, () => page.getByRole('heading', { name: 'Spaces' }).waitFor()],
  ['settings', `/o/${org.id}/settings`, () => page.getByRole('button', { name: 'Save settings' }).waitFor()],
  ['members', `/o/${org.id}/members`, () => page.getByRole('table', { name: 'Members' }).locator('tbody tr').first().waitFor()],
  ['teams', `/o/${org.id}/teams`, () => page.getByRole('button', { name: 'Writers' }).waitFor()],
  ['sharing', `/s/${space.id}/permissions`, () => page.getByRole('list', { name: 'Teams with access' }).getByText('Writers', { exact: true }).waitFor()],
  ['sites', `/o/${org.id}/sites`, () => page.getByRole('table', { name: 'Sites' }).locator('tbody tr').first().waitFor()],
  ['a site', `/o/${org.id}/sites/${site.id}`, () => page.getByRole('button', { name: 'Revoke Partners' }).waitFor()],
  ['Git Sync', `/s/${space.id}/git-sync`, () => page.getByRole('button', { name: 'Import from the repository' }).waitFor()],
  ['translations', `/o/${org.id}/translations`, () => page.getByRole('table', { name: 'Translations' }).locator('tbody tr').first().waitFor()],
  ['OpenAPI', `/o/${org.id}/openapi`, () => page.getByRole('button', { name: 'Add specification' }).waitFor()],
  ['single sign-on', `/o/${org.id}/sso`, () => page.getByRole('heading', { name: 'Okta', exact: true }).waitFor()],
  ['account (sessions, tokens)', '/me', () => page.getByRole('list', { name: 'Your API tokens' }).waitFor()],
];
for (const [name, path, ready] of screens) {
  const times = [];
  for (let run = 0; run < 3; run += 1) {
    await page.goto('about:blank');
    const started = Date.now();
    await page.goto(`${url}${path}`);
    await ready();
    times.push(Date.now() - started);
  }
  console.log(`${name}: ${times.join(', ')} ms`);
}
await browser.close();
