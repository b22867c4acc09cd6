// Package tailfile is what the incremental session readers share (Claude Code's
// transcript.ReadTail, Codex's rollout.ReadTail, Gemini CLI's chat.ReadTail, Copilot CLI's
// ReadTail): opening a session file for a read that goes on from a checkpoint, telling
// whether a checkpoint's mark still describes the file (its path, identity and a fingerprint
// of the bytes before the offset), and scanning the lines appended since.
package tailfile

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"

	"github.com/stopgate/stopgate/internal/jsonl"
)

// FingerprintBytes is how much of the file's head, and of the bytes just before the offset,
// a Mark hashes.
const FingerprintBytes = 4 << 10

// Mark is where an incremental read got to in a file, and what the file was: its absolute
// path, its identity (device and inode, zero where the system does not say), the byte offset
// reached (the end of the last complete line) and Print, SHA-256 of the file's first
// FingerprintBytes, the offset, and the FingerprintBytes before it. A reader embeds it in
// its checkpoint; the JSON field names are the checkpoint's.
type Mark struct {
	Path   string            `json:"path"`
	Dev    uint64            `json:"dev"`
	Ino    uint64            `json:"ino"`
	Offset int64             `json:"offset"`
	Print  [sha256.Size]byte `json:"print"`
}

// File is a session file opened for an incremental read.
type File struct {
	*os.File
	// Abs is the file's absolute path; Dev and Ino its identity; Size its size when opened.
	Abs      string
	Dev, Ino uint64
	Size     int64
}

// Open opens the file at path for an incremental read.
func Open(path string) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	dev, ino := fileID(fi)
	return &File{File: f, Abs: abs, Dev: dev, Ino: ino, Size: fi.Size()}, nil
}

// Resumes reports whether m describes f as it is now: the same path and identity, an offset
// within the file, and the same fingerprint of the bytes before it. A file that was
// truncated, rewritten before the offset or replaced, or another path, does not.
func (f *File) Resumes(m Mark) bool {
	if m.Path != f.Abs || m.Dev != f.Dev || m.Ino != f.Ino || m.Offset < 0 || m.Offset > f.Size {
		return false
	}
	fp, err := Fingerprint(f.File, m.Offset)
	return err == nil && fp == m.Print
}

// Mark returns the mark of f at offset; ok is false when the fingerprint cannot be read.
func (f *File) Mark(offset int64) (m Mark, ok bool) {
	fp, err := Fingerprint(f.File, offset)
	if err != nil {
		return Mark{}, false
	}
	return Mark{Path: f.Abs, Dev: f.Dev, Ino: f.Ino, Offset: offset, Print: fp}, true
}

// Scan reads f's lines from byte start up to the size it had when opened, calling fn with
// each (its newline kept when it has one; a line over max bytes with tooLong set and no
// bytes). Before the first line that is not complete (no newline yet: being written, or too
// long to read), and at the end when every line was, it calls mark once with the offset
// after the last complete line: where the next read goes on from, with the state as it
// stands before that line. It returns the first read error.
func (f *File) Scan(start int64, max int, fn func(line []byte, tooLong bool), mark func(offset int64)) error {
	if _, err := f.Seek(start, io.SeekStart); err != nil {
		return fmt.Errorf("seeking to %d: %w", start, err)
	}
	offset, marked := start, false
	sc := jsonl.NewScanner(io.LimitReader(f.File, f.Size-start), max)
	for sc.Scan() {
		line, tooLong := sc.Line(), sc.TooLong()
		complete := !tooLong && len(line) > 0 && line[len(line)-1] == '\n'
		if !complete && !marked {
			mark(offset)
			marked = true
		}
		fn(line, tooLong)
		if complete {
			offset += int64(len(line))
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if !marked {
		mark(offset)
	}
	return nil
}

// fileID returns the device and inode of a file, zero where the system does not say.
func fileID(fi os.FileInfo) (dev, ino uint64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Dev), uint64(st.Ino)
	}
	return 0, 0
}

// Fingerprint hashes the first FingerprintBytes of f, offset, and the FingerprintBytes
// before offset.
func Fingerprint(f *os.File, offset int64) ([sha256.Size]byte, error) {
	h := sha256.New()
	head := min(offset, FingerprintBytes)
	buf := make([]byte, head)
	if _, err := f.ReadAt(buf, 0); err != nil && !errors.Is(err, io.EOF) {
		return [sha256.Size]byte{}, err
	}
	h.Write(buf)
	tailStart := max(0, offset-FingerprintBytes)
	buf = make([]byte, offset-tailStart)
	if _, err := f.ReadAt(buf, tailStart); err != nil && !errors.Is(err, io.EOF) {
		return [sha256.Size]byte{}, err
	}
	fmt.Fprintf(h, "\x00%d\x00", offset)
	h.Write(buf)
	var out [sha256.Size]byte
	copy(out[:], h.Sum(nil))
	return out, nil
}
