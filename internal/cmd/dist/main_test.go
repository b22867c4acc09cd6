package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func testFiles(t *testing.T) []File {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "stopgate")
	readme := filepath.Join(dir, "README.md")
	if err := os.WriteFile(bin, []byte("binary"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(readme, []byte("# readme\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return []File{{Name: "stopgate", Path: bin, Mode: 0o755}, {Name: "README.md", Path: readme, Mode: 0o644}}
}

func TestArchives(t *testing.T) {
	files := testFiles(t)
	mtime := time.Unix(1767225600, 0).UTC()
	want := map[string]string{"stopgate_0.1.0_linux_amd64/stopgate": "binary", "stopgate_0.1.0_linux_amd64/README.md": "# readme\n"}
	wantMode := map[string]os.FileMode{"stopgate_0.1.0_linux_amd64/stopgate": 0o755, "stopgate_0.1.0_linux_amd64/README.md": 0o644}
	dir := ArchiveName("v0.1.0", "linux", "amd64")
	if dir != "stopgate_0.1.0_linux_amd64" {
		t.Fatalf("ArchiveName = %q", dir)
	}

	t.Run("tar.gz", func(t *testing.T) {
		var a, b bytes.Buffer
		if err := WriteTarGz(&a, dir, files, mtime); err != nil {
			t.Fatal(err)
		}
		if err := WriteTarGz(&b, dir, files, mtime); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Error("two archives of the same files differ")
		}
		gz, err := gzip.NewReader(&a)
		if err != nil {
			t.Fatal(err)
		}
		tr := tar.NewReader(gz)
		got := map[string]string{}
		for {
			h, err := tr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if !h.ModTime.Equal(mtime) {
				t.Errorf("%s: mtime %v, want %v", h.Name, h.ModTime, mtime)
			}
			if h.Typeflag == tar.TypeDir {
				continue
			}
			data, _ := io.ReadAll(tr)
			got[h.Name] = string(data)
			if os.FileMode(h.Mode) != wantMode[h.Name] {
				t.Errorf("%s: mode %o, want %o", h.Name, h.Mode, wantMode[h.Name])
			}
		}
		assertEntries(t, got, want)
	})

	t.Run("zip", func(t *testing.T) {
		var a bytes.Buffer
		if err := WriteZip(&a, dir, files, mtime); err != nil {
			t.Fatal(err)
		}
		zr, err := zip.NewReader(bytes.NewReader(a.Bytes()), int64(a.Len()))
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, f := range zr.File {
			rc, err := f.Open()
			if err != nil {
				t.Fatal(err)
			}
			data, _ := io.ReadAll(rc)
			rc.Close()
			got[f.Name] = string(data)
			if f.Mode().Perm() != wantMode[f.Name] {
				t.Errorf("%s: mode %v, want %v", f.Name, f.Mode().Perm(), wantMode[f.Name])
			}
		}
		assertEntries(t, got, want)
	})

	t.Run("missing file", func(t *testing.T) {
		bad := append(files, File{Name: "LICENSE", Path: filepath.Join(t.TempDir(), "LICENSE")})
		if err := WriteTarGz(io.Discard, dir, bad, mtime); err == nil || !strings.Contains(err.Error(), "LICENSE") {
			t.Errorf("WriteTarGz with a missing file: %v, want an error naming it", err)
		}
	})
}

func assertEntries(t *testing.T, got, want map[string]string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("entries %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
}

func TestChecksums(t *testing.T) {
	got := string(checksums(map[string]string{"b.zip": "22", "a.tar.gz": "11"}))
	want := "11  a.tar.gz\n22  b.zip\n"
	if got != want {
		t.Errorf("checksums = %q, want %q", got, want)
	}
}
