package npmpack

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha512"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tarball builds a gzipped tarball of files and a directory entry.
func tarball(t *testing.T, files map[string]string) []byte {
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	if err := tw.WriteHeader(&tar.Header{Name: "package/", Typeflag: tar.TypeDir, Mode: 0o755}); err != nil {
		t.Fatal(err)
	}
	for name, body := range files {
		if err := tw.WriteHeader(&tar.Header{Name: name, Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(len(body))}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestFiles(t *testing.T) {
	raw := tarball(t, map[string]string{"package/model/a.json": `{"a":1}`, "package/LICENSE": "MIT"})
	path := filepath.Join(t.TempDir(), "pkg.tgz")
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	sum := sha512.Sum512(raw)
	integrity := "sha512-" + base64.StdEncoding.EncodeToString(sum[:])

	files, err := Files("pkg@1.0.0", integrity, path, "package/model/a.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2 || string(files["package/model/a.json"]) != `{"a":1}` || string(files["package/LICENSE"]) != "MIT" {
		t.Fatalf("files = %q", files)
	}
	for _, tt := range []struct {
		name, integrity string
		want            []string
		err             string
	}{
		{"wrong integrity", "sha512-AAAA", nil, "integrity sha512-"},
		{"missing file", integrity, []string{"package/model/b.json"}, "no package/model/b.json"},
	} {
		if _, err := Files("pkg@1.0.0", tt.integrity, path, tt.want...); err == nil || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("%s: error %v, want one mentioning %q", tt.name, err, tt.err)
		}
	}
}
