package audit

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/harness"
	"github.com/stopgate/stopgate/termination"
)

// WriteJSON writes the report as one indented JSON document.
func WriteJSON(w io.Writer, rep *Report) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(rep); err != nil {
		return fmt.Errorf("audit: write json: %w", err)
	}
	return nil
}

// blockColumns are the checks that can hold a stop back, as the table's columns name them.
var blockColumns = []struct {
	check stopgate.Check
	name  string
}{
	{stopgate.CheckStall, "STALL"},
	{stopgate.CheckProcesses, "PROCS"},
	{stopgate.CheckSubagents, "SUBS"},
	{stopgate.CheckTodos, "TODOS"},
	{stopgate.CheckClaims, "CLAIMS"},
	{stopgate.CheckLivelock, "LOOP"},
	{stopgate.CheckStopMetadata, "TRUNC"},
	{stopgate.CheckError, "ERROR"},
}

// WriteTable writes the report for people: one row per session, named so it can be traced
// to its file (its path under the directory the audited files share; see labels), with its
// turns and stops, how the run ended, the stops stopgate would have blocked, by check, the
// stops parked on pending work, the nudges really given and what followed them; a total row;
// then the would-block stops one per line with the check and why (for a stall, the
// sentence), the nudges, the files that could not be read or were skipped, and an account of
// the files.
func WriteTable(w io.Writer, rep *Report) error {
	bw := bufio.NewWriter(w)
	header := []string{"SESSION", "TURNS", "STOPS", "BLOCK"}
	for _, c := range blockColumns {
		header = append(header, c.name)
	}
	header = append(header, "PARKED", "NUDGES", "ACTED", "AGAIN")
	if rep.HookLog {
		header = append(header, "SHADOW")
	}
	header = append(header, "RUN ENDED")
	rows := [][]string{header}
	row := func(label, ending string, c Counts) {
		cells := []string{label, itoa(c.Turns), itoa(c.Stops), itoa(c.WouldBlock)}
		for _, col := range blockColumns {
			cells = append(cells, itoa(c.WouldBlockByCheck[col.check]))
		}
		cells = append(cells, itoa(c.Parked), itoa(c.Nudges), itoa(c.NudgeOutcomes[Acted]), itoa(c.NudgeOutcomes[StoppedAgain]))
		if rep.HookLog {
			cells = append(cells, itoa(c.Shadow))
		}
		cells = append(cells, ending)
		rows = append(rows, cells)
	}
	names := labels(rep.Sessions)
	for i, s := range rep.Sessions {
		row(names[i], string(s.Ending), s.Counts)
	}
	total := fmt.Sprintf("TOTAL (%d sessions)", rep.Total.Sessions)
	if rep.Total.Sessions == 1 {
		total = "TOTAL (1 session)"
	}
	row(total, endings(rep.Total.Counts.RunEndings), rep.Total.Counts)
	writeGrid(bw, rows, map[int]bool{0: true, len(header) - 1: true})

	if rep.Total.Counts.WouldBlock > 0 {
		fmt.Fprintf(bw, "\nWould block (%d):\n", rep.Total.Counts.WouldBlock)
		lw := tabwriter.NewWriter(bw, 0, 0, 2, ' ', 0)
		for i, s := range rep.Sessions {
			for _, t := range s.Turns {
				if d := t.Decision; d != nil && d.Verdict != stopgate.Stop {
					why := t.Why
					if t.Sentence != "" {
						why = strconv.Quote(harness.Excerpt(t.Sentence, 100, true))
					}
					fmt.Fprintf(lw, "  %s\tturn %d\t%s\t%s\n", names[i], t.Index, d.Check, harness.Excerpt(why, 110, false))
				}
			}
		}
		if err := lw.Flush(); err != nil {
			return fmt.Errorf("audit: write table: %w", err)
		}
	}
	if rep.Total.Counts.Nudges > 0 {
		fmt.Fprintf(bw, "\nNudges given (%d):\n", rep.Total.Counts.Nudges)
		lw := tabwriter.NewWriter(bw, 0, 0, 2, ' ', 0)
		for i, s := range rep.Sessions {
			for _, n := range s.Nudges {
				fmt.Fprintf(lw, "  %s\tturn %d\t%s\t%d tool call(s)\t%s\n", names[i], n.Turn, n.Outcome, n.ToolCalls, strconv.Quote(harness.Excerpt(n.Text, 80, false)))
			}
		}
		if err := lw.Flush(); err != nil {
			return fmt.Errorf("audit: write table: %w", err)
		}
	}
	if rep.Total.Counts.Shadow > 0 {
		fmt.Fprintf(bw, "\nShadow would-blocks the hook recorded and let happen (%d):\n", rep.Total.Counts.Shadow)
		lw := tabwriter.NewWriter(bw, 0, 0, 2, ' ', 0)
		for i, s := range rep.Sessions {
			for _, b := range s.Shadow {
				fmt.Fprintf(lw, "  %s\t%s\t%s\t%s\n", names[i], b.Time.UTC().Format(time.RFC3339), b.Check, strconv.Quote(harness.Excerpt(b.Message, 110, false)))
			}
		}
		if err := lw.Flush(); err != nil {
			return fmt.Errorf("audit: write table: %w", err)
		}
	}
	if len(rep.Failures) > 0 {
		fmt.Fprintf(bw, "\nCould not read (%d):\n", len(rep.Failures))
		for _, f := range rep.Failures {
			fmt.Fprintf(bw, "  %s: %s\n", f.Path, f.Error)
		}
	}
	if len(rep.Files.SkippedFiles) > 0 {
		fmt.Fprintf(bw, "\nSkipped (%d):\n", len(rep.Files.SkippedFiles))
		for _, sk := range rep.Files.SkippedFiles {
			fmt.Fprintf(bw, "  %s: %s\n", sk.Path, sk.Reason)
		}
	}
	fmt.Fprintf(bw, "\nFiles: %d found, %d audited, %d read with their session, %d skipped%s, %d failed.\n",
		rep.Files.Found, rep.Files.Audited, rep.Files.WithParent, sum(rep.Files.Skipped), skipped(rep.Files.Skipped), rep.Files.Failed)
	if r := rep.Recorded; r != nil {
		fmt.Fprintf(bw, "Recorded: %d event(s) for %d turn(s); %d turn(s) were already recorded.\n", r.Events, r.Turns, r.Already)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("audit: write table: %w", err)
	}
	return nil
}

// labels names the sessions in the table so that each row can be traced to its file: the
// file's directory relative to the directory all the sessions' files share, then label's
// name, every UUID in the directory cut to its first group (a sub-agent's <session>/subagents
// directory is left out: its label names the session). Sessions whose names would still be
// the same (two files whose ids share a first group) are named by their whole relative path.
func labels(ss []SessionReport) []string {
	root := ""
	for i, s := range ss {
		d := filepath.Dir(filepath.Clean(s.Path))
		if i == 0 {
			root = d
			continue
		}
		for root != "." && root != string(filepath.Separator) && !within(d, root) {
			root = filepath.Dir(root)
		}
	}
	rel := func(s SessionReport) string {
		r, err := filepath.Rel(root, filepath.Clean(s.Path))
		if err != nil {
			return s.Path
		}
		return filepath.ToSlash(r)
	}
	out := make([]string, len(ss))
	seen := map[string]int{}
	for i, s := range ss {
		dir := path.Dir(rel(s))
		if s.Agent != "" {
			dir = strings.TrimSuffix(strings.TrimSuffix(dir, "/subagents"), "subagents")
			dir = strings.TrimSuffix(strings.TrimSuffix(dir, s.Session), "/")
		}
		name := label(s)
		if dir != "." && dir != "" {
			name = uuidRE.ReplaceAllStringFunc(dir, func(id string) string { return id[:8] }) + "/" + name
		}
		out[i] = name
		seen[name]++
	}
	for i, s := range ss {
		if seen[out[i]] > 1 {
			out[i] = rel(s)
			if s.Agent != "" {
				out[i] += " (" + s.Agent + ")"
			}
		}
	}
	return out
}

// within reports whether dir is root or under it.
func within(dir, root string) bool {
	r, err := filepath.Rel(root, dir)
	return err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator))
}

// uuidRE matches a UUID.
var uuidRE = regexp.MustCompile(`[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}`)

// label names a session in the table: its file's name (a long session id in it, the whole
// name or its end as in a Codex rollout's, cut to 8 characters), with the agent id after a
// slash for a sub-agent.
func label(s SessionReport) string {
	if s.Agent != "" {
		return short(s.Session) + "/" + s.Agent
	}
	name := filepath.Base(s.Path)
	for _, ext := range []string{".traj.json", ".traj", ".jsonl", ".json"} {
		if strings.HasSuffix(name, ext) && len(name) > len(ext) {
			name = strings.TrimSuffix(name, ext)
			break
		}
	}
	if s.Session != "" && strings.HasSuffix(name, s.Session) {
		return strings.TrimSuffix(name, s.Session) + short(s.Session)
	}
	return name
}

// short cuts a UUID-shaped id to its first group.
func short(id string) string {
	if len(id) == 36 && id[8] == '-' && id[13] == '-' {
		return id[:8]
	}
	return id
}

// endings renders run endings as "completed 5, cancelled 1", most frequent first.
func endings(m map[termination.Category]int) string {
	type kv struct {
		k termination.Category
		v int
	}
	var s []kv
	for k, v := range m {
		s = append(s, kv{k, v})
	}
	sort.Slice(s, func(i, j int) bool { return s[i].v > s[j].v || s[i].v == s[j].v && s[i].k < s[j].k })
	var parts []string
	for _, e := range s {
		parts = append(parts, fmt.Sprintf("%s %d", e.k, e.v))
	}
	return strings.Join(parts, ", ")
}

// skipped renders the skip reasons as " (unknown format 3, …)".
func skipped(m map[string]int) string {
	if len(m) == 0 {
		return ""
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

func itoa(n int) string { return strconv.Itoa(n) }

// writeGrid writes rows as columns two spaces apart, the columns in left left-aligned and the
// others right-aligned, with no trailing spaces.
func writeGrid(w io.Writer, rows [][]string, left map[int]bool) {
	var widths []int
	for _, r := range rows {
		for i, c := range r {
			if i == len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	var b strings.Builder
	for _, r := range rows {
		b.Reset()
		for i, c := range r {
			if i > 0 {
				b.WriteString("  ")
			}
			pad := strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c))
			if left[i] {
				b.WriteString(c)
				b.WriteString(pad)
			} else {
				b.WriteString(pad)
				b.WriteString(c)
			}
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
}
