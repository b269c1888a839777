-- Jobs name the organization they work for, so a worker can run several
-- jobs at once without one organization taking every slot: a claim skips
-- organizations that already run their share. Jobs queued before have none
-- and count as no organization's.
ALTER TABLE jobs ADD COLUMN tenant TEXT;
CREATE INDEX jobs_running_tenant ON jobs (state, tenant);
