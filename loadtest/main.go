// Command loadtest measures `stopgate serve` under load and checks that no decision is lost.
//
// It starts the stopgate binary's serve command on a fresh SQLite event log, on a free
// loopback port, fires -n decisions from -c concurrent clients (keep-alive connections), and
// reports decisions per second and latency percentiles. Then it checks, through GET /v1/stats
// and by opening the event log once the server has shut down on SIGTERM, that exactly -n
// decision events were persisted and that every decision the server acknowledged as recorded
// is among them (with -no-record: that none was). It exits 1 when a check fails.
//
// With -compare K it runs K rounds of a run without recording and one with, back to back,
// and reports each round's ratio: what recording costs, measured on the same machine at
// nearly the same moment (the machine is shared, so absolute figures drift between runs).
// With -postgres URL the server records in that PostgreSQL database, in a fresh schema it
// drops afterwards. With -kill-after N it kills the server with SIGKILL once N decisions are
// answered, mid-batch under load, and checks that every decision acknowledged as recorded
// survived. The report also gives the CPU time the server and the load generator spent per
// decision.
//
//	go build -o bin/stopgate ./cmd/stopgate
//	go run ./loadtest -bin bin/stopgate -n 20000 -c 32 -compare 3      # make load
//	go run ./loadtest -bin bin/stopgate -n 20000 -c 32
//	go run ./loadtest -bin bin/stopgate -n 20000 -c 32 -group-commit=false
//	go run ./loadtest -bin bin/stopgate -n 20000 -c 32 -no-record   # the ceiling without the log
//	go run ./loadtest -bin bin/stopgate -postgres "$(scripts/postgres.sh)" -compare 3
//	go run ./loadtest -bin bin/stopgate -n 20000 -c 32 -kill-after 10000
//	go run ./loadtest -bin bin/stopgate -cpu-profile cpu.out -mem-profile mem.out
//
// It is bounded: -n and -c are capped, the run ends at -timeout, and it only ever talks to
// the server it started, on loopback.
package main

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver, to make the schema
	"github.com/stopgate/stopgate/store"
)

// Bounds on a run.
const (
	maxRequests = 1_000_000
	maxClients  = 1024
)

// config is one load run.
type config struct {
	bin         string        // the stopgate binary
	n, c        int           // decisions, concurrent clients
	timeout     time.Duration // for the whole run
	groupCommit bool          // serve --group-commit
	fullSync    bool          // serve --full-sync
	noRecord    bool          // serve --no-record: the ceiling without the event log
	dir         string        // where the event log goes; empty means a fresh temporary directory
	cpuProfile  string        // serve --cpu-profile
	memProfile  string        // serve --mem-profile
	postgres    string        // a postgres:// URL: record there, in a fresh schema, instead of SQLite
	killAfter   int           // SIGKILL the server once this many decisions are answered; 0 never
}

func main() {
	var cfg config
	flag.StringVar(&cfg.bin, "bin", "bin/stopgate", "the stopgate `BINARY` to serve with")
	flag.IntVar(&cfg.n, "n", 20000, "decisions to make, at most 1000000")
	flag.IntVar(&cfg.c, "c", 32, "concurrent clients, at most 1024")
	flag.DurationVar(&cfg.timeout, "timeout", 2*time.Minute, "give up after `D`")
	flag.BoolVar(&cfg.groupCommit, "group-commit", true, "serve with --group-commit (false: one append per decision)")
	flag.BoolVar(&cfg.fullSync, "full-sync", false, "serve with --full-sync (an fsync per commit)")
	flag.BoolVar(&cfg.noRecord, "no-record", false, "serve with --no-record, to measure the ceiling without the event log (then none may be recorded)")
	flag.StringVar(&cfg.cpuProfile, "cpu-profile", "", "have the server write a CPU profile of the run to `FILE`")
	flag.StringVar(&cfg.memProfile, "mem-profile", "", "have the server write an allocations profile of the run to `FILE`")
	flag.StringVar(&cfg.postgres, "postgres", "", "record in the PostgreSQL database this postgres:// `URL` names (in a fresh schema, dropped afterwards) instead of a SQLite file")
	flag.IntVar(&cfg.killAfter, "kill-after", 0, "SIGKILL the server once `N` decisions are answered, then check that every decision acknowledged as recorded is in the log")
	rounds := flag.Int("compare", 0, "run `K` rounds of a run without recording and one with, back to back, and report each round's ratio of decisions/s")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "loadtest: unexpected arguments %q\n", flag.Args())
		os.Exit(2)
	}
	if *rounds > 0 && (cfg.killAfter > 0 || cfg.noRecord) {
		fmt.Fprintln(os.Stderr, "loadtest: -compare runs both modes itself and kills nothing: drop -kill-after and -no-record")
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), cfg.timeout)
	defer cancel()
	var err error
	if *rounds > 0 {
		err = compare(ctx, os.Stdout, cfg, *rounds)
	} else {
		var rep *report
		rep, err = run(ctx, cfg)
		if rep != nil {
			rep.print(os.Stdout)
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "loadtest: %v\n", err)
		os.Exit(1)
	}
}

// compare runs rounds pairs of runs, one without recording and one with, back to back so
// that both see the same machine, and reports each pair's ratio: what recording every
// decision costs in throughput. It fails when a run fails its checks.
func compare(ctx context.Context, w io.Writer, cfg config, rounds int) error {
	type pair struct{ off, on *report }
	var pairs []pair
	for i := range rounds {
		var p pair
		for _, noRecord := range []bool{true, false} {
			c := cfg
			c.noRecord = noRecord
			rep, err := run(ctx, c)
			if rep != nil {
				fmt.Fprintf(w, "round %d of %d: ", i+1, rounds)
				rep.print(w)
				fmt.Fprintln(w)
			}
			if err != nil {
				return err
			}
			if noRecord {
				p.off = rep
			} else {
				p.on = rep
			}
		}
		pairs = append(pairs, p)
	}
	fmt.Fprintf(w, "recorded ÷ unrecorded, %d decisions from %d clients (%s):\n", cfg.n, cfg.c, cfg.storeName())
	for i, p := range pairs {
		fmt.Fprintf(w, "  round %d: %.0f ÷ %.0f decisions/s = %.2f; p99 %s recorded, %s unrecorded\n",
			i+1, p.on.rate(), p.off.rate(), p.on.rate()/p.off.rate(), ms(p.on.p99), ms(p.off.p99))
	}
	return nil
}

func (r *report) rate() float64 { return float64(r.done) / r.elapsed.Seconds() }

// storeName says where the run records.
func (c config) storeName() string {
	if c.postgres != "" {
		return "PostgreSQL"
	}
	if c.fullSync {
		return "SQLite, synchronous=FULL"
	}
	return "SQLite, synchronous=NORMAL"
}

// report is what a run measured.
type report struct {
	cfg                     config
	store                   string
	elapsed                 time.Duration
	done                    int
	p50, p90, p99, max      time.Duration
	commits, appendedEvents float64
	serverCPU, clientCPU    time.Duration // user+system time of the server process, and of this one during the load
	statsDecisions          int64
	storedDecisions, acked  int
	killed                  bool // by -kill-after
}

func (r *report) print(w io.Writer) {
	mode := "group commit"
	switch {
	case r.cfg.noRecord:
		mode = "no recording"
	case !r.cfg.groupCommit:
		mode = "one append per decision"
	}
	fmt.Fprintf(w, "stopgate serve: %s, %s %s\n", mode, r.cfg.storeName(), r.store)
	fmt.Fprintf(w, "%d decisions, %d clients: %.2fs, %.0f decisions/s\n", r.done, r.cfg.c, r.elapsed.Seconds(), r.rate())
	fmt.Fprintf(w, "latency: p50 %s  p90 %s  p99 %s  max %s\n", ms(r.p50), ms(r.p90), ms(r.p99), ms(r.max))
	if r.commits > 0 {
		fmt.Fprintf(w, "event log: %.0f events in %.0f commits, %.1f events a commit\n", r.appendedEvents, r.commits, r.appendedEvents/r.commits)
	}
	if r.serverCPU > 0 && r.done > 0 {
		fmt.Fprintf(w, "CPU: server %.0f µs a decision (%.2f cores), load generator %.0f µs a decision\n",
			float64(r.serverCPU.Microseconds())/float64(r.done), r.serverCPU.Seconds()/r.elapsed.Seconds(),
			float64(r.clientCPU.Microseconds())/float64(r.done))
	}
	if r.killed {
		fmt.Fprintf(w, "killed with SIGKILL after %d answers; verified: the log holds %d decision events, among them all %d acknowledged as recorded\n",
			r.cfg.killAfter, r.storedDecisions, r.acked)
		return
	}
	fmt.Fprintf(w, "verified: /v1/stats counts %d decisions; the log holds %d decision events; %d acknowledged as recorded\n",
		r.statsDecisions, r.storedDecisions, r.acked)
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2fms", float64(d)/float64(time.Millisecond)) }

// run starts the server, loads it, stops it and verifies the event log.
func run(ctx context.Context, cfg config) (*report, error) {
	if cfg.n < 1 || cfg.n > maxRequests || cfg.c < 1 || cfg.c > maxClients {
		return nil, fmt.Errorf("-n %d -c %d: want 1 <= n <= %d and 1 <= c <= %d", cfg.n, cfg.c, maxRequests, maxClients)
	}
	dir := cfg.dir
	if dir == "" {
		d, err := os.MkdirTemp("", "stopgate-load-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(d)
		dir = d
	}
	db := filepath.Join(dir, "events.db")
	where := db
	if cfg.postgres != "" {
		var drop func() error
		var err error
		if db, drop, err = freshSchema(ctx, cfg.postgres); err != nil {
			return nil, err
		}
		defer func() {
			if err := drop(); err != nil {
				fmt.Fprintf(os.Stderr, "loadtest: %v\n", err)
			}
		}()
		where = "(a fresh schema)"
	}
	rep := &report{cfg: cfg, store: where}

	srv, base, err := startServer(cfg, dir, db)
	if err != nil {
		return nil, err
	}
	defer srv.Process.Kill() // a no-op once it has exited

	cpu0 := selfCPU()
	kill := func() {}
	if cfg.killAfter > 0 {
		kill = func() { _ = srv.Process.Signal(syscall.SIGKILL) }
	}
	ids, lat, elapsed, err := load(ctx, base, cfg, kill)
	rep.clientCPU = selfCPU() - cpu0
	rep.elapsed, rep.done = elapsed, len(lat)
	if len(lat) > 0 {
		slices.Sort(lat)
		rep.p50, rep.p90, rep.p99, rep.max = pct(lat, 50), pct(lat, 90), pct(lat, 99), lat[len(lat)-1]
	}
	if cfg.killAfter > 0 {
		return rep, verifyAfterKill(ctx, rep, srv, db, ids, err)
	}
	if err != nil {
		return rep, err
	}
	want := cfg.n // decisions the log must hold
	if cfg.noRecord {
		want = 0
	}
	var errs []error
	if rep.statsDecisions, err = countDecisions(ctx, base); err != nil {
		errs = append(errs, err)
	} else if rep.statsDecisions != int64(want) {
		errs = append(errs, fmt.Errorf("/v1/stats counts %d decisions, want %d", rep.statsDecisions, want))
	}
	if m, err := scrape(ctx, base); err != nil {
		errs = append(errs, err)
	} else {
		rep.commits, rep.appendedEvents = m["stopgate_store_appends_total"], m["stopgate_store_appended_events_total"]
	}

	// Stop the server the way an operator does, and check it stops cleanly.
	if err := srv.Process.Signal(syscall.SIGTERM); err != nil {
		return rep, err
	}
	if err := srv.Wait(); err != nil {
		errs = append(errs, fmt.Errorf("stopgate serve after SIGTERM: %w", err))
	}
	rep.serverCPU = srv.ProcessState.UserTime() + srv.ProcessState.SystemTime()

	acked := map[string]bool{}
	for _, id := range ids {
		if id != "" {
			acked[id] = true
		}
	}
	rep.acked = len(acked)
	if rep.acked != want {
		errs = append(errs, fmt.Errorf("%d of %d decisions acknowledged as recorded, want %d", rep.acked, cfg.n, want))
	}
	stored, err := storedDecisions(ctx, db)
	if err != nil {
		return rep, errors.Join(append(errs, err)...)
	}
	rep.storedDecisions = len(stored)
	if len(stored) != want {
		errs = append(errs, fmt.Errorf("the event log holds %d decision events, want exactly %d", len(stored), want))
	}
	lost := 0
	for id := range acked {
		if !stored[id] {
			lost++
		}
	}
	if lost > 0 {
		errs = append(errs, fmt.Errorf("%d acknowledged decisions are not in the event log", lost))
	}
	return rep, errors.Join(errs...)
}

// startServer starts `stopgate serve` on a free loopback port and returns it with its URL.
func startServer(cfg config, dir, db string) (*exec.Cmd, string, error) {
	args := []string{"serve", "--addr", "127.0.0.1:0", "--store", db, "--log-level", "warn",
		"--group-commit=" + strconv.FormatBool(cfg.groupCommit), "--full-sync=" + strconv.FormatBool(cfg.fullSync),
		"--no-record=" + strconv.FormatBool(cfg.noRecord)}
	for _, p := range []struct{ flag, file string }{{"--cpu-profile", cfg.cpuProfile}, {"--mem-profile", cfg.memProfile}} {
		if p.file != "" {
			abs, err := filepath.Abs(p.file)
			if err != nil {
				return nil, "", err
			}
			args = append(args, p.flag, abs)
		}
	}
	cmd := exec.Command(cfg.bin, args...)
	// A clean environment: no user configuration, no token.
	cmd.Env = []string{"HOME=" + dir, "XDG_CONFIG_HOME=" + dir, "XDG_STATE_HOME=" + dir}
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, "", err
	}
	if err := cmd.Start(); err != nil {
		return nil, "", fmt.Errorf("starting %s: %w", cfg.bin, err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, "", fmt.Errorf("%s serve printed no URL: %w", cfg.bin, err)
	}
	base := strings.TrimSpace(line)
	u, err := url.Parse(base)
	if err != nil || u.Hostname() != "127.0.0.1" {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, "", fmt.Errorf("%s serve printed %q, not a loopback URL", cfg.bin, base)
	}
	return cmd, base, nil
}

// turns are the bodies the clients send, in turn: the common endings a harness reports.
var turns = []string{
	`{"harness":"load","session":"%s","message":{"text":"I updated the loader. Now I'll run the tests:","provider":"anthropic","finish_reason":"end_turn"}}`,
	`{"harness":"load","session":"%s","message":{"text":"All tests pass and the docs are updated.","provider":"openai","finish_reason":"stop"}}`,
	`{"harness":"load","session":"%s","error":{"provider":"anthropic","status":529,"body":"{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}"}}`,
	`{"harness":"load","session":"%s","now":"2026-08-23T10:10:00Z","message":{"text":"Let me look at the chart."},"jobs":[{"id":"j1","label":"npm test","status":"running"}]}`,
	`{"harness":"load","session":"%s","run_started_at":"2026-08-23T10:00:00Z","host_wakes":false,"message":{"text":"Done."},"processes":[{"id":"p1","command":"go test ./...","started_at":"2026-08-23T10:01:00Z","status":"exited","exited_at":"2026-08-23T10:04:00Z","exit_code":1,"log_size":512}]}`,
}

// load fires cfg.n decisions from cfg.c clients. It returns, per request, the event ID the
// server acknowledged ("" when it did not say it recorded the decision), the latencies of the
// requests answered, and the wall time.
//
// With cfg.killAfter set, it calls kill once that many decisions are answered; the requests
// then in flight fail, and load returns the first failure with what was answered before.
func load(ctx context.Context, base string, cfg config, kill func()) ([]string, []time.Duration, time.Duration, error) {
	client := &http.Client{Transport: &http.Transport{
		MaxIdleConns: cfg.c, MaxIdleConnsPerHost: cfg.c, DisableCompression: true,
	}}
	defer client.CloseIdleConnections()
	ids := make([]string, cfg.n)
	lat := make([]time.Duration, cfg.n)
	answered := make([]bool, cfg.n)
	bodies := make([][]byte, len(turns)*cfg.c)
	for c := range cfg.c {
		for i, t := range turns {
			bodies[c*len(turns)+i] = fmt.Appendf(nil, t, "client-"+strconv.Itoa(c))
		}
	}
	var next, nAnswered atomic.Int64
	var firstErr error
	var once sync.Once
	var wg sync.WaitGroup
	start := time.Now()
	for c := range cfg.c {
		wg.Go(func() {
			for ctx.Err() == nil {
				i := int(next.Add(1)) - 1
				if i >= cfg.n {
					return
				}
				body := bodies[c*len(turns)+i%len(turns)]
				t0 := time.Now()
				id, err := decide(ctx, client, base, body)
				if err != nil {
					once.Do(func() { firstErr = fmt.Errorf("decision %d: %w", i, err) })
					return
				}
				lat[i], ids[i], answered[i] = time.Since(t0), id, true
				if nAnswered.Add(1) == int64(cfg.killAfter) {
					kill()
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	var got []time.Duration
	for i, ok := range answered {
		if ok {
			got = append(got, lat[i])
		}
	}
	if firstErr == nil && ctx.Err() != nil {
		firstErr = fmt.Errorf("gave up after %s with %d of %d decisions answered: %w", elapsed.Round(time.Millisecond), len(got), cfg.n, ctx.Err())
	}
	return ids, got, elapsed, firstErr
}

// verifyAfterKill checks a run whose server was killed with SIGKILL under load (loadErr is
// the load's first failure, the requests the kill cut short): the server died of the signal,
// the log opens and is sound, and every decision the server acknowledged as recorded before
// it died is in it.
func verifyAfterKill(ctx context.Context, rep *report, srv *exec.Cmd, db string, ids []string, loadErr error) error {
	if rep.done < rep.cfg.killAfter {
		return fmt.Errorf("only %d decisions were answered, fewer than -kill-after %d: %w", rep.done, rep.cfg.killAfter, loadErr)
	}
	rep.killed = true
	err := srv.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		return fmt.Errorf("the server ended with %v, not by SIGKILL", err)
	}
	stored, err := storedDecisions(ctx, db)
	if err != nil {
		return fmt.Errorf("the event log after SIGKILL: %w", err)
	}
	rep.storedDecisions = len(stored)
	lost := 0
	for _, id := range ids {
		if id != "" {
			rep.acked++
			if !stored[id] {
				lost++
			}
		}
	}
	if rep.acked == 0 {
		return errors.New("no decision was acknowledged as recorded before the kill")
	}
	if lost > 0 {
		return fmt.Errorf("%d of %d decisions acknowledged as recorded are not in the event log after SIGKILL", lost, rep.acked)
	}
	return nil
}

// freshSchema makes a new schema in the PostgreSQL database dsn names and returns the URL
// that records into it, and the function that drops it.
func freshSchema(ctx context.Context, dsn string) (string, func() error, error) {
	u, err := url.Parse(dsn)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return "", nil, fmt.Errorf("-postgres %q: want a postgres:// URL", dsn)
	}
	if h := u.Hostname(); h != "127.0.0.1" && h != "localhost" && h != "::1" {
		return "", nil, fmt.Errorf("-postgres: the load test talks to loopback only, not %q", h)
	}
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		return "", nil, err
	}
	schema := "stopgate_load_" + strings.ToLower(store.NewID())
	if _, err := db.ExecContext(ctx, `CREATE SCHEMA "`+schema+`"`); err != nil {
		_ = db.Close()
		return "", nil, fmt.Errorf("create schema: %w", err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String(), func() error {
		defer db.Close()
		if _, err := db.Exec(`DROP SCHEMA "` + schema + `" CASCADE`); err != nil {
			return fmt.Errorf("drop schema %s: %w", schema, err)
		}
		return nil
	}, nil
}

// decide makes one decision and returns its event ID, "" when the server says it was not
// recorded.
func decide(ctx context.Context, client *http.Client, base string, body []byte) (string, error) {
	req, err := http.NewRequestWithContext(ctx, "POST", base+"/v1/decide", strings.NewReader(string(body)))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("%s: %s", resp.Status, b)
	}
	if resp.Header.Get("Stopgate-Recorded") != "true" {
		return "", nil
	}
	return resp.Header.Get("Stopgate-Event-Id"), nil
}

// countDecisions sums the decisions GET /v1/stats counts.
func countDecisions(ctx context.Context, base string) (int64, error) {
	b, err := get(ctx, base+"/v1/stats")
	if err != nil {
		return 0, err
	}
	var stats store.Stats
	if err := json.Unmarshal(b, &stats); err != nil {
		return 0, fmt.Errorf("/v1/stats: %w", err)
	}
	var n int64
	for _, c := range stats.Decisions {
		n += c.Count
	}
	return n, nil
}

// scrape reads the unlabelled samples of GET /metrics.
func scrape(ctx context.Context, base string) (map[string]float64, error) {
	b, err := get(ctx, base+"/metrics")
	if err != nil {
		return nil, err
	}
	m := map[string]float64{}
	for line := range strings.Lines(string(b)) {
		name, val, ok := strings.Cut(strings.TrimSpace(line), " ")
		if !ok || strings.HasPrefix(name, "#") || strings.Contains(name, "{") {
			continue
		}
		if f, err := strconv.ParseFloat(val, 64); err == nil {
			m[name] = f
		}
	}
	return m, nil
}

func get(ctx context.Context, u string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, "GET", u, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s: %s", u, resp.Status, b)
	}
	return b, nil
}

// storedDecisions opens the event log and returns the IDs of its decision events.
func storedDecisions(ctx context.Context, db string) (map[string]bool, error) {
	st, err := store.Open(ctx, db, nil)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	evs, err := st.Query(ctx, store.Filter{Kind: store.KindDecision})
	if err != nil {
		return nil, err
	}
	ids := make(map[string]bool, len(evs))
	for _, e := range evs {
		ids[e.ID] = true
	}
	return ids, nil
}

// pct returns the p-th percentile of sorted (nearest rank).
func pct(sorted []time.Duration, p int) time.Duration {
	i := (len(sorted)*p + 99) / 100
	return sorted[max(i-1, 0)]
}

// selfCPU returns the user and system time this process has used.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
