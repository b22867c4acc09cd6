// Package hooksfile edits the JSON hook configuration files of the harnesses that keep their
// hooks in one ("hooks" → event → matcher groups → handlers: Claude Code's and Gemini CLI's
// settings.json, Codex's hooks.json) in place: other keys kept byte for byte and in order,
// indentation kept, the file replaced atomically with its mode. It also quotes and parses the
// hook command lines, to tell stopgate's handlers from everyone else's.
package hooksfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ErrNotHookCommand is returned (wrapped) by Install for a command IsHookCommand does not
// recognise: Uninstall could not find it again.
var ErrNotHookCommand = errors.New("not a stopgate hook command")

// HookCommand returns the shell command line that runs `exe hook harness args...`, each word
// quoted for a POSIX shell.
func HookCommand(exe, harness string, args []string) string {
	words := append([]string{exe, "hook", harness}, args...)
	for i, w := range words {
		words[i] = ShellQuote(w)
	}
	return strings.Join(words, " ")
}

// IsHookCommand reports whether the command line runs `stopgate hook harness`: after any
// VAR=value assignments, a program whose file name begins with "stopgate", then the words hook
// and harness.
func IsHookCommand(command, harness string) bool {
	words, ok := ShellWords(command)
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

// File is what one harness's hooks file adds to the settings core: the error its
// problems wrap, the events stopgate's handler goes under, how to tell that handler from
// others, and the handler to add.
type File struct {
	Err        error
	Events     []string
	Ours       func(command string) bool
	NewHandler func(command string) Object
}

// Install makes command the one stopgate handler of each of f's events in the file at path,
// creating it if need be, and reports whether the file changed.
func (f File) Install(path, command string) (bool, error) {
	if !f.Ours(command) {
		return false, fmt.Errorf("%w: %q", ErrNotHookCommand, command)
	}
	return f.edit(path, true, func(hooks *Object, event string) (bool, error) {
		return installHandler(hooks, event, command, f.Ours, f.NewHandler)
	})
}

// Uninstall removes the stopgate handlers of f's events from the file at path, and reports
// whether the file changed.
func (f File) Uninstall(path string) (bool, error) {
	return f.edit(path, false, func(hooks *Object, event string) (bool, error) {
		return uninstallHandlers(hooks, event, f.Ours)
	})
}

// edit applies editEvent to each of f's events in the "hooks" object of the file at path.
func (f File) edit(path string, create bool, editEvent func(hooks *Object, event string) (bool, error)) (bool, error) {
	return EditSettings(path, create, f.Err, func(hooks *Object) (bool, error) {
		changed := false
		for _, event := range f.Events {
			c, err := editEvent(hooks, event)
			if err != nil {
				return false, err
			}
			changed = changed || c
		}
		return changed, nil
	})
}

// EditSettings reads the settings file, hands its "hooks" object to edit, and writes the file
// back if edit changed it. A "hooks" object edit leaves empty is removed if edit changed it.
// A file that cannot be edited is an error wrapping invalid (the harness's sentinel).
func EditSettings(path string, create bool, invalid error, edit func(hooks *Object) (bool, error)) (bool, error) {
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
	var top Object
	if len(bytes.TrimSpace(data)) > 0 {
		if top, err = DecodeObject(data); err != nil {
			return false, fmt.Errorf("%s:%s %w: %w", path, jsonErrorPosition(data), invalid, err)
		}
	}
	var hooks Object
	i := top.index("hooks")
	if i >= 0 && !isNull(BytesOf(top[i].Node)) {
		if hooks, err = DecodeObject(BytesOf(top[i].Node)); err != nil {
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
		top[i] = Member{Key: "hooks", Node: hooks}
	default:
		top = append(top, Member{Key: "hooks", Node: hooks})
	}
	var b bytes.Buffer
	top.write(&b, IndentUnit(data), 0)
	b.WriteByte('\n')
	if err := WriteFileAtomic(path, b.Bytes(), mode); err != nil {
		return false, err
	}
	return true, nil
}

// installHandler makes command the one handler of event that ours recognises, adding
// NewHandler(command) in a matcher group of its own when there is none.
func installHandler(hooks *Object, event, command string, ours func(string) bool, NewHandler func(string) Object) (bool, error) {
	groups, i, err := eventGroups(*hooks, event)
	if err != nil {
		return false, err
	}
	found := false
	groups, changed := editGroups(groups, func(handlers []Node) ([]Node, bool) {
		var kept []Node
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
				obj.set("command", Quote(command))
				kept = append(kept, obj)
			}
		}
		return kept, touched
	})
	if !found {
		changed = true
		groups = append(groups, Object{{Key: "hooks", Node: Array{NewHandler(command)}}})
	}
	if changed {
		hooks.put(i, event, Array(groups))
	}
	return changed, nil
}

// uninstallHandlers removes the handlers of event that ours recognises, with the matcher
// groups and the event the removal leaves empty.
func uninstallHandlers(hooks *Object, event string, ours func(string) bool) (bool, error) {
	groups, i, err := eventGroups(*hooks, event)
	if err != nil || i < 0 {
		return false, err
	}
	groups, changed := editGroups(groups, func(handlers []Node) ([]Node, bool) {
		var kept []Node
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
		hooks.put(i, event, Array(groups))
	}
	return changed, nil
}

// editGroups hands the handlers of each matcher group in Claude Code's shape to rewrite, in
// order, and puts back the handlers it keeps when it reports a change, dropping a group it
// leaves empty. Groups of another shape are left alone. It returns the groups and whether
// any changed.
func editGroups(groups []Node, rewrite func(handlers []Node) (kept []Node, touched bool)) ([]Node, bool) {
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
		g.set("hooks", Array(kept))
		groups[gi] = g
	}
	return groups, changed
}

// eventGroups returns the matcher groups of event and the event's index in hooks (-1 when
// absent).
func eventGroups(hooks Object, event string) ([]Node, int, error) {
	i := hooks.index(event)
	if i < 0 || isNull(BytesOf(hooks[i].Node)) {
		return nil, i, nil
	}
	var groups []json.RawMessage
	if err := json.Unmarshal(BytesOf(hooks[i].Node), &groups); err != nil {
		return nil, i, fmt.Errorf("%q is not a list of matcher groups", event)
	}
	out := make([]Node, len(groups))
	for k, g := range groups {
		out[k] = Raw(g)
	}
	return out, i, nil
}

// groupHandlers decodes a matcher group; ok is false for one not in Claude Code's shape,
// which is left alone.
func groupHandlers(g Node) (Object, []Node, bool) {
	r, isRaw := g.(Raw)
	if !isRaw {
		return nil, nil, false
	}
	obj, err := DecodeObject(r)
	if err != nil {
		return nil, nil, false
	}
	k := obj.index("hooks")
	if k < 0 {
		return nil, nil, false
	}
	var hs []json.RawMessage
	if json.Unmarshal(BytesOf(obj[k].Node), &hs) != nil {
		return nil, nil, false
	}
	out := make([]Node, len(hs))
	for j, h := range hs {
		out[j] = Raw(h)
	}
	return obj, out, true
}

// commandHandler decodes a hook handler and reports whether it is a command hook ours
// recognises.
func commandHandler(h Node, ours func(string) bool) (Object, string, bool) {
	r, isRaw := h.(Raw)
	if !isRaw {
		return nil, "", false
	}
	// Keys are matched exactly, the last of a repeated one winning, as the harnesses (in
	// JavaScript and Rust) read them.
	obj, err := DecodeObject(r)
	if err != nil {
		return nil, "", false
	}
	var typ, command string
	if i := obj.index("type"); i < 0 || json.Unmarshal(BytesOf(obj[i].Node), &typ) != nil || typ != "command" {
		return nil, "", false
	}
	if i := obj.index("command"); i < 0 || json.Unmarshal(BytesOf(obj[i].Node), &command) != nil || !ours(command) {
		return nil, "", false
	}
	return obj, command, true
}

// Node is a JSON value being written back: raw bytes kept as read, or a value rebuilt here.
type Node interface {
	// write writes the value at depth levels of indentation of unit each.
	write(b *bytes.Buffer, unit string, depth int)
}

// Raw is a JSON value kept byte for byte.
type Raw json.RawMessage

func (r Raw) write(b *bytes.Buffer, _ string, _ int) { b.Write(r) }

// Array is a JSON array rebuilt here.
type Array []Node

func (a Array) write(b *bytes.Buffer, unit string, depth int) {
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

// Object is a JSON object with its members in order.
type Object []Member

// Member is one key and value of an Object.
type Member struct {
	Key  string
	Node Node
}

// BytesOf returns the bytes of a value kept as read; nil for one rebuilt here.
func BytesOf(n Node) json.RawMessage {
	r, _ := n.(Raw)
	return json.RawMessage(r)
}

func (o Object) write(b *bytes.Buffer, unit string, depth int) {
	if len(o) == 0 {
		b.WriteString("{}")
		return
	}
	b.WriteString("{\n")
	for i, m := range o {
		indent(b, unit, depth+1)
		b.Write(Quote(m.Key))
		b.WriteString(": ")
		m.Node.write(b, unit, depth+1)
		if i < len(o)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	indent(b, unit, depth)
	b.WriteByte('}')
}

// index returns the index of the last Member named key (the one a JSON reader takes), or -1.
func (o Object) index(key string) int {
	for i := len(o) - 1; i >= 0; i-- {
		if o[i].Key == key {
			return i
		}
	}
	return -1
}

// set replaces the value of key, or appends it.
func (o *Object) set(key string, n Node) {
	o.put(o.index(key), key, n)
}

// put replaces Member i (appends when i < 0).
func (o *Object) put(i int, key string, n Node) {
	if i < 0 {
		*o = append(*o, Member{Key: key, Node: n})
		return
	}
	(*o)[i] = Member{Key: key, Node: n}
}

func indent(b *bytes.Buffer, unit string, depth int) {
	for range depth {
		b.WriteString(unit)
	}
}

// IndentUnit returns the indentation of the first member of a JSON object written one member
// a line, so the members kept byte for byte still line up with the rest; two spaces, as
// Claude Code writes its settings, for anything else.
func IndentUnit(data []byte) string {
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

func Quote(s string) Raw {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return Raw(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}

// DecodeObject reads one JSON object, keeping its members' order and their values' bytes.
func DecodeObject(data []byte) (Object, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("not a JSON Object")
	}
	obj := Object{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, ok := tok.(string)
		if !ok {
			return nil, errors.New("not a JSON Object")
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		obj = append(obj, Member{Key: key, Node: Raw(v)})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the JSON Object")
	}
	return obj, nil
}

// WriteFileAtomic replaces path with data: a temporary file in the same directory, synced and
// renamed over it, so a reader (Claude Code) sees the old file or the new one, never half.
func WriteFileAtomic(path string, data []byte, mode fs.FileMode) error {
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

// ShellQuote quotes s as one word for a POSIX shell, leaving plain words as they are.
func ShellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=,@%+", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// ShellWords splits a command line into words as a POSIX shell would, for the quoting
// ShellQuote produces and the usual hand-written forms: single quotes, double quotes with
// backslash escapes, and backslash escapes outside quotes. ok is false for an unterminated
// Quote.
func ShellWords(s string) (words []string, ok bool) {
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

func isNull(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) == 0 || string(raw) == "null"
}
