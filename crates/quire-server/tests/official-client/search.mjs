// Search through the official GitBook API client (`@gitbook/api`): pages
// written through a merged change request are found by an English word, a
// Japanese word inside a sentence and a code identifier, in their space and
// across the organization, with the page whose title matches ranked first.
// Run by `tests/api/official_client.rs` with QUIRE_URL and QUIRE_TOKEN.

import assert from 'node:assert/strict';
import { client, step } from './harness.mjs';

const api = client();

let orgId;
let spaceId;

await step('write pages through a merged change request', async () => {
    const { data: org } = await api.orgs.createOrganization({ title: 'Search Smoke' });
    orgId = org.id;
    const { data: space } = await api.orgs.createSpace(org.id, { title: 'Guide' });
    spaceId = space.id;
    const { data: cr } = await api.spaces.createChangeRequest(spaceId, { subject: 'Pages' });
    const page = (markdown) => ({ operation: 'insert_page', document: { markdown } });
    await api.spaces.updateChangeRequestContent(spaceId, cr.id, {
        changes: [
            page('# Deployment notes\n\nAfter a deployment, check the logs.\n'),
            page('# Deployment\n\nHow deployments work.\n'),
            page('# 旅行\n\n私は東京に住んでいます。\n'),
            page('# Client\n\nCall `getSpaceById(id)` to read a space.\n'),
        ],
    });
    await api.spaces.mergeChangeRequest(spaceId, cr.id);
});

await step('spaces.searchSpaceContent: an English word, titles first', async () => {
    const { data } = await api.spaces.searchSpaceContent(spaceId, { query: 'deployment' });
    assert.deepEqual(
        data.items.map((p) => p.title),
        ['Deployment', 'Deployment notes'],
    );
    assert.equal(data.items[0].rank, 1);
    assert.ok(data.items[0].urls.app.includes(spaceId));
});

await step('spaces.searchSpaceContent: a Japanese word inside a sentence', async () => {
    const { data } = await api.spaces.searchSpaceContent(spaceId, { query: '東京' });
    assert.deepEqual(data.items.map((p) => p.title), ['旅行']);
    assert.ok(data.items[0].sections[0].body.includes('東京'));
});

await step('spaces.searchSpaceContent: a code identifier', async () => {
    const { data } = await api.spaces.searchSpaceContent(spaceId, { query: 'getSpaceById' });
    assert.deepEqual(data.items.map((p) => p.title), ['Client']);
});

await step('orgs.searchOrganizationContent: across the organization', async () => {
    const { data } = await api.orgs.searchOrganizationContent(orgId, { query: '東京' });
    assert.equal(data.items.length, 1);
    assert.equal(data.items[0].type, 'space');
    assert.equal(data.items[0].id, spaceId);
    assert.deepEqual(data.items[0].pages.map((p) => p.title), ['旅行']);
});
