package sqlite_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/sqlite"
	"github.com/hippo-mem/hippo/vector"
)

// FuzzImport feeds arbitrary files to Import on a database that already
// holds data. A file is imported whole or not at all: on any error the
// database is byte-for-byte what it was (its export is unchanged), and the
// error is one a user can act on (invalid or conflict), never an internal
// one. A file that imports once imports again as nothing but duplicates.
// The seeds run with the unit tests; testdata/fuzz/FuzzImport holds more.
func FuzzImport(f *testing.F) {
	ctx := context.Background()
	at := time.Date(2026, 1, 10, 12, 0, 0, 0, time.UTC)
	db, err := sqlite.Open(ctx, filepath.Join(f.TempDir(), "fuzz.db"), sqlite.Options{NoSync: true, Now: func() time.Time { return at }})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { db.Close() })
	v := func(i int) []float32 {
		x := make([]float32, 4)
		x[i%4] = 1
		return x
	}
	if err := db.InsertChunks(ctx, "alice", "", "fuzz-model", []*hippo.Chunk{
		{ID: "A1", Kind: hippo.KindMemory, Content: "We chose SQLite", Embedding: v(0)},
		{ID: "A2", Kind: hippo.KindFact, Content: "User lives in Oslo", Embedding: v(1)},
	}); err != nil {
		f.Fatal(err)
	}
	var own bytes.Buffer
	if _, err := db.Export(ctx, &own, sqlite.ExportOptions{}); err != nil {
		f.Fatal(err)
	}
	emb := func(i int) string { return base64.StdEncoding.EncodeToString(vector.Encode(v(i))) }
	for _, seed := range []string{
		own.String(),
		`{"format":"hippo-export","version":1,"embedding_model":{"model":"fuzz-model","dimension":4},"blocks":[{"agent_id":"bob","scope":"","key":"persona","value":"terse","updated_at":"2026-01-01T00:00:00Z"}],"chunks":[{"id":"B1","agent_id":"bob","scope":"w","kind":"memory","content":"hello","embedding_base64":"` + emb(2) + `","metadata":{"tags":["x"]},"running_intensity":0.5,"encounter_count":2,"access_count":1,"last_accessed_at":"2026-01-02T00:00:00Z","superseded_by":null,"superseded_at":null,"created_at":"2026-01-01T00:00:00Z"}]}`,
		`{"version":1,"agentId":"carol","blocks":[{"key":"human","scope":"","updatedAt":"2026-01-01 10:00:00","value":"likes tea"}],"chunks":[{"id":"C1","kind":"fact","content":"User likes tea","embedding_base64":"` + emb(3) + `","metadata":"{\"source\":\"ts\"}"}]}`,
		`{"version":1,"agentId":"carol","chunks":[{"id":"C2","kind":"fact","content":"x","embedding_base64":"AAAAAAAAAAAAAAAAAAAAAA=="}]}`,
		`{"version":1,"agentId":"carol","chunks":[{"id":"C3","kind":"fact","content":"nan","embedding_base64":"AADAfwAAAAAAAAAAAAAAAA=="}]}`,
		`{"format":"hippo-export","version":1,"embedding_model":{"model":"other","dimension":4},"chunks":[{"id":"D1","agent_id":"d","kind":"fact","content":"x","embedding_base64":"` + emb(0) + `"}]}`,
		`{"format":"hippo-export","version":1,"chunks":[{"id":"E1","agent_id":"e","kind":"memory","content":"a","embedding_base64":"` + emb(0) + `"},{"id":"E1","agent_id":"e","kind":"memory","content":"b","embedding_base64":"` + emb(1) + `"}],"embedding_model":{"model":"fuzz-model","dimension":4}}`,
		`{"version":2}`, `{"format":"other","version":1}`, `[]`, `{`, `{"version":1}{}`, `{"version":1,"chunks":{}}`,
		`{"version":1,"agentId":"a\u0000b"}`, `{"version":1,"agentId":"x","chunks":[{"id":"","kind":"fact"}]}`,
		`{"version":1,"agentId":"x","chunks":[{"id":"Z","kind":"fact","content":"c","embedding_base64":"` + emb(0) + `","running_intensity":1e309}]}`,
		`{"version":1,"agentId":"x","chunks":[{"id":"Z","kind":"memory","content":"c","embedding_base64":"` + emb(0) + `","encounter_count":-1}]}`,
		`{"version":1,"agentId":"x","chunks":[{"id":"Z","kind":"memory","content":"c","embedding_base64":"` + emb(0) + `","created_at":"yesterday"}]}`,
		`{"version":1,"agentId":"x","chunks":[{"id":"Z","kind":"memory","content":"c","embedding_base64":"` + emb(0) + `","metadata":"[1,2]"}]}`,
		`{"version":1,"agentId":"x","blocks":[{"key":"","value":"v"}]}`,
		`{"version":1,"agentId":"x","blocks":[{"key":"k","scope":"s\u0001","value":"v"}]}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var before bytes.Buffer
		if _, err := db.Export(ctx, &before, sqlite.ExportOptions{}); err != nil {
			t.Fatal(err)
		}
		res, err := db.Import(ctx, bytes.NewReader(data), sqlite.ImportOptions{Model: "fuzz-model"})
		if err != nil {
			if code := hippo.ErrorCode(err); code != hippo.EINVALID && code != hippo.ECONFLICT {
				t.Fatalf("%q: %s error: %v", data, code, err)
			}
			var after bytes.Buffer
			if _, err := db.Export(ctx, &after, sqlite.ExportOptions{}); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(before.Bytes(), after.Bytes()) {
				t.Fatalf("%q: the failed import (%v) changed the database", data, err)
			}
			return
		}
		if _, err := json.Marshal(res); err != nil {
			t.Fatal(err)
		}
		again, err := db.Import(ctx, bytes.NewReader(data), sqlite.ImportOptions{Model: "fuzz-model"})
		if err != nil || again.Chunks != 0 || again.Blocks != 0 {
			t.Fatalf("%q: a second import inserted %+v, %v", data, again, err)
		}
	})
}
