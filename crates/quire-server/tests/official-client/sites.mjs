// Sites through the official GitBook API client (`@gitbook/api`): a site
// made of two spaces with sections is customized, published and read back,
// given redirects (created, listed, resolved, updated, upserted in bulk,
// deleted, and followed on the published site), then fetched as a reader
// and as an agent would (HTML, llms.txt, markdown).
// Run by `tests/api/official_client.rs` with QUIRE_URL and QUIRE_TOKEN.

import assert from 'node:assert/strict';
import { client, step } from './harness.mjs';

const api = client();

let orgId;
let guideId;
let referenceId;
let site;

async function spaceWithPage(title, pageTitle, markdown) {
    const { data: space } = await api.orgs.createSpace(orgId, { title });
    const { data: cr } = await api.spaces.createChangeRequest(space.id, { subject: 'First page' });
    await api.spaces.updateChangeRequestContent(space.id, cr.id, {
        changes: [{ operation: 'insert_page', title: pageTitle, document: { markdown } }],
    });
    await api.spaces.mergeChangeRequest(space.id, cr.id);
    return space.id;
}

await step('two spaces with a page each', async () => {
    const { data: org } = await api.orgs.createOrganization({ title: 'Sites Smoke' });
    orgId = org.id;
    guideId = await spaceWithPage('Guide', 'Welcome', 'Start with the **guide**.\n');
    referenceId = await spaceWithPage('Reference', 'Endpoints', 'Every endpoint, one by one.\n');
});

await step('orgs.createSite with a space, orgs.addSectionToSite with another', async () => {
    const { data } = await api.orgs.createSite(orgId, { title: 'Handbook', spaces: [guideId] });
    site = data;
    assert.equal(site.object, 'site');
    assert.equal(site.siteSpaces, 1);
    assert.equal(site.published, false);
    const { data: section } = await api.orgs.addSectionToSite(orgId, site.id, { spaceId: referenceId, title: 'Reference' });
    assert.equal(section.object, 'site-section');
    const { data: sections } = await api.orgs.listSiteSections(orgId, site.id);
    assert.deepEqual(sections.items.map((s) => s.title), ['Handbook', 'Reference']);
    assert.equal(sections.items[0].default, true);
});

await step('orgs.moveSiteSpace and orgs.moveSiteSection without a position move to the end', async () => {
    const { data: extra } = await api.orgs.addSpaceToSite(orgId, site.id, { spaceId: referenceId });
    const { data: sections } = await api.orgs.listSiteSections(orgId, site.id);
    const handbook = sections.items[0];
    const first = handbook.siteSpaces[0];
    assert.notEqual(first.id, extra.id);
    const { data: moved } = await api.orgs.moveSiteSpace(orgId, site.id, first.id, {});
    assert.equal(moved.id, first.id);
    const { data: after } = await api.orgs.listSiteSections(orgId, site.id);
    assert.equal(after.items[0].siteSpaces.at(-1).id, first.id);
    await api.orgs.deleteSiteSpaceById(orgId, site.id, extra.id);
    const { data: section } = await api.orgs.moveSiteSection(orgId, site.id, handbook.id, {});
    assert.equal(section.id, handbook.id);
    const { data: reordered } = await api.orgs.listSiteSections(orgId, site.id);
    assert.deepEqual(reordered.items.map((s) => s.title), ['Reference', 'Handbook']);
    await api.orgs.moveSiteSection(orgId, site.id, reordered.items[0].id, {});
});

await step('orgs.updateSiteAdaptiveSchema with a string claim of fixed values', async () => {
    const jsonSchema = {
        type: 'object',
        properties: {
            plan: { type: 'string', enum: ['free', 'pro'], description: 'The plan of the visitor' },
            unsigned: {
                type: 'object',
                description: 'Unsigned claims of the site visitor.',
                properties: {
                    beta: { type: 'boolean', description: 'Beta tester' },
                    region: { type: 'string', enum: ['eu', 'us'], description: 'Where the visitor reads from' },
                },
                additionalProperties: false,
            },
        },
        additionalProperties: false,
    };
    const { data } = await api.orgs.updateSiteAdaptiveSchema(orgId, site.id, { jsonSchema });
    assert.deepEqual(data.jsonSchema.properties.plan.enum, ['free', 'pro']);
    assert.deepEqual(data.jsonSchema.properties.unsigned.properties.region.enum, ['eu', 'us']);
});

await step('orgs.updateSiteCustomizationById and orgs.publishSite', async () => {
    const { data: custom } = await api.orgs.updateSiteCustomizationById(orgId, site.id, {
        title: 'Handbook Docs',
        announcement: { enabled: true, message: 'Fresh docs', style: 'info' },
    });
    assert.equal(custom.title, 'Handbook Docs');
    const { data: published } = await api.orgs.publishSite(orgId, site.id);
    assert.equal(published.published, true);
    assert.ok(published.urls.published.endsWith('/handbook/'));
    site = published;
    const { data: content } = await api.orgs.getPublishedContentSite(orgId, site.id);
    assert.equal(content.object, 'published-content-site');
    assert.equal(content.structure.type, 'sections');
    assert.equal(content.customizations.site.title, 'Handbook Docs');
});

await step('orgs site redirects: create, list, resolve, update, bulk upsert, delete', async () => {
    const { data: created } = await api.orgs.createSiteRedirect(orgId, site.id, {
        source: '/old-welcome',
        permanent: true,
        destination: { kind: 'path', spaceId: guideId, path: 'welcome' },
    });
    assert.equal(created.object, 'site-redirect');
    assert.equal(created.destination.kind, 'site-page');
    assert.equal(created.updatedAt, undefined);
    const { data: listed } = await api.orgs.listSiteRedirects(orgId, site.id);
    assert.deepEqual(listed.items.map((r) => r.source), ['/old-welcome']);
    const { data: resolved } = await api.orgs.getSiteRedirectBySource(orgId, site.id, { source: '/old-welcome' });
    assert.equal(resolved.redirect.id, created.id);
    assert.equal(resolved.target, `${site.urls.published}welcome`);
    const permanent = await fetch(`${site.urls.published}old-welcome`, { redirect: 'manual' });
    assert.equal(permanent.status, 308);
    assert.equal(permanent.headers.get('location'), '/handbook/welcome');

    const { data: updated } = await api.orgs.updateSiteRedirectById(orgId, site.id, created.id, { permanent: false });
    assert.equal(updated.permanent, false);
    assert.ok(updated.updatedAt);
    assert.equal((await fetch(`${site.urls.published}old-welcome`, { redirect: 'manual' })).status, 307);

    const { data: bulk } = await api.orgs.bulkUpsertSiteRedirects(orgId, site.id, {
        redirects: [
            { source: '/ref/*', captureWildcard: true, permanent: true, destination: { kind: 'external', url: 'https://example.com/ref' } },
            { source: '/old-welcome', intent: 'draft', destination: { kind: 'external', url: 'https://example.com/draft' } },
            { source: '/never', destination: null },
        ],
    });
    assert.deepEqual(bulk.results.map((r) => r.status), ['created', 'created', 'error']);
    const { data: bySource } = await api.orgs.listSiteRedirects(orgId, site.id, { orderBy: 'source' });
    assert.deepEqual(bySource.items.map((r) => r.source), ['/old-welcome', '/ref/*']);
    const { data: drafts } = await api.orgs.listSiteRedirects(orgId, site.id, { draft: true });
    assert.deepEqual(drafts.items.map((r) => r.source), ['/old-welcome']);
    const wildcard = await fetch(`${site.urls.published}ref/a/b`, { redirect: 'manual' });
    assert.equal(wildcard.status, 308);
    assert.equal(wildcard.headers.get('location'), 'https://example.com/ref/a/b');

    const deleted = await api.orgs.deleteSiteRedirectById(orgId, site.id, created.id);
    assert.equal(deleted.status, 205);
    const again = await api.orgs.deleteSiteRedirectById(orgId, site.id, created.id);
    assert.equal(again.status, 204);
    assert.equal((await fetch(`${site.urls.published}old-welcome`, { redirect: 'manual' })).status, 404);
});

await step('the published site, as a reader and as an agent', async () => {
    const home = await fetch(site.urls.published);
    assert.equal(home.status, 200);
    const html = await home.text();
    assert.ok(html.includes('<h1>Welcome</h1>'), html);
    assert.ok(html.includes('Fresh docs'));
    assert.ok(html.includes('>Reference</a>'));
    const reference = await (await fetch(`${site.urls.published}reference/`)).text();
    assert.ok(reference.includes('<h1>Endpoints</h1>'));
    const llms = await (await fetch(`${site.urls.published}llms.txt`)).text();
    assert.ok(llms.startsWith('# Handbook\n'), llms);
    assert.ok(llms.includes('/handbook/reference/endpoints.md'), llms);
    const markdown = await (await fetch(`${site.urls.published}welcome.md`)).text();
    assert.equal(markdown, '# Welcome\n\nStart with the **guide**.\n');
});

await step('orgs.unpublishSite and orgs.deleteSiteById', async () => {
    await api.orgs.unpublishSite(orgId, site.id);
    assert.equal((await fetch(site.urls.published)).status, 404);
    await api.orgs.deleteSiteById(orgId, site.id);
    await assert.rejects(api.orgs.getSiteById(orgId, site.id), (error) => error.statusCode === 404 || error.status === 404 || /404/.test(String(error)));
});
