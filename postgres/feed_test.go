package postgres_test

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/internal/pgtest"
	"github.com/hippo-mem/hippo/local"
	"github.com/hippo-mem/hippo/postgres"
	"github.com/hippo-mem/hippo/sqlite"
	"github.com/jackc/pgx/v5"
)

// query runs one statement on dsn and scans its row into dest.
func query(t *testing.T, dsn, sql string, dest ...any) {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if err := conn.QueryRow(context.Background(), sql).Scan(dest...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// TestMigrateConcurrently starts several servers on a new database at
// once: the advisory lock has one of them create the schema, each
// migration applied once, and every one of them opens.
func TestMigrateConcurrently(t *testing.T) {
	dsn := pgtest.New(t)
	const n = 6
	dbs := make([]*postgres.DB, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			dbs[i], errs[i] = postgres.Open(context.Background(), dsn, postgres.Options{})
		}()
	}
	wg.Wait()
	created := 0
	for i, err := range errs {
		if err != nil {
			t.Fatalf("opener %d: %v", i, err)
		}
		if dbs[i].Created() {
			created++
		}
		dbs[i].Close()
	}
	if created != 1 {
		t.Errorf("%d openers created the schema, want 1", created)
	}
	files, err := fs.Glob(postgres.MigrationFS, "migration/*.sql")
	if err != nil {
		t.Fatal(err)
	}
	var applied int
	query(t, dsn, `SELECT count(*) FROM hippo_migrations`, &applied)
	if applied != len(files) {
		t.Errorf("%d migrations recorded, want %d", applied, len(files))
	}
}

// TestMustExist refuses a database without Hippo's schema and creates
// nothing in it.
func TestMustExist(t *testing.T) {
	dsn := pgtest.New(t)
	_, err := postgres.Open(context.Background(), dsn, postgres.Options{MustExist: true})
	if hippo.ErrorCode(err) != hippo.ENOTFOUND {
		t.Fatalf("open of an empty database with MustExist: %v, want ENOTFOUND", err)
	}
	var tables int
	query(t, dsn, `SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()`, &tables)
	if tables != 0 {
		t.Errorf("%d tables created", tables)
	}
}

// TestVersionsGapFree writes one agent concurrently through two handles
// (two servers): each transaction that changes a chunk takes exactly the
// next version (a store_memory's verbatim-repeat lookup takes none), and
// the feed holds each write's chunk at its own version.
func TestVersionsGapFree(t *testing.T) {
	dsn := pgtest.New(t)
	a, b := open(t, dsn), open(t, dsn)
	const n = 40
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			db := []*postgres.DB{a, b}[i%2]
			m, err := db.Service(hippo.MemoryOptions{AgentID: "alice", Embedder: local.NewEmbedder()})
			if err != nil {
				errs <- err
				return
			}
			_, err = m.StoreMemory(context.Background(), hippo.StoreInput{Content: fmt.Sprintf("note number %d", i)})
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	var version, entries, distinct, lowest, highest int64
	query(t, dsn, `SELECT version FROM hippo_agents WHERE agent_id = 'alice'`, &version)
	query(t, dsn, `SELECT count(*), count(DISTINCT version), min(version), max(version) FROM hippo_changes WHERE agent_id = 'alice'`,
		&entries, &distinct, &lowest, &highest)
	if version != n || entries != n || distinct != n || lowest != 1 || highest != n {
		t.Errorf("version %d, %d entries at %d versions %d..%d; want %d writes at versions 1..%d", version, entries, distinct, lowest, highest, n, n)
	}
}

// TestBM25RanksAsSQLite loads the same chunks into SQLite and PostgreSQL
// and recalls by BM25 alone (α 1): both stores rank the same chunks first.
func TestBM25RanksAsSQLite(t *testing.T) {
	ctx := context.Background()
	pg := open(t, pgtest.New(t))
	lite, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "bm25.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer lite.Close()
	emb := local.NewEmbedder()
	corpus := []string{
		"The quarterly budget review is on Thursday",
		"Budget cuts hit the marketing team hard",
		"Alice plays the cello in an orchestra",
		"The orchestra rehearses every Tuesday evening",
		"Bob keeps a sourdough starter called Herbert",
		"Herbert the starter needs feeding twice a day",
		"The release train leaves every second Wednesday",
		"Kubernetes cluster upgrades happen during the release freeze",
		"The cluster runs out of memory on Fridays",
		"A budget for the orchestra tour was approved",
	}
	for i := range 40 { // filler, so that every word above is rare
		corpus = append(corpus, fmt.Sprintf("filler note %d about nothing in particular", i))
	}
	vecs, err := emb.Embed(ctx, corpus)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []interface {
		InsertChunks(context.Context, string, string, string, []*hippo.Chunk) error
	}{pg, lite} {
		var chunks []*hippo.Chunk
		for i, c := range corpus {
			chunks = append(chunks, &hippo.Chunk{ID: fmt.Sprintf("C%03d", i), Content: c, Embedding: vecs[i]})
		}
		if err := s.InsertChunks(ctx, "alice", "", emb.Model(), chunks); err != nil {
			t.Fatal(err)
		}
	}
	one, zero := 1.0, 0.0
	top := func(s hippo.Store, q string) []string {
		m, err := s.Service(hippo.MemoryOptions{AgentID: "alice", Embedder: emb})
		if err != nil {
			t.Fatal(err)
		}
		res, err := m.Recall(ctx, hippo.RecallInput{Query: q, Alpha: &one, MinRelevance: &zero, Limit: 3, DryRun: true})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, r := range res {
			if r.BM25 > 0 {
				ids = append(ids, r.Chunk.ID)
			}
		}
		return ids
	}
	for _, q := range []string{"budget", "orchestra budget", "Herbert starter", "cluster release", "cello", "Tuesday rehearsals"} {
		p, l := top(pg, q), top(lite, q)
		if len(l) == 0 || !slices.Equal(p, l) {
			t.Errorf("%q: PostgreSQL ranks %v first, SQLite %v", q, p, l)
		}
	}
}
