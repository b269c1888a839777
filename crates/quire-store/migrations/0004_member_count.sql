-- The number of members of each organization, kept by the statements that
-- add and remove members, so an unfiltered member list needs no count scan.
ALTER TABLE organizations ADD COLUMN member_count BIGINT NOT NULL DEFAULT 0;
UPDATE organizations SET member_count = (SELECT COUNT(*) FROM members m WHERE m.organization_id = organizations.id);
