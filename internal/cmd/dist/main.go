// Command dist builds stopgate's release archives: one per platform (linux, darwin and
// windows, on amd64 and arm64), each holding the binary, README.md and VERSION, and a
// SHA256SUMS file beside them in the format `sha256sum -c` reads. `make dist` runs it.
//
// The binaries are built with CGO_ENABLED=0 (the SQLite driver, modernc.org/sqlite, is pure
// Go), -trimpath, and the commit set with -ldflags "-X main.commit=…", so `stopgate --version`
// names it. Archive entries carry one fixed time (-mtime, the commit's time) so that two
// builds of one commit give the same archives.
package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Platforms are the GOOS/GOARCH pairs a release is built for.
var Platforms = []string{
	"linux/amd64", "linux/arm64",
	"darwin/amd64", "darwin/arm64",
	"windows/amd64", "windows/arm64",
}

func main() {
	version := flag.String("version", "", "the release `VERSION` (the VERSION file's)")
	commit := flag.String("commit", "", "the `COMMIT` the binaries are built from")
	out := flag.String("out", "dist", "write the archives into `DIR`")
	mtime := flag.Int64("mtime", 0, "the modification time of every archive entry, in Unix `SECONDS`")
	platforms := flag.String("platforms", strings.Join(Platforms, ","), "the comma-separated GOOS/GOARCH `LIST` to build")
	flag.Parse()
	if *version == "" {
		fmt.Fprintln(os.Stderr, "dist: -version is required")
		os.Exit(2)
	}
	if err := run(*version, *commit, *out, time.Unix(*mtime, 0).UTC(), strings.Split(*platforms, ",")); err != nil {
		fmt.Fprintln(os.Stderr, "dist:", err)
		os.Exit(1)
	}
}

func run(version, commit, out string, mtime time.Time, platforms []string) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", out, err)
	}
	extra := []string{"README.md", "VERSION"}
	sums := map[string]string{}
	for _, p := range platforms {
		goos, goarch, ok := strings.Cut(p, "/")
		if !ok {
			return fmt.Errorf("platform %q: want GOOS/GOARCH", p)
		}
		name, err := buildOne(version, commit, out, goos, goarch, mtime, extra)
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		sum, err := sha256File(filepath.Join(out, name))
		if err != nil {
			return err
		}
		sums[name] = sum
		fmt.Println(filepath.Join(out, name))
	}
	return os.WriteFile(filepath.Join(out, "SHA256SUMS"), checksums(sums), 0o644)
}

// ArchiveName is the archive of one platform's release, without its extension:
// stopgate_0.1.0_linux_amd64. It is also the folder the archive's files are in.
func ArchiveName(version, goos, goarch string) string {
	return fmt.Sprintf("stopgate_%s_%s_%s", strings.TrimPrefix(version, "v"), goos, goarch)
}

// buildOne builds the binary for one platform and writes its archive into out, returning the
// archive's file name.
func buildOne(version, commit, out, goos, goarch string, mtime time.Time, extra []string) (string, error) {
	tmp, err := os.MkdirTemp("", "stopgate-dist-")
	if err != nil {
		return "", fmt.Errorf("temporary directory: %w", err)
	}
	defer os.RemoveAll(tmp)
	bin := "stopgate"
	if goos == "windows" {
		bin += ".exe"
	}
	ldflags := "-s -w"
	if commit != "" {
		ldflags += " -X main.commit=" + commit
	}
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags", ldflags, "-o", filepath.Join(tmp, bin), "./cmd/stopgate")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+goos, "GOARCH="+goarch)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go build: %w", err)
	}
	files := []File{{Name: bin, Path: filepath.Join(tmp, bin), Mode: 0o755}}
	for _, f := range extra {
		files = append(files, File{Name: f, Path: f, Mode: 0o644})
	}
	base := ArchiveName(version, goos, goarch)
	var buf bytes.Buffer
	name := base + ".tar.gz"
	if goos == "windows" {
		name = base + ".zip"
		err = WriteZip(&buf, base, files, mtime)
	} else {
		err = WriteTarGz(&buf, base, files, mtime)
	}
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(out, name), buf.Bytes(), 0o644); err != nil {
		return "", fmt.Errorf("writing %s: %w", name, err)
	}
	return name, nil
}

// File is one file to put in an archive: its name in the archive's folder, where it is read
// from, and its mode.
type File struct {
	Name, Path string
	Mode       os.FileMode
}

// WriteTarGz writes files into a gzipped tar under the folder dir, every entry stamped mtime.
func WriteTarGz(w io.Writer, dir string, files []File, mtime time.Time) error {
	gz, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return fmt.Errorf("gzip: %w", err)
	}
	tw := tar.NewWriter(gz)
	if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: dir + "/", Mode: 0o755, ModTime: mtime, Format: tar.FormatPAX}); err != nil {
		return fmt.Errorf("tar: %w", err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f.Path)
		if err != nil {
			return fmt.Errorf("reading %s: %w", f.Path, err)
		}
		h := &tar.Header{Typeflag: tar.TypeReg, Name: dir + "/" + f.Name, Mode: int64(f.Mode), Size: int64(len(data)), ModTime: mtime, Format: tar.FormatPAX}
		if err := tw.WriteHeader(h); err != nil {
			return fmt.Errorf("tar: %w", err)
		}
		if _, err := tw.Write(data); err != nil {
			return fmt.Errorf("tar: %w", err)
		}
	}
	if err := tw.Close(); err != nil {
		return fmt.Errorf("tar: %w", err)
	}
	if err := gz.Close(); err != nil {
		return fmt.Errorf("gzip: %w", err)
	}
	return nil
}

// WriteZip writes files into a zip archive under the folder dir, every entry stamped mtime.
func WriteZip(w io.Writer, dir string, files []File, mtime time.Time) error {
	zw := zip.NewWriter(w)
	for _, f := range files {
		data, err := os.ReadFile(f.Path)
		if err != nil {
			return fmt.Errorf("reading %s: %w", f.Path, err)
		}
		h := &zip.FileHeader{Name: dir + "/" + f.Name, Method: zip.Deflate, Modified: mtime}
		h.SetMode(f.Mode)
		fw, err := zw.CreateHeader(h)
		if err != nil {
			return fmt.Errorf("zip: %w", err)
		}
		if _, err := fw.Write(data); err != nil {
			return fmt.Errorf("zip: %w", err)
		}
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("zip: %w", err)
	}
	return nil
}

func sha256File(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("checksum: %w", err)
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:]), nil
}

// checksums formats sums (file name → hex SHA-256) as sha256sum writes them, sorted by name.
func checksums(sums map[string]string) []byte {
	names := make([]string, 0, len(sums))
	for n := range sums {
		names = append(names, n)
	}
	sort.Strings(names)
	var b bytes.Buffer
	for _, n := range names {
		fmt.Fprintf(&b, "%s  %s\n", sums[n], n)
	}
	return b.Bytes()
}
