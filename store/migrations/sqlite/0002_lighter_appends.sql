-- Lighter appends: each index and check an insert maintains is paid by every event, and the
-- log is written far more than it is read.
--
-- The payload loses its CHECK (json_valid(payload)). Append checks every payload with
-- encoding/json before it inserts (Event.Validate), so SQLite parsing it a second time inside
-- the write transaction, the costliest step of an insert, checked nothing new. SQLite cannot
-- drop a CHECK in place, so the table is rebuilt as its documentation describes: make the
-- new table, copy the rows (seq, the append order, included), drop the old one, rename.
--
-- The index on (harness, at_ns) goes: one harness is a large share of the log, so a query for
-- it reads the time index about as fast, and the dashboard's counts for one harness are
-- answered by the partial indexes below, which hold the harness and which the planner passed
-- over for it.
--
-- The IDs' unique index is made after the copy, which builds it in one sorted pass; it is the
-- same constraint the column's UNIQUE was, under a name.
CREATE TABLE events_v2 (
	seq        INTEGER PRIMARY KEY,
	id         TEXT    NOT NULL,
	ref        TEXT    NOT NULL DEFAULT '',
	kind       TEXT    NOT NULL CHECK (kind IN ('decision', 'termination', 'observation')),
	at_ns      INTEGER NOT NULL,
	harness    TEXT    NOT NULL DEFAULT '',
	session    TEXT    NOT NULL DEFAULT '',
	agent      TEXT    NOT NULL DEFAULT '',
	check_name TEXT    NOT NULL DEFAULT '',
	verdict    TEXT    NOT NULL DEFAULT '',
	category   TEXT    NOT NULL DEFAULT '',
	provider   TEXT    NOT NULL DEFAULT '',
	pending    INTEGER NOT NULL DEFAULT 0 CHECK (pending IN (0, 1)),
	payload    TEXT    NOT NULL
) STRICT;

INSERT INTO events_v2 (seq, id, ref, kind, at_ns, harness, session, agent, check_name, verdict, category, provider, pending, payload)
	SELECT seq, id, ref, kind, at_ns, harness, session, agent, check_name, verdict, category, provider, pending, payload
	FROM events ORDER BY seq;

DROP TABLE events;
ALTER TABLE events_v2 RENAME TO events;

CREATE UNIQUE INDEX events_id ON events (id);
-- Time order (the rowid, seq, is implicitly the index's last column): queries, pruning.
CREATE INDEX events_at ON events (at_ns);
-- One session's history.
CREATE INDEX events_session ON events (session, at_ns);
-- The dashboard's two tables, each covered by a partial index that only its kind's rows
-- maintain; they also serve queries for one of those kinds over a time range, and for one
-- harness.
CREATE INDEX events_decisions ON events (at_ns, check_name, verdict, pending, harness) WHERE kind = 'decision';
CREATE INDEX events_terminations ON events (at_ns, category, provider, harness) WHERE kind = 'termination';
