-- What the latest Git Sync operation of a space did, for the people who run
-- it: pages and files written and the problems met (files skipped and why,
-- what pages say that Quire does not understand), as JSON; NULL before the
-- first operation ends, or when it failed (its error says why).

ALTER TABLE git_syncs ADD COLUMN last_result TEXT;
