package sqlite_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"testing"

	"github.com/hippo-mem/hippo/sqlite"
)

// The behaviour of export and import is checked on every store by
// storetest (export.go); this file keeps what only SQLite can say.

// TestExportCoversEveryColumn fails when a migration adds a column that
// the export format does not carry.
func TestExportCoversEveryColumn(t *testing.T) {
	e := newEnv(t)
	alice := e.memory("alice")
	store(t, alice, "Uses Redux for state. Moved off MobX last year.") // two sentences: parts too
	if _, err := alice.AppendBlock(context.Background(), "persona", "Terse."); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := e.db.Export(context.Background(), &buf, sqlite.ExportOptions{AgentID: "alice"}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	var doc struct {
		Blocks []map[string]json.RawMessage `json:"blocks"`
		Chunks []map[string]json.RawMessage `json:"chunks"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	raw, err := sql.Open("sqlite", "file:"+e.db.Path()+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	for table, rec := range map[string]map[string]json.RawMessage{"chunks": doc.Chunks[0], "memory_blocks": doc.Blocks[0]} {
		rows, err := raw.Query(`SELECT name FROM pragma_table_info(?)`, table)
		if err != nil {
			t.Fatal(err)
		}
		var cols []string
		for rows.Next() {
			var name string
			rows.Scan(&name)
			if name == "embedding" || name == "parts" {
				name += "_base64"
			}
			cols = append(cols, name)
			if _, ok := rec[name]; !ok {
				t.Errorf("export of %s lacks column %s", table, name)
			}
		}
		rows.Close()
		if len(rec) != len(cols) {
			t.Errorf("export of %s has %d fields for %d columns", table, len(rec), len(cols))
		}
	}
}
