package sqlite

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/engine"
	"github.com/hippo-mem/hippo/local"
)

// ftsIDs returns the IDs of the chunks the full-text index finds for one
// word, in ID order.
func ftsIDs(t testing.TB, db *DB, word string) []string {
	t.Helper()
	rows, err := db.read.Query(`SELECT c.id FROM chunks_fts AS f JOIN chunks AS c ON c.rowid = f.rowid
		WHERE chunks_fts MATCH ? ORDER BY c.id`, ftsContent([]string{word}))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	ids := []string{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	return ids
}

func openFTSDB(t testing.TB) (*DB, *Memory) {
	t.Helper()
	db, err := Open(context.Background(), filepath.Join(t.TempDir(), "fts.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	m, err := db.Memory(MemoryOptions{AgentID: "agent-a", Embedder: local.NewEmbedder()})
	if err != nil {
		t.Fatal(err)
	}
	return db, m
}

func TestFTSKeptInSync(t *testing.T) {
	ctx := context.Background()
	db, m := openFTSDB(t)
	storeID := func(content string) string {
		t.Helper()
		res, err := m.StoreMemory(ctx, hippo.StoreInput{Content: content})
		if err != nil {
			t.Fatal(err)
		}
		return res.Chunk.ID
	}
	var first, second, imported string
	steps := []struct {
		name string
		do   func() error
		word string
		want func() []string
	}{
		{"insert", func() error { first = storeID("the zqxvortex migration plan"); return nil },
			"zqxvortex", func() []string { return []string{first} }},
		{"stemmed", func() error { return nil }, "migrations", func() []string { return []string{first} }},
		{"boost leaves the text alone", func() error {
			_, err := m.Recall(ctx, hippo.RecallInput{Query: "zqxvortex"})
			return err
		}, "zqxvortex", func() []string { return []string{first} }},
		{"update drops the old words", func() error {
			_, err := m.UpdateChunk(ctx, first, "the quokkaplan rollout")
			return err
		}, "zqxvortex", func() []string { return []string{} }},
		{"update adds the new words", func() error { return nil },
			"quokkaplan", func() []string { return []string{first} }},
		{"delete", func() error { _, err := m.DeleteChunk(ctx, first); return err },
			"quokkaplan", func() []string { return []string{} }},
		{"import", func() error {
			c := &hippo.Chunk{Content: "imported zqxvortex note", Embedding: make([]float32, local.Dimension)}
			c.Embedding[0] = 1
			err := db.InsertChunks(ctx, "agent-a", "", local.Model, []*hippo.Chunk{c})
			imported = c.ID
			return err
		}, "zqxvortex", func() []string { return []string{imported} }},
		{"forget", func() error {
			second = storeID("wombatcache eviction policy")
			res, err := m.Forget(ctx, hippo.ForgetInput{Description: "wombatcache eviction policy"})
			if err == nil && (len(res.Deleted) != 1 || res.Deleted[0].ID != second) {
				t.Errorf("forget deleted %+v", res.Deleted)
			}
			return err
		}, "wombatcache", func() []string { return []string{} }},
	}
	for _, s := range steps {
		if err := s.do(); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if got, want := ftsIDs(t, db, s.word), s.want(); !slices.Equal(got, want) {
			t.Errorf("%s: %q finds %v, want %v", s.name, s.word, got, want)
		}
	}
	if _, err := db.write.Exec(`INSERT INTO chunks_fts (chunks_fts) VALUES ('integrity-check')`); err != nil {
		t.Errorf("integrity-check: %v", err)
	}
}

// TestFTSForgetLeavesNoTrace checks that forgotten text is gone from the
// database and its log, full-text index included, not only unreachable.
func TestFTSForgetLeavesNoTrace(t *testing.T) {
	ctx := context.Background()
	db, m := openFTSDB(t)
	for _, c := range []string{"a memory to keep about gardening", "another to keep about cycling"} {
		if _, err := m.StoreMemory(ctx, hippo.StoreInput{Content: c}); err != nil {
			t.Fatal(err)
		}
	}
	secret := "the vault code is zqxjkvortexsecret"
	if _, err := m.StoreMemory(ctx, hippo.StoreInput{Content: secret}); err != nil {
		t.Fatal(err)
	}
	if got := ftsIDs(t, db, "zqxjkvortexsecret"); len(got) != 1 {
		t.Fatalf("secret not indexed: %v", got)
	}
	res, err := m.Forget(ctx, hippo.ForgetInput{Description: secret})
	if err != nil || len(res.Deleted) != 1 {
		t.Fatalf("forget: %+v, %v", res, err)
	}
	if got := ftsIDs(t, db, "zqxjkvortexsecret"); len(got) != 0 {
		t.Errorf("secret still indexed: %v", got)
	}
	for _, path := range []string{db.Path(), db.Path() + "-wal"} {
		data, err := os.ReadFile(path)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		// The index stores terms prefix-compressed: look for the tail.
		if bytes.Contains(data, []byte("jkvortexsecret")) {
			t.Errorf("%s still holds the forgotten text", filepath.Base(path))
		}
	}
}

// TestFTSMigrationIndexesExistingRows opens a database whose chunks
// predate the full-text index.
func TestFTSMigrationIndexesExistingRows(t *testing.T) {
	ctx := context.Background()
	db, m := openFTSDB(t)
	res, err := m.StoreMemory(ctx, hippo.StoreInput{Content: "written before the zqxlegacy index existed"})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`DROP TABLE chunks_fts`, `DROP TRIGGER chunks_fts_insert`, `DROP TRIGGER chunks_fts_delete`,
		`DROP TRIGGER chunks_fts_update`, `DELETE FROM hippo_migrations WHERE name LIKE '%0004_fts.sql'`} {
		if _, err := db.write.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	db, err = Open(ctx, db.Path(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if got := ftsIDs(t, db, "zqxlegacy"); !slices.Equal(got, []string{res.Chunk.ID}) {
		t.Errorf("after migrating: %v, want %s", got, res.Chunk.ID)
	}
}

// FuzzFTSQuery runs the MATCH expressions built from arbitrary text
// (ftsQuery's for conversation search, ftsContent's for recall, with and
// without the agent token) against a real FTS5 index: none may be an FTS5
// syntax error.
func FuzzFTSQuery(f *testing.F) {
	for _, s := range []string{
		"", "plain words", `"`, `""`, `"unterminated`, "AND", "OR NOT", "a AND OR b", "NEAR(a b, 2)",
		"content:x", "agent:a410", "{content agent}: x", "x*", "^x", "-x", "+x", "(", ")", "((a)", "a:b:c",
		"x NOT y", "\x00", "\u0301", "日本語のテキスト", "emoji 🦛 hippo", "STRIPE_API_KEY", "ﬁ ligature",
		strings.Repeat("word ", 200), "'; DROP TABLE chunks; --", "%_", "\\", "\n\t",
	} {
		f.Add(s)
	}
	ctx := context.Background()
	db, m := openFTSDB(f)
	for _, c := range []string{"plain words in a memory", "日本語のテキスト", "the hippo 🦛 remembers"} {
		if _, err := m.StoreMemory(ctx, hippo.StoreInput{Content: c}); err != nil {
			f.Fatal(err)
		}
	}
	agent := "agent:" + ftsToken("agent-a") + " AND "
	f.Fuzz(func(t *testing.T, s string) {
		var matches []string
		if q := ftsQuery(s); q != "" {
			matches = append(matches, q)
		}
		if words := engine.QueryWords(s); len(words) > 0 {
			matches = append(matches, ftsContent(words), agent+ftsContent(words))
			if _, _, err := db.rareWords(ctx, agent, words, ftsBudget); err != nil {
				t.Fatalf("rare words of %q: %v", s, err)
			}
			if _, _, err := db.searchFTS(ctx, agent+ftsContent(words), 10); err != nil {
				t.Fatalf("search %q: %v", s, err)
			}
		}
		for _, q := range matches {
			var n int
			if err := db.read.QueryRow(`SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH ?`, q).Scan(&n); err != nil {
				t.Fatalf("MATCH %q (from %q): %v", q, s, err)
			}
		}
	})
}

func TestFTSAgentPrefix(t *testing.T) {
	ctx := context.Background()
	db, m := openFTSDB(t)
	other, err := db.Memory(MemoryOptions{AgentID: "agent-b", Embedder: local.NewEmbedder()})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 6 {
		mem := other
		if i == 0 {
			mem = m
		}
		if _, err := mem.StoreMemory(ctx, hippo.StoreInput{Content: strings.Repeat("note ", i+1)}); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		agent string
		rows  int
		want  string
	}{
		{"agent-a", 1, "agent:" + ftsToken("agent-a") + " AND "}, // a minority: its own rows only
		{"agent-b", 5, ""},                // most of the database: the words alone
		{"agent-a", ftsAgentRows + 1, ""}, // too many rows to count the token's
	}
	for _, tt := range tests {
		if got, alone, err := db.ftsAgent(ctx, tt.agent, tt.rows, true); err != nil || got != tt.want || alone {
			t.Errorf("ftsAgent(%s, %d) = %q, %v, %v; want %q, false", tt.agent, tt.rows, got, alone, err, tt.want)
		}
	}
	if _, alone, err := db.ftsAgent(ctx, "agent-c", 0, true); err != nil || alone {
		t.Errorf("ftsAgent(agent-c) alone = %v, %v; want false", alone, err)
	}
	// Alone in an empty database, and with the only rows.
	db, m = openFTSDB(t)
	if _, alone, err := db.ftsAgent(ctx, "agent-a", 0, true); err != nil || !alone {
		t.Errorf("ftsAgent in an empty database: alone = %v, %v; want true", alone, err)
	}
	if _, err := m.StoreMemory(ctx, hippo.StoreInput{Content: "note"}); err != nil {
		t.Fatal(err)
	}
	if _, alone, err := db.ftsAgent(ctx, "agent-a", 1, true); err != nil || !alone {
		t.Errorf("ftsAgent with the only rows: alone = %v, %v; want true", alone, err)
	}
}

func TestSQLiteVarint(t *testing.T) {
	for _, tt := range []struct {
		in   []byte
		want uint64
		n    int
		ok   bool
	}{
		{[]byte{0x05, 0xff}, 5, 1, true},
		{[]byte{0x81, 0x00}, 128, 2, true},
		{[]byte{0x87, 0x68}, 1000, 2, true}, // 7·128 + 104
		{[]byte{0x81}, 0, 0, false},
		{nil, 0, 0, false},
		{[]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, ^uint64(0), 9, true},
	} {
		if got, n, ok := sqliteVarint(tt.in); got != tt.want || n != tt.n || ok != tt.ok {
			t.Errorf("sqliteVarint(% x) = %d, %d, %v; want %d, %d, %v", tt.in, got, n, ok, tt.want, tt.n, tt.ok)
		}
	}
	if sum, ok := varintSum([]byte{0x05, 0x87, 0x68, 0x01}); sum != 1006 || !ok {
		t.Errorf("varintSum = %v, %v; want 1006, true", sum, ok)
	}
	if _, ok := varintSum([]byte{0x05, 0x87}); ok {
		t.Error("varintSum of a cut varint is ok")
	}
}

// TestFTSRareWords checks that a query keeps its rarest words within the
// budget.
func TestFTSRareWords(t *testing.T) {
	ctx := context.Background()
	db, _ := openFTSDB(t)
	const budget = 10
	const n = 2*budget + 2
	texts := make([]string, n)
	for i := range texts {
		texts[i] = fmt.Sprintf("note %d", i)
		if i%2 == 0 {
			texts[i] += " common" // in half the rows: past the budget alone
		}
		if i%4 == 0 {
			texts[i] += " frequent" // in a quarter: within the budget with rare
		}
		if i < 3 {
			texts[i] += " rare"
		}
	}
	vec := make([]float32, local.Dimension) // the vectors play no part
	vec[0] = 1
	chunks := make([]*hippo.Chunk, n)
	for i := range chunks {
		chunks[i] = &hippo.Chunk{Content: texts[i], Embedding: vec}
	}
	if err := db.InsertChunks(ctx, "agent-a", "", local.Model, chunks); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		words []string
		want  []string
	}{
		{[]string{"rare"}, []string{"rare"}},
		{[]string{"absent", "rare"}, []string{"rare"}}, // no match: left out
		{[]string{"common", "frequent", "rare"}, []string{"rare", "frequent"}},
		{[]string{"frequent", "rare"}, []string{"rare", "frequent"}},
		{[]string{"common"}, nil},
	}
	for _, tt := range tests {
		got, _, err := db.rareWords(ctx, "", tt.words, budget)
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("rareWords(%q) = %q, %v; want %q", tt.words, got, err, tt.want)
		}
	}
}

// TestLeanIndexMigrations opens a database as the schema stood before
// migrations 0006 and 0007 (the seed's last-access index, the change log's
// agent index, dedup on the hex text) and checks that they apply over
// existing rows and that dedup still holds afterwards.
func TestLeanIndexMigrations(t *testing.T) {
	ctx := context.Background()
	db, m := openFTSDB(t)
	first, err := m.StoreMemory(ctx, hippo.StoreInput{Content: "stored before the migrations"})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`DROP INDEX idx_chunks_memory_dedup`,
		`CREATE UNIQUE INDEX idx_chunks_memory_dedup ON chunks(agent_id, scope, content_hash) WHERE kind = 'memory'`,
		`CREATE INDEX idx_chunks_last_accessed ON chunks(agent_id, last_accessed_at)`,
		`CREATE INDEX idx_changes_agent ON hippo_changes(agent_id, seq)`,
		`DELETE FROM hippo_migrations WHERE name LIKE '%0006_%' OR name LIKE '%0007_%'`,
	} {
		if _, err := db.write.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()
	db, err = Open(ctx, db.Path(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var sql string
	if err := db.read.QueryRow(`SELECT sql FROM sqlite_master WHERE name = 'idx_chunks_memory_dedup'`).Scan(&sql); err != nil ||
		!strings.Contains(sql, "substr(content_hash, 1, 32)") {
		t.Errorf("dedup index after migrating: %q, %v", sql, err)
	}
	var n int
	if err := db.read.QueryRow(`SELECT COUNT(*) FROM sqlite_master WHERE name IN ('idx_chunks_last_accessed', 'idx_changes_agent')`).Scan(&n); err != nil || n != 0 {
		t.Errorf("dropped indexes still there: %d, %v", n, err)
	}
	m, err = db.Memory(MemoryOptions{AgentID: m.AgentID(), Embedder: m.opts.Embedder})
	if err != nil {
		t.Fatal(err)
	}
	again, err := m.StoreMemory(ctx, hippo.StoreInput{Content: "stored before the migrations"})
	if err != nil {
		t.Fatal(err)
	}
	if again.Chunk.ID != first.Chunk.ID || again.Chunk.EncounterCount != 2 {
		t.Errorf("same content after migrating: %s (encounters %d), want %s strengthened", again.Chunk.ID, again.Chunk.EncounterCount, first.Chunk.ID)
	}
	// The index refuses a second row of the same content even past the
	// Go code's own check.
	if _, err := db.write.Exec(`INSERT INTO chunks (id, agent_id, scope, kind, content, content_hash, embedding, last_accessed_at, created_at)
		SELECT 'dup', agent_id, scope, kind, content, content_hash, embedding, last_accessed_at, created_at FROM chunks WHERE id = ?`, first.Chunk.ID); err == nil {
		t.Error("a duplicate memory was inserted")
	}
}
