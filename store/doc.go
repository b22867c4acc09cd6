// Package store is stopgate's event log: every decision with its trail, every termination
// reason and every finish-reason observation, with the harness, session and agent they concern
// and the time they happened, kept so that an operator can ask later why runs ended and how
// often each check held one back.
//
// One interface, [Store], has two implementations behind one constructor, [Open]:
//
//   - SQLite (the embedded default): one file, written by a pure-Go driver (modernc.org/sqlite,
//     no cgo) in WAL mode. Many processes may append to the same file at once: each stop hook
//     is its own short-lived process that opens the file, appends a few events and closes it.
//     An event whose Append has returned survives the process being killed at any moment.
//   - PostgreSQL (through pgx), for several `stopgate serve` replicas sharing one log.
//
// Both are plain SQL over database/sql and share every query; they differ only in their schema
// files, placeholders and locking. They behave the same, and the conformance suite in
// store/storetest, which both pass, says how.
//
// # Events
//
// An [Event] is one row: an ID, a [Kind], a time, the harness, session and agent, the columns
// the dashboard groups and filters by (check, verdict, category, provider, pending), and a
// JSON payload holding the whole record. [DecisionEvents] makes the events of one decision,
// [TerminationEvent] and [ObservationEvent] the others.
//
// Appending is the log's hot path, so the schema keeps only the indexes its queries use, and
// [Store.Append] checks each event in Go ([Event.Validate]: the fields, and the payload as
// JSON) rather than in database constraints that would check it again, then writes the whole
// call in one transaction with INSERT statements of many rows, prepared once per connection.
//
// # Schema
//
// The schema is versioned. Each backend embeds numbered migrations (migrations/<backend>/NNNN_
// name.sql); [Open] applies the ones a database lacks, each in its own transaction, and
// records them in a schema_migrations table. Concurrent openers serialise on a lock (SQLite's
// write lock, a PostgreSQL advisory lock), so the first applies a migration and the rest find
// it applied. A database whose schema is newer than the binary is refused with
// [ErrSchemaTooNew], naming both versions.
//
// # Retention
//
// The log grows until pruned. [Store.Prune] deletes by age, by count or both ([Retention]), in
// small batches of short transactions, so writers are never held up for long; a long-lived
// process can have it run in the background with [Options.PruneInterval].
package store
