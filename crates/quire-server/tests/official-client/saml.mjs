// SAML single sign-on through the official client, in two parts chosen by
// QUIRE_PART:
//   register  an admin (QUIRE_TOKEN) registers the identity provider
//             (QUIRE_IDP_ENTITY_ID, QUIRE_IDP_SSO_URL, QUIRE_IDP_CERTIFICATE)
//             in QUIRE_ORG_ID with QUIRE_TEAM_ID and role `edit`, reads it
//             back, lists it, updates it, and prints `provider <id>`;
//   use       a person who signed in through it uses the token they made on
//             their account page (QUIRE_TOKEN), expecting QUIRE_EMAIL.

import assert from 'node:assert/strict';
import { client, step } from './harness.mjs';

const api = client();
const env = (name) => {
    const value = process.env[name];
    assert.ok(value, `missing environment variable ${name}`);
    return value;
};

if (env('QUIRE_PART') === 'register') {
    const orgId = env('QUIRE_ORG_ID');
    let provider;
    await step('orgs.createOrganizationSamlProvider', async () => {
        const { data, status } = await api.orgs.createOrganizationSamlProvider(orgId, {
            label: 'Company IdP',
            entityID: env('QUIRE_IDP_ENTITY_ID'),
            ssoURL: env('QUIRE_IDP_SSO_URL'),
            certificate: env('QUIRE_IDP_CERTIFICATE'),
            defaultTeam: env('QUIRE_TEAM_ID'),
            defaultRole: 'edit',
        });
        assert.equal(status, 201);
        assert.equal(data.object, 'saml-provider');
        assert.equal(data.status, 'active');
        assert.equal(data.defaultTeam.id, env('QUIRE_TEAM_ID'));
        assert.match(data.service.startURL, /\/saml\/.+\/start$/);
        provider = data;
    });
    await step('orgs.getOrganizationSamlProviderById', async () => {
        const { data } = await api.orgs.getOrganizationSamlProviderById(orgId, provider.id);
        assert.equal(data.entityID, env('QUIRE_IDP_ENTITY_ID'));
        assert.equal(data.service.acsURL, provider.service.acsURL);
    });
    await step('orgs.updateOrganizationSamlProvider', async () => {
        const { data } = await api.orgs.updateOrganizationSamlProvider(orgId, provider.id, { label: 'Company' });
        assert.equal(data.label, 'Company');
    });
    await step('orgs.listSamlProvidersInOrganizationById', async () => {
        const { data } = await api.orgs.listSamlProvidersInOrganizationById(orgId);
        assert.deepEqual(data.items.map((p) => p.id), [provider.id]);
    });
    await step('orgs.listSsoProviderLoginsInOrganization', async () => {
        const { data } = await api.orgs.listSsoProviderLoginsInOrganization(orgId);
        assert.deepEqual(data.items, [{ id: provider.id, label: 'Company', startURL: provider.service.startURL }]);
    });
    console.log(`provider ${provider.id}`);
} else {
    await step('user.getAuthenticatedUser with the account page token', async () => {
        const { data } = await api.user.getAuthenticatedUser();
        assert.equal(data.email, env('QUIRE_EMAIL'));
    });
    await step('orgs.listOrganizationsForAuthenticatedUser', async () => {
        const { data } = await api.orgs.listOrganizationsForAuthenticatedUser();
        assert.equal(data.items.length, 1);
    });
}
