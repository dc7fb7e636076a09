package sqlite_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/local"
	"github.com/hippo-mem/hippo/mock"
	"github.com/hippo-mem/hippo/openai"
	"github.com/hippo-mem/hippo/sqlite"
	"github.com/hippo-mem/hippo/vector"
)

// words make the chunks' content: real words, so that the offline GloVe
// embedder gives each chunk a vector of its own.
var words = strings.Fields(`apple river mountain coffee garden music teacher
	window doctor bicycle ocean summer winter kitchen library market station
	letter camera forest island bridge engine pencil guitar village planet
	basket candle desert harbor jacket ladder mirror needle orange pocket
	rabbit saddle tunnel violin wallet yellow anchor blanket castle dragon`)

// seedChunks inserts n chunks with IDs C00000... in ID order, alternately
// of alice and bob, with vectors of the mock server's model.
func seedChunks(t testing.TB, e *env, n int) {
	t.Helper()
	ctx := context.Background()
	for start := 0; start < n; start += 5000 {
		byAgent := map[string][]*hippo.Chunk{}
		for i := start; i < min(start+5000, n); i++ {
			content := fmt.Sprintf("%s %s %s %s", words[i%len(words)], words[i/len(words)%len(words)],
				words[i/7%len(words)], words[i/131%len(words)])
			agent := []string{"alice", "bob"}[i%2]
			byAgent[agent] = append(byAgent[agent], &hippo.Chunk{ID: fmt.Sprintf("C%05d", i), Content: content,
				Embedding: mock.HashVector(content, testDim)})
		}
		for agent, chunks := range byAgent {
			if err := e.db.InsertChunks(ctx, agent, "", e.emb.Model(), chunks); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// rawDB opens the file without the sqlite package, to look at what it
// stores.
func rawDB(t testing.TB, db *sqlite.DB) *sql.DB {
	t.Helper()
	raw, err := sql.Open("sqlite", "file:"+db.Path()+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { raw.Close() })
	return raw
}

func count(t testing.TB, raw *sql.DB, query string, args ...any) int {
	t.Helper()
	var n int
	if err := raw.QueryRow(query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

func recallFirst(t testing.TB, m *sqlite.Memory, query string) string {
	t.Helper()
	ids := recallIDs(t, m, query)
	if len(ids) == 0 {
		t.Fatalf("recall %q found nothing", query)
	}
	return ids[0]
}

// What a re-embedding does is checked on every store by storetest
// (reembed.go); the tests here look at SQLite's own state and index.

// TestReembedLeavesNoState: a re-embedding to the current model creates
// no state, an interrupted one keeps what it needs to resume, and once
// resumed and finished none is left (the shadow tables and the recorded
// target).
func TestReembedLeavesNoState(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	seedChunks(t, e, 50)
	raw := rawDB(t, e.db)
	state := func() int {
		t.Helper()
		return count(t, raw, `SELECT COUNT(*) FROM sqlite_master WHERE name LIKE 'hippo_reembed%'`) +
			count(t, raw, `SELECT COUNT(*) FROM hippo_meta WHERE key = 'reembed_target'`)
	}
	if res, err := e.db.Reembed(ctx, e.emb, sqlite.ReembedOptions{}); err != nil || !res.Unchanged {
		t.Fatalf("reembed to the current model = %+v, %v", res, err)
	}
	if got := state(); got != 0 {
		t.Errorf("a no-op left %d pieces of re-embedding state", got)
	}
	a, _ := newMockEmbedder(t, "model-a", 16)
	cctx, cancel := context.WithCancel(ctx)
	_, err := e.db.Reembed(cctx, a, sqlite.ReembedOptions{BatchSize: 10, Progress: func(done, _ int) {
		if done >= 20 {
			cancel()
		}
	}})
	cancel()
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted: %v", err)
	}
	if state() == 0 {
		t.Error("an interrupted re-embedding kept no state to resume from")
	}
	if res, err := e.db.Reembed(ctx, a, sqlite.ReembedOptions{}); err != nil || res.Reused != 20 {
		t.Fatalf("resumed: %+v, %v", res, err)
	}
	if got := state(); got != 0 {
		t.Errorf("%d pieces of re-embedding state left", got)
	}
}

// newMockEmbedder is an OpenAI-compatible embedder of model over a fake
// server of dim dimensions.
func newMockEmbedder(t testing.TB, model string, dim int) (*openai.Embedder, *mock.Server) {
	t.Helper()
	srv := mock.NewServer(t, dim)
	emb, err := openai.NewEmbedder(openai.Config{BaseURL: srv.BaseURL(), Model: model})
	if err != nil {
		t.Fatal(err)
	}
	return emb, srv
}

// TestReembedSeenByAnotherProcess switches the model through one handle
// while another, which had loaded its index and seen the old lock, keeps
// serving.
func TestReembedSeenByAnotherProcess(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	seedChunks(t, e, 200)
	other := openDB(t, e.db.Path(), e.clock)
	glove := local.NewEmbedder()
	memory := func(emb hippo.Embedder) *sqlite.Memory {
		m, err := other.Memory(sqlite.MemoryOptions{AgentID: "alice", Embedder: emb})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	oldM, newM := memory(e.emb), memory(glove)
	target, _ := other.Chunk(ctx, "alice", "C00100")
	if got := recallFirst(t, oldM, target.Content); got != target.ID {
		t.Fatalf("recall before the switch: first %s", got)
	}
	_, err := newM.Recall(ctx, hippo.RecallInput{Query: "apple"})
	wantCode(t, err, hippo.ECONFLICT)

	if _, err := e.db.Reembed(ctx, glove, sqlite.ReembedOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := recallFirst(t, newM, target.Content); got != target.ID {
		t.Errorf("new-model recall through the other handle: first %s, want %s", got, target.ID)
	}
	for _, err := range []error{
		func() error { _, err := oldM.Recall(ctx, hippo.RecallInput{Query: "apple"}); return err }(),
		func() error {
			_, err := oldM.StoreMemory(ctx, hippo.StoreInput{Content: "late old-model write"})
			return err
		}(),
	} {
		wantCode(t, err, hippo.ECONFLICT)
		if !strings.Contains(err.Error(), "embedding model mismatch") {
			t.Errorf("old model refused with %q", err)
		}
	}
	if st, err := other.IndexStats(ctx, "alice"); err != nil || st.Dimension != local.Dimension || st.Rows != 100 {
		t.Errorf("the other handle's index = %+v, %v", st, err)
	}
}

// TestIndexRebuildsOnNewDimension switches every vector behind a loaded
// index's back, with the change log intact: folding the changes in meets
// rows of another dimension, and the index is rebuilt from them.
func TestIndexRebuildsOnNewDimension(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	seedChunks(t, e, 40)
	glove := local.NewEmbedder()
	old := e.memory("alice")
	target, _ := e.db.Chunk(ctx, "alice", "C00012")
	if got := recallFirst(t, old, target.Content); got != target.ID {
		t.Fatalf("recall before: first %s", got)
	}

	raw := rawDB(t, e.db)
	tx, err := raw.Begin()
	if err != nil {
		t.Fatal(err)
	}
	rows, err := tx.Query(`SELECT id, content FROM chunks`)
	if err != nil {
		t.Fatal(err)
	}
	contents := map[string]string{}
	for rows.Next() {
		var id, content string
		rows.Scan(&id, &content)
		contents[id] = content
	}
	rows.Close()
	for id, content := range contents {
		v, _ := glove.Embed(ctx, []string{content})
		if _, err := tx.Exec(`UPDATE chunks SET embedding = ? WHERE id = ?`, vector.Encode(v[0]), id); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := tx.Exec(`UPDATE hippo_meta SET value = CASE key WHEN 'embedding_model' THEN ? ELSE ? END
		WHERE key IN ('embedding_model', 'embedding_dimension')`, local.Model, fmt.Sprint(local.Dimension)); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}

	m := e.memory("alice", func(o *sqlite.MemoryOptions) { o.Embedder = glove })
	if got := recallFirst(t, m, target.Content); got != target.ID {
		t.Errorf("recall after the switch: first %s, want %s", got, target.ID)
	}
	if st, err := e.db.IndexStats(ctx, "alice"); err != nil || st.Dimension != local.Dimension || st.Rows != 20 {
		t.Errorf("index = %+v, %v", st, err)
	}
}
