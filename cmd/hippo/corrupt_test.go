package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/local"
	"github.com/hippo-mem/hippo/sqlite"
)

// TestDamagedDatabaseReported: with pages in the middle of the file
// damaged, `hippo store` is refused, naming the file and what to do, and
// leaves it as it was; `hippo serve` says so at /health.
func TestDamagedDatabaseReported(t *testing.T) {
	c := newCLI(t)
	db, err := sqlite.Open(context.Background(), c.db, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var chunks []*hippo.Chunk
	for i := range 300 {
		v := make([]float32, 100) // the offline GloVe embedder's, which the tests' HIPPO_EMBEDDER names
		v[i%100] = 1
		chunks = append(chunks, &hippo.Chunk{ID: fmt.Sprintf("C%03d", i), Kind: hippo.KindMemory,
			Content: fmt.Sprintf("memory %d %s", i, strings.Repeat("filler ", 30)), Embedding: v})
	}
	if err := db.InsertChunks(context.Background(), "a", "", local.Model, chunks); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if r := c.run("store", "--agent", "a", "a sound file takes this"); r.code != 0 {
		t.Fatalf("hippo store into the sound file: %s", r)
	}
	// The chunks table's b-tree from its root page on: pages in use,
	// wherever the migrations put them.
	raw, err := sql.Open("sqlite", c.db)
	if err != nil {
		t.Fatal(err)
	}
	var root, pageSize int64
	err = raw.QueryRow(`SELECT rootpage FROM sqlite_master WHERE name = 'chunks'`).Scan(&root)
	if err == nil {
		err = raw.QueryRow(`PRAGMA page_size`).Scan(&pageSize)
	}
	raw.Close()
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(c.db, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteAt(bytes.Repeat([]byte{0xA5}, int(3*pageSize)), (root-1)*pageSize)
	f.Close()
	before, _ := os.ReadFile(c.db)

	r := c.run("store", "--agent", "a", "written into a damaged file?")
	if r.code != 1 || !strings.Contains(r.stderr, c.db) || !strings.Contains(r.stderr, "integrity_check") || strings.Contains(r.stderr, "internal error") {
		t.Errorf("hippo store into a damaged database: want exit 1 naming it with the remedy, got %s", r)
	}
	if after, _ := os.ReadFile(c.db); !bytes.Equal(before, after) {
		t.Error("hippo store wrote into the damaged file")
	}
	// So do the commands that change what is there.
	for _, args := range [][]string{{"purge", "--force"}, {"delete", "--force", "C001"}} {
		r := c.run(args...)
		if r.code != 1 || !strings.Contains(r.stderr, c.db) || !strings.Contains(r.stderr, "integrity_check") {
			t.Errorf("hippo %v on a damaged database: want exit 1 naming it with the remedy, got %s", args, r)
		}
	}
	if after, _ := os.ReadFile(c.db); !bytes.Equal(before, after) {
		t.Error("purge or delete wrote into the damaged file")
	}

	lines := serveLines(t, c)
	base := regexp.MustCompile(`http://127\.0\.0\.1:\d+`).FindString(strings.Join(lines, "\n"))
	if base == "" {
		t.Fatalf("no URL printed:\n%s", strings.Join(lines, "\n"))
	}
	var status int
	var health map[string]string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		resp, err := http.Get(base + "/health")
		if err != nil {
			t.Fatal(err)
		}
		health = nil
		json.NewDecoder(resp.Body).Decode(&health)
		resp.Body.Close()
		if status = resp.StatusCode; status != http.StatusOK {
			break
		}
	}
	if status != http.StatusServiceUnavailable || health["db"] != "unavailable" || !strings.Contains(health["error"], "damaged") {
		t.Errorf("/health on a damaged database: %d %v", status, health)
	}
}
