package store_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stopgate/stopgate/store"
)

// The test binary runs itself as the writer processes of the durability tests: the parent
// starts os.Args[0] with -test.run=^TestHelperProcess$ and these variables set.
const (
	helperMode   = "STOPGATE_STORE_HELPER"        // "append" or "ack"
	helperDB     = "STOPGATE_STORE_HELPER_DB"     // the SQLite file
	helperWorker = "STOPGATE_STORE_HELPER_WORKER" // the worker's number, for its IDs
)

// The "append" helper's shape: rounds × perRound events, one Append each, reopening the store
// every round the way stop hooks do.
const (
	appendRounds   = 50
	appendPerRound = 20
	ackLimit       = 100000 // the "ack" helper stops by itself after this many events
)

// TestHelperProcess is not a test: it is the body of the writer processes the durability
// tests start, and does nothing when run as part of the suite.
func TestHelperProcess(t *testing.T) {
	mode := os.Getenv(helperMode)
	if mode == "" {
		return
	}
	path, worker := os.Getenv(helperDB), os.Getenv(helperWorker)
	var err error
	switch mode {
	case "append":
		err = helperAppend(path, worker)
	case "ack":
		err = helperAck(path, worker)
	default:
		err = fmt.Errorf("unknown helper mode %q", mode)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

func helperEvent(id string, i int) store.Event {
	return store.Event{ID: id, Kind: store.KindObservation, Time: time.Unix(1_700_000_000, int64(i)), Harness: "durability",
		Payload: json.RawMessage(`{"id":"` + id + `","pad":"` + fmt.Sprintf("%0200d", i) + `"}`)}
}

// helperAppend appends appendRounds × appendPerRound events, opening and closing the store
// around each round.
func helperAppend(path, worker string) error {
	ctx := context.Background()
	n := 0
	for range appendRounds {
		s, err := store.Open(ctx, path, nil)
		if err != nil {
			return err
		}
		for range appendPerRound {
			if err := s.Append(ctx, helperEvent(fmt.Sprintf("w%s-%04d", worker, n), n)); err != nil {
				_ = s.Close()
				return err
			}
			n++
		}
		if err := s.Close(); err != nil {
			return err
		}
	}
	return nil
}

// helperAck appends batches of one to five events until it is killed, printing each event's
// ID on stdout once the Append that stored it has returned.
func helperAck(path, worker string) error {
	ctx := context.Background()
	s, err := store.Open(ctx, path, nil)
	if err != nil {
		return err
	}
	defer s.Close()
	out := bufio.NewWriter(os.Stdout)
	for n := 0; n < ackLimit; {
		batch := make([]store.Event, 1+n%5)
		for i := range batch {
			batch[i] = helperEvent(fmt.Sprintf("k%s-%06d", worker, n), n)
			n++
		}
		if err := s.Append(ctx, batch...); err != nil {
			return err
		}
		for _, e := range batch {
			fmt.Fprintln(out, e.ID)
		}
		if err := out.Flush(); err != nil {
			return err
		}
	}
	return nil
}

// helper returns the command that runs this test binary as a helper.
func helper(t *testing.T, mode, path string, worker int) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), helperMode+"="+mode, helperDB+"="+path, helperWorker+"="+strconv.Itoa(worker))
	return cmd
}

// checkIntegrity fails the test unless SQLite's integrity check passes on path.
func checkIntegrity(t *testing.T, path string) {
	t.Helper()
	db := rawSQLite(t, path)
	var res string
	if err := db.QueryRow("PRAGMA integrity_check").Scan(&res); err != nil || res != "ok" {
		t.Errorf("PRAGMA integrity_check: %q, %v", res, err)
	}
}

// TestSQLiteManyProcesses has eight processes append a thousand events each to one new file at
// once, each reopening the store every twenty events, as stop hooks do; every event must be
// there afterwards, once.
func TestSQLiteManyProcesses(t *testing.T) {
	const procs = 8
	path := filepath.Join(t.TempDir(), "events.db") // not there yet: the processes race to make it
	type child struct {
		cmd    *exec.Cmd
		stderr bytes.Buffer
	}
	children := make([]*child, procs)
	for i := range children {
		c := &child{cmd: helper(t, "append", path, i)}
		c.cmd.Stderr = &c.stderr
		if err := c.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		children[i] = c
	}
	for i, c := range children {
		if err := c.cmd.Wait(); err != nil {
			t.Errorf("writer %d: %v: %s", i, err, c.stderr.Bytes())
		}
	}
	if t.Failed() {
		return
	}
	checkIntegrity(t, path)
	s, err := store.Open(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got, err := s.Query(context.Background(), store.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	const each = appendRounds * appendPerRound
	if len(got) != procs*each {
		t.Errorf("%d events stored, want %d", len(got), procs*each)
	}
	seen := map[string]bool{}
	for _, e := range got {
		if seen[e.ID] {
			t.Errorf("event %s stored twice", e.ID)
		}
		seen[e.ID] = true
	}
	for w := range procs {
		for n := range each {
			if id := fmt.Sprintf("w%d-%04d", w, n); !seen[id] {
				t.Errorf("event %s is missing", id)
			}
		}
	}
}

// acker is a running "ack" helper and the IDs it has acknowledged.
type acker struct {
	cmd    *exec.Cmd
	stderr bytes.Buffer
	acks   chan string // every acknowledged ID, closed at the helper's EOF
}

// startAcker starts an "ack" helper on path.
func startAcker(t *testing.T, path string, worker int) *acker {
	t.Helper()
	a := &acker{cmd: helper(t, "ack", path, worker), acks: make(chan string, 1024)}
	a.cmd.Stderr = &a.stderr
	stdout, err := a.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := a.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(a.acks)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			a.acks <- sc.Text()
		}
	}()
	return a
}

// kill sends SIGKILL, collects every ID acknowledged before it (lines read after the kill
// were printed before it) and checks the helper died of it.
func (a *acker) kill(t *testing.T, acked []string) []string {
	t.Helper()
	if err := a.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for id := range a.acks {
		acked = append(acked, id)
	}
	err := a.cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("the writer ended with %v, not by SIGKILL (stderr: %s)", err, a.stderr.Bytes())
	}
	return acked
}

// TestSQLiteSIGKILL kills two writers appending to one file with SIGKILL, the first after it
// has acknowledged a given number of events, the second (appending all along) right after,
// and checks that the database is sound and holds every event either acknowledged.
func TestSQLiteSIGKILL(t *testing.T) {
	for _, acks := range []int{1, 37, 250, 1000} {
		t.Run(strconv.Itoa(acks)+" acks", func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "events.db")
			// Make the file first, so that the kill does not land during the schema's
			// creation, which the test of many processes covers.
			s, err := store.Open(context.Background(), path, nil)
			if err != nil {
				t.Fatal(err)
			}
			_ = s.Close()

			// The bystander is writing before the victim starts, and goes on until the end.
			bystander := startAcker(t, path, 1)
			first, ok := <-bystander.acks
			if !ok {
				t.Fatalf("the second writer acknowledged nothing (stderr: %s)", bystander.stderr.Bytes())
			}
			victim := startAcker(t, path, 0)
			var acked []string
			for id := range victim.acks {
				acked = append(acked, id)
				if len(acked) == acks {
					break
				}
			}
			if len(acked) < acks {
				t.Fatalf("the writer acknowledged %d events and stopped, want %d (stderr: %s)", len(acked), acks, victim.stderr.Bytes())
			}
			acked = victim.kill(t, acked)
			nVictim := len(acked)
			acked = bystander.kill(t, append(acked, first))

			checkIntegrity(t, path)
			s, err = store.Open(context.Background(), path, nil)
			if err != nil {
				t.Fatalf("open after the kill: %v", err)
			}
			defer s.Close()
			got, err := s.Query(context.Background(), store.Filter{})
			if err != nil {
				t.Fatal(err)
			}
			stored := map[string]bool{}
			for _, e := range got {
				stored[e.ID] = true
			}
			missing := 0
			for _, id := range acked {
				if !stored[id] {
					missing++
					if missing <= 5 {
						t.Errorf("acknowledged event %s is missing", id)
					}
				}
			}
			if missing > 0 {
				t.Errorf("%d of %d acknowledged events are missing", missing, len(acked))
			}
			t.Logf("acknowledged: %d by the first writer, %d by the second; stored: %d", nVictim, len(acked)-nVictim, len(got))
		})
	}
}
