-- Lighter appends: each index an insert maintains is paid by every event, and the log is
-- written far more than it is read.
--
-- The index on (harness, at_ns) goes: one harness is a large share of the log, so a query for
-- it reads the time index about as fast, and the dashboard's counts for one harness are
-- answered by the partial indexes, which hold the harness. (The payload keeps its json type:
-- PostgreSQL checks it as it parses the row, which costs little, unlike SQLite's json_valid
-- CHECK, which the SQLite schema drops in this migration.)
DROP INDEX events_harness;
