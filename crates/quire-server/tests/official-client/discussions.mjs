//! Discussions through the official GitBook API client (`@gitbook/api`): a
//! threaded discussion on a change request — a comment on a page, replies
//! from two users, reactions, the thread resolved — read back in both body
//! formats, with its commenters and the change request's open-comment
//! counter, then a reply and the comment deleted. Run by
//! `tests/api/official_client.rs`, which passes through the environment:
//!   QUIRE_URL           base URL of the server (the client appends `/v1`)
//!   QUIRE_TOKEN         API token of a user who may create organizations
//!   QUIRE_SECOND_TOKEN  API token of a second user,
//!   QUIRE_SECOND_ID     whose id
//!   QUIRE_SECOND_EMAIL  and email address the script invites

import assert from 'node:assert/strict';
import { GitBookAPI } from '@gitbook/api';
import { step } from './harness.mjs';

const url = process.env.QUIRE_URL;
const token = process.env.QUIRE_TOKEN;
const secondToken = process.env.QUIRE_SECOND_TOKEN;
const secondId = process.env.QUIRE_SECOND_ID;
const secondEmail = process.env.QUIRE_SECOND_EMAIL;
assert.ok(url && token && secondToken && secondId && secondEmail, 'QUIRE_URL, QUIRE_TOKEN and QUIRE_SECOND_* are required');
const api = new GitBookAPI({ endpoint: url, authToken: token });
const bob = new GitBookAPI({ endpoint: url, authToken: secondToken });

let adaId;
let spaceId;
let crId;
let pageId;
let commentId;
const replies = [];

await step('an organization, a space, a commenter and a change request with a page', async () => {
    const { data: me } = await api.user.getAuthenticatedUser();
    adaId = me.id;
    const { data: org } = await api.orgs.createOrganization({ title: 'Discussions Smoke' });
    const { data: invited } = await api.orgs.inviteUsersToOrganization(org.id, {
        emails: [{ email: secondEmail, role: 'comment' }],
    });
    assert.equal(invited.invited, 1);
    const waiting = await fetch(`${url}/v1/user/invites`, {
        headers: { Authorization: `Bearer ${secondToken}` },
    }).then((r) => r.json());
    await bob.orgs.joinOrganizationWithInvite(org.id, waiting.items[0].id);
    const { data: space } = await api.orgs.createSpace(org.id, { title: 'Handbook' });
    spaceId = space.id;
    const { data: cr } = await api.spaces.createChangeRequest(spaceId, { subject: 'Review me' });
    crId = cr.id;
    const { data: update } = await api.spaces.updateChangeRequestContent(
        spaceId,
        crId,
        { changes: [{ operation: 'insert_page', ref: 'intro', document: { markdown: '# Introduction\n\nHello.\n' } }] },
        { compat: false },
    );
    pageId = update.changes[0].page.id;
});

await step('spaces.postCommentInChangeRequest on a page', async () => {
    const { data: comment } = await api.spaces.postCommentInChangeRequest(spaceId, crId, {
        page: pageId,
        body: { markdown: `Is this clear, @${secondId}?` },
    });
    assert.equal(comment.object, 'comment');
    assert.equal(comment.status, 'open');
    assert.equal(comment.body.markdown, `Is this clear, @${secondId}?`);
    assert.equal(comment.target.changeRequest, crId);
    assert.equal(comment.target.page.id, pageId);
    assert.equal(comment.target.page.title, 'Introduction');
    assert.equal(comment.target.page.outdated, false);
    assert.deepEqual(comment.permissions, { view: true, edit: true, reply: true, delete: true });
    commentId = comment.id;
    const { data: cr } = await api.spaces.getChangeRequestById(spaceId, crId);
    assert.equal(cr.comments, 1);
});

await step('spaces.postCommentReplyInChangeRequest from two users', async () => {
    for (const [client, text] of [
        [bob, 'Mostly.'],
        [api, 'What is missing?'],
        [bob, 'An example.'],
    ]) {
        const { data: reply } = await client.spaces.postCommentReplyInChangeRequest(spaceId, crId, commentId, {
            body: { markdown: text },
        });
        assert.equal(reply.object, 'comment-reply');
        assert.equal(reply.body.markdown, text);
        replies.push(reply.id);
    }
    const { data: list } = await api.spaces.listCommentRepliesInChangeRequest(spaceId, crId, commentId, { limit: 2 });
    assert.equal(list.count, 3);
    assert.deepEqual(
        list.items.map((r) => r.id),
        replies.slice(0, 2),
    );
    const { data: rest } = await api.spaces.listCommentRepliesInChangeRequest(spaceId, crId, commentId, {
        limit: 2,
        page: list.next.page,
    });
    assert.deepEqual(
        rest.items.map((r) => r.id),
        replies.slice(2),
    );
});

await step('spaces.updateCommentInChangeRequest and updateCommentReplyInChangeRequest: reactions', async () => {
    await api.spaces.updateCommentInChangeRequest(spaceId, crId, commentId, { addedReactions: ['👍', '👍'] });
    const { data: comment } = await bob.spaces.updateCommentInChangeRequest(spaceId, crId, commentId, {
        addedReactions: ['👍', '🎉'],
    });
    assert.deepEqual(
        comment.reactions.map((r) => [r.emoji, r.count]),
        [
            ['👍', 2],
            ['🎉', 1],
        ],
    );
    assert.deepEqual(
        comment.reactions[0].users.map((u) => u.user.id),
        [adaId, secondId],
    );
    const { data: reply } = await api.spaces.updateCommentReplyInChangeRequest(spaceId, crId, commentId, replies[2], {
        addedReactions: ['🙏'],
    });
    assert.deepEqual(
        reply.reactions.map((r) => [r.emoji, r.count]),
        [['🙏', 1]],
    );
    // Someone else's words cannot be rewritten.
    await assert.rejects(
        bob.spaces.updateCommentInChangeRequest(spaceId, crId, commentId, { body: { markdown: 'Not mine' } }),
        (error) => error.code === 403,
    );
});

await step('the thread resolved, then read back in both formats', async () => {
    const { data: resolved } = await bob.spaces.updateCommentInChangeRequest(spaceId, crId, commentId, { resolved: true });
    assert.equal(resolved.status, 'resolved');
    assert.equal(resolved.resolvedBy.id, secondId);
    assert.ok(resolved.resolvedAt);
    const { data: cr } = await api.spaces.getChangeRequestById(spaceId, crId);
    assert.equal(cr.comments, 0);

    const { data: thread } = await api.spaces.getCommentInChangeRequest(spaceId, crId, commentId);
    assert.equal(thread.replies, 3);
    assert.deepEqual(
        thread.repliers.map((r) => [r.user.id, r.count]),
        [
            [secondId, 2],
            [adaId, 1],
        ],
    );
    const { data: doc } = await api.spaces.getCommentInChangeRequest(spaceId, crId, commentId, { format: 'document' });
    assert.equal(doc.body.document.object, 'document');
    const { data: reply } = await api.spaces.getCommentReplyInChangeRequest(spaceId, crId, commentId, replies[0], {
        format: 'document',
    });
    assert.equal(reply.body.document.object, 'document');

    const { data: resolvedList } = await api.spaces.listCommentsInChangeRequest(spaceId, crId, { status: 'resolved' });
    assert.deepEqual(
        resolvedList.items.map((c) => c.id),
        [commentId],
    );
    const { data: openList } = await api.spaces.listCommentsInChangeRequest(spaceId, crId, { status: 'open' });
    assert.equal(openList.count, 0);
    const { data: byAuthor } = await api.spaces.listCommentsInChangeRequest(spaceId, crId, {
        authors: [secondId, adaId],
        targetPage: pageId,
    });
    assert.equal(byAuthor.count, 1);
    const { data: space } = await api.spaces.getSpaceById(spaceId);
    assert.equal(space.comments, 0, 'change request comments do not count on the space');
});

await step('spaces.listCommentersInChangeRequest and listCommentersInSpace', async () => {
    const { data: commenters } = await api.spaces.listCommentersInChangeRequest(spaceId, crId);
    assert.deepEqual(commenters.items.map((m) => m.id).sort(), [adaId, secondId].sort());
    assert.equal(commenters.items[0].object, 'member');
    const { data: none } = await api.spaces.listCommentersInSpace(spaceId);
    assert.equal(none.count, 0);
});

await step('deleting a reply, then the comment', async () => {
    await bob.spaces.deleteCommentReplyInChangeRequest(spaceId, crId, commentId, replies[0]);
    const { data: thread } = await api.spaces.getCommentInChangeRequest(spaceId, crId, commentId);
    assert.equal(thread.replies, 2);
    await api.spaces.deleteCommentInChangeRequest(spaceId, crId, commentId);
    const { data: list } = await api.spaces.listCommentsInChangeRequest(spaceId, crId);
    assert.equal(list.count, 0);
});
