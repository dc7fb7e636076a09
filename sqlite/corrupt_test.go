package sqlite_test

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/sqlite"
)

// damagedDB writes a database of 300 memories to a new file, closes it
// and returns its path.
func damagedDB(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "hippo.db")
	db, err := sqlite.Open(ctx, path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var chunks []*hippo.Chunk
	for i := range 300 {
		chunks = append(chunks, &hippo.Chunk{Content: fmt.Sprintf("memory %d %s", i, strings.Repeat("filler ", 20)), Embedding: []float32{1, float32(i)}})
	}
	if err := db.InsertChunks(ctx, "a", "", "m", chunks); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// chunksPage is the byte offset of the chunks table's root page in the
// database at path: pages in use wherever the migrations put them.
func chunksPage(t *testing.T, path string) int64 {
	t.Helper()
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	var root, size int64
	if err := raw.QueryRow(`SELECT rootpage FROM sqlite_master WHERE name = 'chunks'`).Scan(&root); err != nil {
		t.Fatal(err)
	}
	if err := raw.QueryRow(`PRAGMA page_size`).Scan(&size); err != nil {
		t.Fatal(err)
	}
	return (root - 1) * size
}

// scribble overwrites n bytes of path at off with garbage.
func scribble(t *testing.T, path string, off int64, n int) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt(bytes.Repeat([]byte{0xA5}, n), off); err != nil {
		t.Fatal(err)
	}
}

// TestDamagedDatabase: a database with damaged pages is reported as such,
// naming the file and saying what to do, and is not written to: with
// damage in the middle, the first write (VerifyBeforeWrite) finds it and
// is refused, and Ping (/health) reports it once CheckIntegrity has run;
// with a damaged header, Open refuses the file.
func TestDamagedDatabase(t *testing.T) {
	ctx := context.Background()
	t.Run("middle pages", func(t *testing.T) {
		path := damagedDB(t)
		scribble(t, path, chunksPage(t, path), 3*4096) // the chunks table's b-tree pages, in use
		before, _ := os.ReadFile(path)
		db, err := sqlite.Open(ctx, path, sqlite.Options{VerifyBeforeWrite: true})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		m, err := db.Memory(sqlite.MemoryOptions{AgentID: "a", Embedder: fixedEmbedder{}})
		if err != nil {
			t.Fatal(err)
		}
		_, err = m.AppendBlock(ctx, "persona", "Written into a damaged file?")
		if hippo.ErrorCode(err) != hippo.EUNAVAILABLE || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "integrity_check") ||
			!strings.Contains(err.Error(), "export") {
			t.Errorf("write into a damaged database: %v, want %s naming %s and the remedy", err, hippo.EUNAVAILABLE, path)
		}
		if err := db.Ping(ctx); hippo.ErrorCode(err) != hippo.EUNAVAILABLE || !strings.Contains(err.Error(), "damaged") {
			t.Errorf("Ping after the damage was found: %v", err)
		}
		db.Close()
		if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
			t.Error("the damaged file was written to")
		}

		// A server checks in the background: Ping reports it then.
		db2, err := sqlite.Open(ctx, path, sqlite.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer db2.Close()
		if err := db2.CheckIntegrity(ctx); hippo.ErrorCode(err) != hippo.EUNAVAILABLE || !strings.Contains(err.Error(), path) {
			t.Errorf("CheckIntegrity: %v", err)
		}
		if err := db2.Ping(ctx); hippo.ErrorCode(err) != hippo.EUNAVAILABLE {
			t.Errorf("Ping after CheckIntegrity: %v", err)
		}
	})
	t.Run("header", func(t *testing.T) {
		path := damagedDB(t)
		scribble(t, path, 16, 84) // past the magic string: the header's fields
		before, _ := os.ReadFile(path)
		_, err := sqlite.Open(ctx, path, sqlite.Options{})
		if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "integrity_check") ||
			strings.Contains(hippo.ErrorMessage(err), "internal error") {
			t.Errorf("Open of a database with a damaged header: %v, want it named, with the remedy", err)
		}
		if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
			t.Error("the damaged file was written to")
		}
	})
	t.Run("healthy", func(t *testing.T) {
		path := damagedDB(t)
		db, err := sqlite.Open(ctx, path, sqlite.Options{VerifyBeforeWrite: true})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if err := db.CheckIntegrity(ctx); err != nil {
			t.Errorf("CheckIntegrity of a sound database: %v", err)
		}
		m, _ := db.Memory(sqlite.MemoryOptions{AgentID: "a", Embedder: fixedEmbedder{}})
		if _, err := m.AppendBlock(ctx, "persona", "Fine."); err != nil {
			t.Errorf("write into a sound database: %v", err)
		}
	})
}

// fixedEmbedder embeds everything as one 2-dimension vector.
type fixedEmbedder struct{}

func (fixedEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i := range out {
		out[i] = []float32{1, 0}
	}
	return out, nil
}
func (fixedEmbedder) Model() string  { return "m" }
func (fixedEmbedder) Dimension() int { return 2 }
