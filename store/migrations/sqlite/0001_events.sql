-- The event log. Times are int64 nanoseconds since the Unix epoch (UTC), so both backends keep
-- the same precision and bucket them with the same integer arithmetic. seq is the append
-- order, which breaks ties between events of the same time.
CREATE TABLE events (
	seq        INTEGER PRIMARY KEY,
	id         TEXT    NOT NULL UNIQUE,
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
	payload    TEXT    NOT NULL CHECK (json_valid(payload))
) STRICT;

-- Time order (the rowid, seq, is implicitly the index's last column): queries, pruning.
CREATE INDEX events_at ON events (at_ns);
-- One session's or one harness's history.
CREATE INDEX events_session ON events (session, at_ns);
CREATE INDEX events_harness ON events (harness, at_ns);
-- The dashboard's two tables, each covered by a partial index that only its kind's rows
-- maintain; they also serve queries for one of those kinds over a time range.
CREATE INDEX events_decisions ON events (at_ns, check_name, verdict, pending, harness) WHERE kind = 'decision';
CREATE INDEX events_terminations ON events (at_ns, category, provider, harness) WHERE kind = 'termination';
