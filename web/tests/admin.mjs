// Running an organization in Debian's Chromium: Ada (its admin) renames
// it; invites Grace by email and hands her the one-time link, and Grace
// joins; gives her another role; makes a team and puts her in it; makes an
// invite link that Bob opens to join, then removes Bob and invites him by
// email, which he accepts on his home screen; gives the team
// edit access to a space, sees why Grace can now edit (her team, beside
// her reader role), and Grace can; invites Linus as Reviewer (the picker
// keeps the role and says what it may do), sees the invitation pending and
// revokes it. Every screen is
// checked with axe-core and photographed at desktop and phone width, light
// and dark. Run by crates/quire-server/tests/api/admin_screens.rs with
// QUIRE_URL, QUIRE_ORG, QUIRE_SPACE (a space of it), QUIRE_LINK (Ada's sign-in link), QUIRE_BOB_LINK,
// ARTIFACTS.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { launch, newPage as openPage, screen as check, stepper } from './browser.mjs';

const env = process.env;
const url = env.QUIRE_URL;
const org = env.QUIRE_ORG;
const artifacts = env.ARTIFACTS ?? 'artifacts';
mkdirSync(artifacts, { recursive: true });

const browser = await launch();
const pages = [];
const step = stepper(artifacts, () => pages);

const newPage = (options) => openPage(browser, pages, options);

async function signIn(page, link) {
  await page.goto(link);
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.getByRole('heading', { name: 'Organizations' }).waitFor();
}

const screen = (page, name) => check(page, name, artifacts);

const ada = await newPage();
await step('the admin renames the organization in its settings', async () => {
  await signIn(ada, env.QUIRE_LINK);
  await ada.goto(`${url}/o/${org}/`);
  await ada.getByRole('navigation', { name: 'Administration' }).getByRole('link', { name: 'Settings' }).click();
  await ada.getByRole('heading', { name: 'Settings' }).waitFor();
  await ada.getByLabel('Name').fill('Acme Handbook');
  await ada.getByLabel('Email domains whose people may join (comma-separated)').fill('acme.test');
  await ada.getByRole('button', { name: 'Save settings' }).click();
  await ada.getByRole('status').filter({ hasText: 'Settings saved.' }).waitFor();
  await screen(ada, 'settings');
});

let gracesLink;
let graces;
await step('a person invited by email joins with the one-time link', async () => {
  await ada.getByRole('link', { name: 'Members' }).click();
  await ada.getByRole('heading', { name: 'Members' }).waitFor();
  await ada.getByLabel('Email to invite').fill('grace@example.com');
  await ada.getByLabel('Role of the invited person').selectOption('edit');
  await ada.getByRole('button', { name: 'Invite by email' }).click();
  gracesLink = await ada.getByLabel('Link for grace@example.com').inputValue();
  assert.match(gracesLink, /^http/);
  const grace = await newPage();
  graces = grace;
  await grace.goto(gracesLink);
  await grace.getByRole('heading', { name: 'Accept your invitation' }).waitFor();
  await grace.getByLabel('Your name').fill('Grace Hopper');
  await grace.getByLabel(/New password/).fill('a long enough password');
  await grace.getByRole('button', { name: 'Continue' }).click();
  await grace.getByRole('heading', { name: 'Organizations' }).waitFor();
  await grace.getByRole('link', { name: 'Acme Handbook' }).waitFor();
  await ada.reload();
  await ada.getByRole('table', { name: 'Members' }).getByText('grace@example.com').waitFor();
  await screen(ada, 'members');
});

await step('a member gets another role', async () => {
  const role = ada.getByLabel(/^Role of Grace Hopper/);
  await role.selectOption('read');
  await ada.getByRole('status').filter({ hasText: 'is now Reader' }).waitFor();
  await ada.reload();
  assert.equal(await ada.getByLabel(/^Role of Grace Hopper/).inputValue(), 'read');
});

await step('a team is made and a member put in it', async () => {
  await ada.getByRole('navigation', { name: 'Administration' }).getByRole('link', { name: 'Teams' }).click();
  await ada.getByRole('heading', { name: 'Teams' }).waitFor();
  await ada.getByLabel('Team name').fill('Writers');
  await ada.getByRole('button', { name: 'Create team' }).click();
  await ada.getByRole('heading', { name: 'Writers' }).waitFor();
  await ada.getByRole('list', { name: 'Members of Writers' }).getByLabel('Grace Hopper').check();
  await ada.getByRole('status').filter({ hasText: 'added to Writers' }).waitFor();
  await screen(ada, 'teams');
});

await step('a team is given access to a space; why its member can now edit is shown, and she can', async () => {
  await ada.goto(`${url}/s/${env.QUIRE_SPACE}/`);
  await ada.getByRole('link', { name: 'Sharing' }).click();
  await ada.getByRole('heading', { name: 'Sharing' }).waitFor();
  await ada.getByLabel('Share with').selectOption({ label: 'Team Writers' });
  await ada.getByLabel('Role to share').selectOption('edit');
  await ada.getByRole('button', { name: 'Share' }).click();
  await ada.getByRole('list', { name: 'Teams with access' }).getByText('Writers', { exact: true }).waitFor();
  await ada.getByLabel('Person').selectOption({ label: 'Grace Hopper' });
  const why = ada.getByRole('region', { name: 'Why Grace Hopper has access' });
  await why.getByText('is Editor here').waitFor();
  await why.getByText('Editor through team Writers on Handbook').waitFor();
  await why.getByText('Reader through their role in the organization').waitFor();
  await screen(ada, 'sharing');
  const space = await graces.evaluate(async (id) => (await (await fetch(`/v1/spaces/${id}`)).json()).permissions, env.QUIRE_SPACE);
  assert.equal(space.edit, true, 'Grace may edit through her team');
});

let bobs;
await step('an invite link lets someone join, and a member is removed', async () => {
  await ada.goto(`${url}/o/${org}/members`);
  await ada.getByLabel('Role of people who join by link').selectOption('read');
  await ada.getByRole('button', { name: 'Create an invite link' }).click();
  const link = await ada.getByLabel('Invite link (Reader)').first().inputValue();
  const bob = await newPage();
  bobs = bob;
  await signIn(bob, env.QUIRE_BOB_LINK);
  await bob.goto(link);
  await bob.getByRole('heading', { name: 'Join the organization' }).waitFor();
  await screen(bob, 'join');
  await bob.getByRole('button', { name: 'Join' }).click();
  await bob.getByRole('heading', { name: 'Acme Handbook' }).waitFor();
  await ada.reload();
  const table = ada.getByRole('table', { name: 'Members' });
  await table.getByText('bob@example.com').waitFor();
  await ada.getByRole('button', { name: 'Remove Bob' }).click();
  await ada.getByRole('status').filter({ hasText: 'Bob was removed.' }).waitFor();
  await table.getByText('bob@example.com').waitFor({ state: 'detached' });
});

await step('someone with an account invited by email joins only once they accept', async () => {
  await ada.getByLabel('Email to invite').fill('bob@example.com');
  await ada.getByLabel('Role of the invited person').selectOption('comment');
  await ada.getByRole('button', { name: 'Invite by email' }).click();
  await ada.getByText('bob@example.com already has an account: they join once they accept the invitation on their home page.').waitFor();
  assert.equal(await ada.getByLabel('Link for bob@example.com').count(), 0, 'no password link for someone with a sign-in of their own');
  const table = ada.getByRole('table', { name: 'Members' });
  assert.equal(await table.getByText('bob@example.com').count(), 0, 'not a member before accepting');
  await bobs.goto(`${url}/`);
  const invitations = bobs.getByRole('region', { name: 'Invitations' });
  await invitations.getByText('Acme Handbook invites you to join as a commenter (sent by Ada).').waitFor();
  await screen(bobs, 'invitation');
  await invitations.getByRole('button', { name: 'Accept the invitation of Acme Handbook' }).click();
  await bobs.getByRole('link', { name: 'Acme Handbook' }).waitFor();
  await ada.reload();
  await ada.getByRole('table', { name: 'Members' }).getByText('bob@example.com').waitFor();
});

await step('an invitation keeps its role in the picker, is listed as pending, and is revoked', async () => {
  await ada.getByLabel('Email to invite').fill('linus@example.com');
  await ada.getByLabel('Role of the invited person').selectOption('review');
  await ada.getByText('Reviewer: Reviews and merges change requests').waitFor();
  await ada.getByRole('button', { name: 'Invite by email' }).click();
  await ada.getByRole('status').filter({ hasText: 'linus@example.com is invited.' }).waitFor();
  assert.equal(await ada.getByLabel('Role of the invited person').inputValue(), 'review', 'the picker keeps the chosen role');
  assert.equal(await ada.getByLabel('Email to invite').inputValue(), '', 'the address is cleared for the next one');
  const pending = ada.getByRole('table', { name: 'Pending invitations' });
  const row = pending.getByRole('row').filter({ hasText: 'linus@example.com' });
  await row.getByText('Reviewer').waitFor();
  await row.getByText('Ada').waitFor();
  await screen(ada, 'pending-invitations');
  await ada.getByRole('button', { name: 'Revoke the invitation of linus@example.com' }).click();
  await ada.getByRole('status').filter({ hasText: 'The invitation of linus@example.com was revoked.' }).waitFor();
  await ada.getByText('linus@example.com', { exact: true }).waitFor({ state: 'detached' });
  await ada.reload();
  await ada.getByRole('table', { name: 'Members' }).waitFor();
  assert.equal(await ada.getByText('linus@example.com', { exact: true }).count(), 0, 'a revoked invitation is gone');
});

await browser.close();
