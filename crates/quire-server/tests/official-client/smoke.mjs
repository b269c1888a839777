//! Smoke test of the official GitBook API client (`@gitbook/api`) against a
//! running Quire server. Run by `tests/api/official_client.rs`, which starts
//! the server and passes, through the environment:
//!   QUIRE_URL           base URL of the server (the client appends `/v1`)
//!   QUIRE_TOKEN         API token of the first user (who creates the org)
//!   QUIRE_USER_ID       id of that user
//!   QUIRE_SECOND_ID     id of a second user, who has an account already
//!   QUIRE_SECOND_EMAIL  email of the second user
//!   QUIRE_SECOND_TOKEN  API token of the second user (who accepts the
//!                       invitation)
//! Every call goes through the client; any failed assertion or request
//! exits non-zero.

import assert from 'node:assert/strict';
import { GitBookAPI } from '@gitbook/api';
import { step } from './harness.mjs';

function env(name) {
    const value = process.env[name];
    if (!value) {
        throw new Error(`missing environment variable ${name}`);
    }
    return value;
}

const userId = env('QUIRE_USER_ID');
const secondId = env('QUIRE_SECOND_ID');
const secondEmail = env('QUIRE_SECOND_EMAIL');

const api = new GitBookAPI({ endpoint: env('QUIRE_URL'), authToken: env('QUIRE_TOKEN') });
const second = new GitBookAPI({ endpoint: env('QUIRE_URL'), authToken: env('QUIRE_SECOND_TOKEN') });

/** The user ids of a member list page, in order. */
const ids = (list) => list.items.map((m) => m.id);

let orgId;
let teamId;

await step('user.getAuthenticatedUser', async () => {
    const { data: me } = await api.user.getAuthenticatedUser();
    assert.equal(me.object, 'user');
    assert.equal(me.id, userId);
    assert.equal(typeof me.displayName, 'string');
});

await step('orgs.createOrganization', async () => {
    const { data: org } = await api.orgs.createOrganization({ title: 'Client Smoke' });
    assert.equal(org.object, 'organization');
    assert.equal(org.title, 'Client Smoke');
    assert.equal(org.permissions.admin, true);
    orgId = org.id;

    const { data: again } = await api.orgs.getOrganizationById(orgId);
    assert.equal(again.id, orgId);
});

await step('orgs.inviteUsersToOrganization', async () => {
    const { data: result } = await api.orgs.inviteUsersToOrganization(orgId, {
        emails: [{ email: secondEmail, role: 'edit' }],
    });
    // Nobody joins without saying so: the invited person accepts.
    assert.deepEqual(result.users, []);
    assert.equal(result.invited, 1);
    const waiting = await fetch(`${env('QUIRE_URL')}/v1/user/invites`, {
        headers: { Authorization: `Bearer ${env('QUIRE_SECOND_TOKEN')}` },
    }).then((r) => r.json());
    const invitation = waiting.items.find((i) => i.organization.id === orgId);
    assert.ok(invitation, JSON.stringify(waiting));
    await second.orgs.joinOrganizationWithInvite(orgId, invitation.id);
});

await step('orgs.updateOrganizationMemberLastSeenAt', async () => {
    await api.orgs.updateOrganizationMemberLastSeenAt(orgId);
});

await step('orgs.listMembersInOrganizationById (no filter)', async () => {
    const { data: list } = await api.orgs.listMembersInOrganizationById(orgId);
    assert.equal(list.count, 2);
    // Default order: most recently joined first.
    assert.deepEqual(ids(list), [secondId, userId]);
    const second = list.items[0];
    assert.equal(second.object, 'member');
    assert.equal(second.role, 'edit');
    assert.equal(second.user.id, secondId);
    assert.equal(second.user.email, secondEmail);
    assert.equal(list.next, undefined);
});

await step('orgs.listMembersInOrganizationById (role)', async () => {
    const { data: admins } = await api.orgs.listMembersInOrganizationById(orgId, { role: 'admin' });
    assert.deepEqual(ids(admins), [userId]);
    assert.equal(admins.count, 1);
    const { data: editors } = await api.orgs.listMembersInOrganizationById(orgId, { role: 'edit' });
    assert.deepEqual(ids(editors), [secondId]);
    const { data: guests } = await api.orgs.listMembersInOrganizationById(orgId, { role: 'guest' });
    assert.deepEqual(ids(guests), []);
    assert.equal(guests.count, 0);
});

await step('orgs.listMembersInOrganizationById (search)', async () => {
    const local = secondEmail.split('@')[0].toUpperCase();
    const { data: found } = await api.orgs.listMembersInOrganizationById(orgId, { search: local });
    assert.deepEqual(ids(found), [secondId]);
    const { data: none } = await api.orgs.listMembersInOrganizationById(orgId, { search: 'no such person' });
    assert.deepEqual(ids(none), []);
});

await step('orgs.listMembersInOrganizationById (sort, order)', async () => {
    const { data: asc } = await api.orgs.listMembersInOrganizationById(orgId, { sort: 'joinedAt', order: 'asc' });
    assert.deepEqual(ids(asc), [userId, secondId]);
    const { data: desc } = await api.orgs.listMembersInOrganizationById(orgId, { sort: 'joinedAt', order: 'desc' });
    assert.deepEqual(ids(desc), [secondId, userId]);

    const { data: byName } = await api.orgs.listMembersInOrganizationById(orgId, { sort: 'name', order: 'asc' });
    const names = byName.items.map((m) => m.user.displayName);
    assert.deepEqual(names, [...names].sort());
    const { data: byNameDesc } = await api.orgs.listMembersInOrganizationById(orgId, { sort: 'name', order: 'desc' });
    assert.deepEqual(ids(byNameDesc), ids(byName).reverse());

    // Only members seen at least once (the first user pinged above).
    const { data: seen } = await api.orgs.listMembersInOrganizationById(orgId, { sort: 'lastSeenAt' });
    assert.deepEqual(ids(seen), [userId]);
    assert.equal(typeof seen.items[0].lastSeenAt, 'string');
});

await step('orgs.listMembersInOrganizationById (limit + next.page)', async () => {
    for (const query of [{}, { sort: 'name', order: 'asc' }, { sort: 'joinedAt', order: 'asc' }]) {
        const seen = [];
        let page;
        for (let i = 0; i < 10; i++) {
            const { data: list } = await api.orgs.listMembersInOrganizationById(orgId, { ...query, limit: 1, page });
            assert.equal(list.count, 2);
            assert.ok(list.items.length <= 1);
            seen.push(...ids(list));
            page = list.next?.page;
            if (!page) {
                break;
            }
        }
        assert.equal(page, undefined, 'paging ends');
        assert.deepEqual([...seen].sort(), [userId, secondId].sort(), `each member once with ${JSON.stringify(query)}`);
    }
    const { data: empty } = await api.orgs.listMembersInOrganizationById(orgId, { limit: 0 });
    assert.deepEqual(empty.items, []);
});

await step('orgs.createOrganizationTeam', async () => {
    const { data: team } = await api.orgs.createOrganizationTeam(orgId, { title: 'Writers' });
    assert.equal(team.object, 'team');
    assert.equal(team.title, 'Writers');
    assert.equal(team.members, 0);
    teamId = team.id;
});

await step('orgs.updateMembersInOrganizationTeam', async () => {
    const res = await api.orgs.updateMembersInOrganizationTeam(orgId, teamId, { add: [secondId] });
    assert.ok(res.ok);
    const { data: team } = await api.orgs.getTeamInOrganizationById(orgId, teamId);
    assert.equal(team.members, 1);
});

await step('orgs.listTeamMembersInOrganizationById', async () => {
    const { data: list } = await api.orgs.listTeamMembersInOrganizationById(orgId, teamId);
    assert.equal(list.count, 1);
    assert.equal(list.items.length, 1);
    const [member] = list.items;
    assert.equal(member.organization.id, secondId);
    assert.equal(member.organization.role, 'edit');
    assert.equal(member.team.role, 'member');
    assert.equal(member.permissions.view, true);

    const { data: teams } = await api.orgs.listTeamsForOrganizationMember(orgId, secondId);
    assert.deepEqual(
        teams.items.map((t) => t.team.id),
        [teamId],
    );
});

await step('orgs.updateTeamInOrganizationById', async () => {
    const { data: team } = await api.orgs.updateTeamInOrganizationById(orgId, teamId, { title: 'Editors' });
    assert.equal(team.id, teamId);
    assert.equal(team.title, 'Editors');
});

await step('orgs.removeTeamFromOrganizationById', async () => {
    await api.orgs.removeTeamFromOrganizationById(orgId, teamId);
    const { data: teams } = await api.orgs.listTeamsInOrganizationById(orgId);
    assert.deepEqual(teams.items, []);
    await assert.rejects(api.orgs.getTeamInOrganizationById(orgId, teamId), (error) => {
        assert.equal(error.response?.status, 404);
        return true;
    });
});

console.log('all client calls succeeded');
