//! The content engine through the official GitBook API client
//! (`@gitbook/api`): a change request that writes a nested tree of pages with
//! links and an image, its merge, two change requests editing one page (the
//! second updated and merged), the conflict refused with 409, and every
//! page, file, link and backlink read back. Run by
//! `tests/api/official_client.rs`, which passes through the environment:
//!   QUIRE_URL    base URL of the server (the client appends `/v1`)
//!   QUIRE_TOKEN  API token of a user who may create organizations
//! Links and backlinks are not operations of the official client, so they
//! are read with a plain authenticated `fetch`.

import assert from 'node:assert/strict';
import { GitBookAPI } from '@gitbook/api';
import { step } from './harness.mjs';

const url = process.env.QUIRE_URL;
const token = process.env.QUIRE_TOKEN;
assert.ok(url && token, 'QUIRE_URL and QUIRE_TOKEN are required');
const api = new GitBookAPI({ endpoint: url, authToken: token });

async function raw(path) {
    const res = await fetch(`${url}/v1${path}`, { headers: { Authorization: `Bearer ${token}` } });
    assert.equal(res.status, 200, `${path} answered ${res.status}`);
    return res.json();
}

// A 1x1 PNG.
const png = Buffer.from(
    '89504e470d0a1a0a0000000d4948445200000001000000010806000000' +
        '1f15c4890000000a49444154789c63000100000500010d0a2db40000000049454e44ae426082',
    'hex',
);

let spaceId;
let pages = {};
let fileId;

await step('orgs.createOrganization + orgs.createSpace', async () => {
    const { data: org } = await api.orgs.createOrganization({ title: 'Content Smoke' });
    const { data: space } = await api.orgs.createSpace(org.id, { title: 'Handbook' });
    assert.equal(space.object, 'space');
    spaceId = space.id;
});

await step('change request: nested pages, links and an image, then merge', async () => {
    const { data: cr } = await api.spaces.createChangeRequest(spaceId, { subject: 'First pages' });
    assert.equal(cr.number, 1);
    const { data: update } = await api.spaces.updateChangeRequestContent(
        spaceId,
        cr.id,
        {
            changes: [
                {
                    operation: 'insert_files',
                    files: [{ name: 'logo.png', ref: 'logo', contentType: 'image/png', base64: png.toString('base64') }],
                },
                {
                    operation: 'insert_page',
                    ref: 'intro',
                    document: { markdown: '# Introduction\n\n![Logo](./logo)\n\nRead the [setup](./setup.md).\n' },
                },
                {
                    operation: 'insert_page',
                    ref: 'setup',
                    into: 'intro',
                    document: { markdown: '# Setup\n\nshared line\nsecond line\n\nBack to [intro](./intro.md).\n' },
                },
            ],
        },
        { compat: false },
    );
    assert.equal(update.changes.length, 2);
    for (const change of update.changes) {
        pages[change.ref] = change.page.id;
    }
    const { data: merged } = await api.spaces.mergeChangeRequest(spaceId, cr.id);
    assert.equal(merged.result, 'merge');
});

await step('read pages, a page by id and by path, files', async () => {
    const { data: list } = await api.spaces.listPages(spaceId);
    assert.equal(list.pages.length, 1);
    assert.equal(list.pages[0].id, pages.intro);
    assert.equal(list.pages[0].pages[0].id, pages.setup);
    const { data: page } = await api.spaces.getPageById(spaceId, pages.setup, { format: 'markdown' });
    assert.match(page.markdown, /shared line/);
    const { data: doc } = await api.spaces.getPageById(spaceId, pages.intro, { format: 'document' });
    assert.equal(doc.document.object, 'document');
    const { data: byPath } = await api.spaces.getPageByPath(spaceId, 'introduction/setup');
    assert.equal(byPath.id, pages.setup);
    const { data: files } = await api.spaces.listFiles(spaceId);
    assert.equal(files.items.length, 1);
    fileId = files.items[0].id;
    const { data: file } = await api.spaces.getFileById(spaceId, fileId);
    assert.equal(file.size, png.length);
    const bytes = await fetch(file.downloadURL, { headers: { Authorization: `Bearer ${token}` } });
    assert.deepEqual(Buffer.from(await bytes.arrayBuffer()), png);
});

await step('links and backlinks', async () => {
    const links = await raw(`/spaces/${spaceId}/links`);
    assert.equal(links.stats.broken.total, 0);
    assert.ok(links.items.some((l) => l.targetReference.page === pages.setup));
    const backlinks = await raw(`/spaces/${spaceId}/content/files/${fileId}/backlinks`);
    assert.equal(backlinks.items.length, 1);
    assert.equal(backlinks.items[0].page, pages.intro);
});

await step('two change requests edit one page: update and merge the second', async () => {
    const { data: a } = await api.spaces.createChangeRequest(spaceId, { subject: 'A' });
    const { data: b } = await api.spaces.createChangeRequest(spaceId, { subject: 'B' });
    await api.spaces.updateChangeRequestContent(spaceId, a.id, {
        changes: [{ operation: 'update_page', page: pages.setup, document: { markdown: '# Setup\n\nSHARED LINE\nsecond line\n\nBack to [intro](/pages/' + pages.intro + ').\n' } }],
    });
    await api.spaces.updateChangeRequestContent(spaceId, b.id, {
        changes: [{ operation: 'update_page', page: pages.setup, document: { markdown: '# Setup\n\nshared line\nsecond line\n\nBack to the [intro](/pages/' + pages.intro + ').\n' } }],
    });
    await api.spaces.mergeChangeRequest(spaceId, a.id);
    const { data: outdated } = await api.spaces.getChangeRequestById(spaceId, b.id);
    assert.equal(outdated.outdated, true);
    const { data: updated } = await api.spaces.updateChangeRequest(spaceId, b.id);
    assert.equal(updated.result, 'update');
    await api.spaces.mergeChangeRequest(spaceId, b.id);
    const { data: page } = await api.spaces.getPageById(spaceId, pages.setup, { format: 'markdown' });
    assert.match(page.markdown, /SHARED LINE/);
    assert.match(page.markdown, /Back to the \[intro\]/);
});

await step('a real conflict is refused with 409', async () => {
    const { data: c } = await api.spaces.createChangeRequest(spaceId, { subject: 'C' });
    const { data: d } = await api.spaces.createChangeRequest(spaceId, { subject: 'D' });
    await api.spaces.updateChangeRequestContent(spaceId, c.id, {
        changes: [{ operation: 'update_page', page: pages.setup, document: { markdown: '# Setup\n\nours\n' } }],
    });
    await api.spaces.updateChangeRequestContent(spaceId, d.id, {
        changes: [{ operation: 'update_page', page: pages.setup, document: { markdown: '# Setup\n\ntheirs\n' } }],
    });
    await api.spaces.mergeChangeRequest(spaceId, c.id);
    await assert.rejects(api.spaces.mergeChangeRequest(spaceId, d.id), (error) => {
        assert.equal(error.code, 409);
        assert.match(error.errorMessage ?? error.message, /Setup/);
        return true;
    });
});
