package sqlite_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/hippo-mem/hippo/sqlite"
)

// TestNewFilesPrivate: memory is private. A database Open creates lives in
// a directory only its owner may enter (when Open creates that too), and
// the file, its WAL and its shared-memory file are readable by the owner
// only, whatever the umask lets through.
func TestNewFilesPrivate(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	dir := filepath.Join(root, "hippo")
	path := filepath.Join(dir, "hippo.db")
	db, err := sqlite.Open(ctx, path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// A write, so that the WAL and the shared-memory file exist.
	m, err := db.Memory(sqlite.MemoryOptions{AgentID: "a"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.AppendBlock(ctx, "persona", "Private."); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path string
		want os.FileMode
	}{
		{dir, os.ModeDir | 0o700},
		{path, 0o600},
		{path + "-wal", 0o600},
		{path + "-shm", 0o600},
	}
	for _, tt := range tests {
		st, err := os.Stat(tt.path)
		if err != nil {
			t.Errorf("%s: %v", tt.path, err)
			continue
		}
		if st.Mode() != tt.want {
			t.Errorf("%s: mode %v, want %v", filepath.Base(tt.path), st.Mode(), tt.want)
		}
	}
	// A directory that exists is left as it is; the file is still private.
	shared := filepath.Join(root, "shared")
	if err := os.Mkdir(shared, 0o755); err != nil {
		t.Fatal(err)
	}
	db2, err := sqlite.Open(ctx, filepath.Join(shared, "h.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	db2.Close()
	if st, err := os.Stat(shared); err != nil || st.Mode().Perm() != 0o755 {
		t.Errorf("existing directory: %v %v, want it left at 0755", st.Mode(), err)
	}
	if st, err := os.Stat(filepath.Join(shared, "h.db")); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("file in an existing directory: %v %v, want 0600", st.Mode(), err)
	}
}
