-- Hardening (issue 41).
--
-- Invitations of people who have an account wait for their answer: a
-- pending invite is also how an existing account is invited, and says who
-- invited it (shown to the invited person).
ALTER TABLE pending_invites ADD COLUMN invited_by TEXT;

-- When a person last signed in (any way): an organization admin may make a
-- password link only for an account that never did.
ALTER TABLE users ADD COLUMN signed_in_at BIGINT;

-- Sign-in attempts are counted before the password is checked: each row
-- belongs to one attempt, which removes its rows when it succeeds (or was
-- refused unchecked).
ALTER TABLE sign_in_failures ADD COLUMN attempt TEXT;
CREATE INDEX sign_in_failures_by_attempt ON sign_in_failures (attempt);

-- Account events (sign-ins, failed ones, passwords, tokens, links) name
-- the person they concern, who reads them, as do the admins of that
-- person's organizations.
ALTER TABLE audit_events ADD COLUMN subject_user_id TEXT;
CREATE INDEX audit_events_by_subject ON audit_events (subject_user_id, occurred_at, id);
