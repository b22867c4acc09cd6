package hook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// HandlerTimeout is the timeout, in seconds, Install gives the handlers it adds: how long
// Claude Code waits for the hook before it cancels it and lets the stop proceed. It is a
// backstop well above the hook's own time budget (DefaultTimeout), and far below Claude Code's
// default of 600 s.
const HandlerTimeout = 60

// ErrSettings is returned (wrapped, with the file's name) for a settings file Install or
// Uninstall cannot edit: not JSON, not an object, or a "hooks" entry not in Claude Code's
// shape. The file is left as it was.
var ErrSettings = errors.New("invalid Claude Code settings")

// ErrNotHookCommand is returned (wrapped) by Install for a command IsHookCommand does not
// recognise: Uninstall could not find it again.
var ErrNotHookCommand = errors.New("not a stopgate hook command")

// Command returns the shell command line that runs `exe hook claude-code args...`, each word
// quoted for a POSIX shell (Claude Code runs command hooks through a shell).
func Command(exe string, args ...string) string {
	return hookCommand(exe, "claude-code", args)
}

// IsHookCommand reports whether the command line runs stopgate's Claude Code hook: after any
// VAR=value assignments, a program whose file name begins with "stopgate" (stopgate,
// stopgate.exe, a renamed stopgate-dev), then the words hook and claude-code. This is how
// Uninstall tells the handlers Install added from everyone else's.
func IsHookCommand(command string) bool {
	return isHookCommand(command, "claude-code")
}

// hookCommand returns the shell command line that runs `exe hook harness args...`, each word
// quoted for a POSIX shell.
func hookCommand(exe, harness string, args []string) string {
	words := append([]string{exe, "hook", harness}, args...)
	for i, w := range words {
		words[i] = shellQuote(w)
	}
	return strings.Join(words, " ")
}

// isHookCommand reports whether the command line runs `stopgate hook harness`: after any
// VAR=value assignments, a program whose file name begins with "stopgate", then the words hook
// and harness.
func isHookCommand(command, harness string) bool {
	words, ok := shellWords(command)
	if !ok {
		return false
	}
	for len(words) > 0 && isAssignment(words[0]) {
		words = words[1:]
	}
	if len(words) < 3 {
		return false
	}
	name := filepath.Base(strings.ReplaceAll(words[0], `\`, "/"))
	return strings.HasPrefix(name, "stopgate") && words[1] == "hook" && words[2] == harness
}

// hooksFile is what one harness's hooks file adds to the settings core: the error its
// problems wrap, the events stopgate's handler goes under, how to tell that handler from
// others, and the handler to add.
type hooksFile struct {
	err        error
	events     []string
	ours       func(command string) bool
	newHandler func(command string) object
}

// claudeCodeSettings is the Claude Code settings.json.
var claudeCodeSettings = hooksFile{
	err:    ErrSettings,
	events: []string{EventStop, EventSubagentStop},
	ours:   IsHookCommand,
	newHandler: func(command string) object {
		return object{
			{key: "type", node: quote("command")},
			{key: "command", node: quote(command)},
			{key: "timeout", node: raw(strconv.Itoa(HandlerTimeout))},
		}
	},
}

// install makes command the one stopgate handler of each of f's events in the file at path,
// creating it if need be, and reports whether the file changed.
func (f hooksFile) install(path, command string) (bool, error) {
	if !f.ours(command) {
		return false, fmt.Errorf("%w: %q", ErrNotHookCommand, command)
	}
	return f.edit(path, true, func(hooks *object, event string) (bool, error) {
		return installHandler(hooks, event, command, f.ours, f.newHandler)
	})
}

// uninstall removes the stopgate handlers of f's events from the file at path, and reports
// whether the file changed.
func (f hooksFile) uninstall(path string) (bool, error) {
	return f.edit(path, false, func(hooks *object, event string) (bool, error) {
		return uninstallHandlers(hooks, event, f.ours)
	})
}

// edit applies editEvent to each of f's events in the "hooks" object of the file at path.
func (f hooksFile) edit(path string, create bool, editEvent func(hooks *object, event string) (bool, error)) (bool, error) {
	return editSettings(path, create, f.err, func(hooks *object) (bool, error) {
		changed := false
		for _, event := range f.events {
			c, err := editEvent(hooks, event)
			if err != nil {
				return false, err
			}
			changed = changed || c
		}
		return changed, nil
	})
}

// Install adds command as a command hook for Stop and for SubagentStop to the Claude Code
// settings file at settingsPath, creating the file (and its directory) if it does not exist.
// It reports whether the file changed.
//
// Everything else is kept: other top-level keys byte for byte and in their order, other
// events and other handlers (re-indented at most). Installing again changes nothing; a
// stopgate handler already there with another command (a moved binary, other flags) is
// updated in place, and any second one removed. A file that is not valid JSON, or whose
// "hooks" is not in Claude Code's shape, is an error wrapping ErrSettings and is not written.
// The file is replaced atomically and keeps its permissions; a symbolic link is followed.
func Install(settingsPath string, command string) (changed bool, err error) {
	return claudeCodeSettings.install(settingsPath, command)
}

// Uninstall removes the handlers IsHookCommand recognises from the Stop and SubagentStop hooks
// of the Claude Code settings file at settingsPath, and reports whether the file changed.
// Matcher groups, events and the "hooks" object left empty by the removal are removed too;
// everything else is kept as Install keeps it. A missing file is no error and no change.
func Uninstall(settingsPath string) (changed bool, err error) {
	return claudeCodeSettings.uninstall(settingsPath)
}

// editSettings reads the settings file, hands its "hooks" object to edit, and writes the file
// back if edit changed it. A "hooks" object edit leaves empty is removed if edit changed it.
// A file that cannot be edited is an error wrapping invalid (the harness's sentinel).
func editSettings(path string, create bool, invalid error, edit func(hooks *object) (bool, error)) (bool, error) {
	if target, err := filepath.EvalSymlinks(path); err == nil {
		path = target
	}
	data, err := os.ReadFile(path)
	mode := fs.FileMode(0o644)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if !create {
			return false, nil
		}
		data = nil
	case err != nil:
		return false, err
	default:
		if info, err := os.Stat(path); err == nil {
			mode = info.Mode().Perm()
		}
	}
	var top object
	if len(bytes.TrimSpace(data)) > 0 {
		if top, err = decodeObject(data); err != nil {
			return false, fmt.Errorf("%s:%s %w: %w", path, jsonErrorPosition(data), invalid, err)
		}
	}
	var hooks object
	i := top.index("hooks")
	if i >= 0 && !isNull(bytesOf(top[i].node)) {
		if hooks, err = decodeObject(bytesOf(top[i].node)); err != nil {
			return false, fmt.Errorf("%s: %w: \"hooks\": %w", path, invalid, err)
		}
	}
	changed, err := edit(&hooks)
	if err != nil {
		return false, fmt.Errorf("%s: %w: %w", path, invalid, err)
	}
	if !changed {
		return false, nil
	}
	switch {
	case len(hooks) == 0 && i >= 0:
		top = append(top[:i], top[i+1:]...)
	case i >= 0:
		top[i] = member{key: "hooks", node: hooks}
	default:
		top = append(top, member{key: "hooks", node: hooks})
	}
	var b bytes.Buffer
	top.write(&b, indentUnit(data), 0)
	b.WriteByte('\n')
	if err := writeFileAtomic(path, b.Bytes(), mode); err != nil {
		return false, err
	}
	return true, nil
}

// installHandler makes command the one handler of event that ours recognises, adding
// newHandler(command) in a matcher group of its own when there is none.
func installHandler(hooks *object, event, command string, ours func(string) bool, newHandler func(string) object) (bool, error) {
	groups, i, err := eventGroups(*hooks, event)
	if err != nil {
		return false, err
	}
	found := false
	groups, changed := editGroups(groups, func(handlers []node) ([]node, bool) {
		var kept []node
		touched := false
		for _, h := range handlers {
			obj, cmd, isOurs := commandHandler(h, ours)
			switch {
			case !isOurs:
				kept = append(kept, h)
			case found: // a second stopgate handler: one is enough
				touched = true
			case cmd == command:
				found = true
				kept = append(kept, h)
			default:
				found, touched = true, true
				obj.set("command", quote(command))
				kept = append(kept, obj)
			}
		}
		return kept, touched
	})
	if !found {
		changed = true
		groups = append(groups, object{{key: "hooks", node: array{newHandler(command)}}})
	}
	if changed {
		hooks.put(i, event, array(groups))
	}
	return changed, nil
}

// uninstallHandlers removes the handlers of event that ours recognises, with the matcher
// groups and the event the removal leaves empty.
func uninstallHandlers(hooks *object, event string, ours func(string) bool) (bool, error) {
	groups, i, err := eventGroups(*hooks, event)
	if err != nil || i < 0 {
		return false, err
	}
	groups, changed := editGroups(groups, func(handlers []node) ([]node, bool) {
		var kept []node
		for _, h := range handlers {
			if _, _, isOurs := commandHandler(h, ours); !isOurs {
				kept = append(kept, h)
			}
		}
		return kept, len(kept) != len(handlers)
	})
	switch {
	case !changed:
	case len(groups) == 0:
		*hooks = append((*hooks)[:i], (*hooks)[i+1:]...)
	default:
		hooks.put(i, event, array(groups))
	}
	return changed, nil
}

// editGroups hands the handlers of each matcher group in Claude Code's shape to rewrite, in
// order, and puts back the handlers it keeps when it reports a change, dropping a group it
// leaves empty. Groups of another shape are left alone. It returns the groups and whether
// any changed.
func editGroups(groups []node, rewrite func(handlers []node) (kept []node, touched bool)) ([]node, bool) {
	changed := false
	for gi := 0; gi < len(groups); gi++ {
		g, handlers, ok := groupHandlers(groups[gi])
		if !ok {
			continue
		}
		kept, touched := rewrite(handlers)
		if !touched {
			continue
		}
		changed = true
		if len(kept) == 0 {
			groups = append(groups[:gi], groups[gi+1:]...)
			gi--
			continue
		}
		g.set("hooks", array(kept))
		groups[gi] = g
	}
	return groups, changed
}

// eventGroups returns the matcher groups of event and the event's index in hooks (-1 when
// absent).
func eventGroups(hooks object, event string) ([]node, int, error) {
	i := hooks.index(event)
	if i < 0 || isNull(bytesOf(hooks[i].node)) {
		return nil, i, nil
	}
	var groups []json.RawMessage
	if err := json.Unmarshal(bytesOf(hooks[i].node), &groups); err != nil {
		return nil, i, fmt.Errorf("%q is not a list of matcher groups", event)
	}
	out := make([]node, len(groups))
	for k, g := range groups {
		out[k] = raw(g)
	}
	return out, i, nil
}

// groupHandlers decodes a matcher group; ok is false for one not in Claude Code's shape,
// which is left alone.
func groupHandlers(g node) (object, []node, bool) {
	r, isRaw := g.(raw)
	if !isRaw {
		return nil, nil, false
	}
	obj, err := decodeObject(r)
	if err != nil {
		return nil, nil, false
	}
	k := obj.index("hooks")
	if k < 0 {
		return nil, nil, false
	}
	var hs []json.RawMessage
	if json.Unmarshal(bytesOf(obj[k].node), &hs) != nil {
		return nil, nil, false
	}
	out := make([]node, len(hs))
	for j, h := range hs {
		out[j] = raw(h)
	}
	return obj, out, true
}

// commandHandler decodes a hook handler and reports whether it is a command hook ours
// recognises.
func commandHandler(h node, ours func(string) bool) (object, string, bool) {
	r, isRaw := h.(raw)
	if !isRaw {
		return nil, "", false
	}
	// Keys are matched exactly, the last of a repeated one winning, as the harnesses (in
	// JavaScript and Rust) read them.
	obj, err := decodeObject(r)
	if err != nil {
		return nil, "", false
	}
	var typ, command string
	if i := obj.index("type"); i < 0 || json.Unmarshal(bytesOf(obj[i].node), &typ) != nil || typ != "command" {
		return nil, "", false
	}
	if i := obj.index("command"); i < 0 || json.Unmarshal(bytesOf(obj[i].node), &command) != nil || !ours(command) {
		return nil, "", false
	}
	return obj, command, true
}

// node is a JSON value being written back: raw bytes kept as read, or a value rebuilt here.
type node interface {
	// write writes the value at depth levels of indentation of unit each.
	write(b *bytes.Buffer, unit string, depth int)
}

// raw is a JSON value kept byte for byte.
type raw json.RawMessage

func (r raw) write(b *bytes.Buffer, _ string, _ int) { b.Write(r) }

// array is a JSON array rebuilt here.
type array []node

func (a array) write(b *bytes.Buffer, unit string, depth int) {
	if len(a) == 0 {
		b.WriteString("[]")
		return
	}
	b.WriteString("[\n")
	for i, v := range a {
		indent(b, unit, depth+1)
		v.write(b, unit, depth+1)
		if i < len(a)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	indent(b, unit, depth)
	b.WriteByte(']')
}

// object is a JSON object with its members in order.
type object []member

type member struct {
	key  string
	node node
}

// bytesOf returns the bytes of a value kept as read; nil for one rebuilt here.
func bytesOf(n node) json.RawMessage {
	r, _ := n.(raw)
	return json.RawMessage(r)
}

func (o object) write(b *bytes.Buffer, unit string, depth int) {
	if len(o) == 0 {
		b.WriteString("{}")
		return
	}
	b.WriteString("{\n")
	for i, m := range o {
		indent(b, unit, depth+1)
		b.Write(quote(m.key))
		b.WriteString(": ")
		m.node.write(b, unit, depth+1)
		if i < len(o)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	indent(b, unit, depth)
	b.WriteByte('}')
}

// index returns the index of the last member named key (the one a JSON reader takes), or -1.
func (o object) index(key string) int {
	for i := len(o) - 1; i >= 0; i-- {
		if o[i].key == key {
			return i
		}
	}
	return -1
}

// set replaces the value of key, or appends it.
func (o *object) set(key string, n node) {
	o.put(o.index(key), key, n)
}

// put replaces member i (appends when i < 0).
func (o *object) put(i int, key string, n node) {
	if i < 0 {
		*o = append(*o, member{key: key, node: n})
		return
	}
	(*o)[i] = member{key: key, node: n}
}

func indent(b *bytes.Buffer, unit string, depth int) {
	for range depth {
		b.WriteString(unit)
	}
}

// indentUnit returns the indentation of the first member of a JSON object written one member
// a line, so the members kept byte for byte still line up with the rest; two spaces, as
// Claude Code writes its settings, for anything else.
func indentUnit(data []byte) string {
	_, rest, ok := bytes.Cut(data, []byte("{"))
	if !ok {
		return "  "
	}
	rest = bytes.TrimLeft(rest, " \t\r")
	if len(rest) == 0 || rest[0] != '\n' {
		return "  "
	}
	rest = rest[1:]
	n := len(rest) - len(bytes.TrimLeft(rest, " \t"))
	if n == 0 || n > 8 {
		return "  "
	}
	return string(rest[:n])
}

func quote(s string) raw {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return raw(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}

// decodeObject reads one JSON object, keeping its members' order and their values' bytes.
func decodeObject(data []byte) (object, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("not a JSON object")
	}
	obj := object{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, ok := tok.(string)
		if !ok {
			return nil, errors.New("not a JSON object")
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		obj = append(obj, member{key: key, node: raw(v)})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the JSON object")
	}
	return obj, nil
}

// writeFileAtomic replaces path with data: a temporary file in the same directory, synced and
// renamed over it, so a reader (Claude Code) sees the old file or the new one, never half.
func writeFileAtomic(path string, data []byte, mode fs.FileMode) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	err = f.Chmod(mode)
	if err == nil {
		_, err = f.Write(data)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// shellQuote quotes s as one word for a POSIX shell, leaving plain words as they are.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=,@%+", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// shellWords splits a command line into words as a POSIX shell would, for the quoting
// shellQuote produces and the usual hand-written forms: single quotes, double quotes with
// backslash escapes, and backslash escapes outside quotes. ok is false for an unterminated
// quote.
func shellWords(s string) (words []string, ok bool) {
	var w strings.Builder
	in := false // inside a word
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if in {
				words, in = append(words, w.String()), false
				w.Reset()
			}
			continue
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, false
			}
			w.WriteString(s[i+1 : i+1+j])
			i += j + 1
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`\n", s[i+1]) >= 0 {
					i++
				}
				w.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, false
			}
		case c == '\\' && i+1 < len(s):
			i++
			w.WriteByte(s[i])
		default:
			w.WriteByte(c)
		}
		in = true
	}
	if in {
		words = append(words, w.String())
	}
	return words, true
}

// isAssignment reports whether w is a VAR=value word.
func isAssignment(w string) bool {
	name, _, ok := strings.Cut(w, "=")
	if !ok || name == "" {
		return false
	}
	for i, c := range name {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}
