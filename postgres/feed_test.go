package postgres_test

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

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

// TestReaderFollowsWritesAndForgets has one handle write, forget and
// import while another recalls: each recall sees the state committed
// before it.
func TestReaderFollowsWritesAndForgets(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.New(t)
	w, r := open(t, dsn), open(t, dsn)
	opts := hippo.MemoryOptions{AgentID: "alice", Embedder: local.NewEmbedder()}
	wm, err := w.Service(opts)
	if err != nil {
		t.Fatal(err)
	}
	rm, err := r.Service(opts)
	if err != nil {
		t.Fatal(err)
	}
	zero := 0.0
	recall := func(q string) []string {
		t.Helper()
		res, err := rm.Recall(ctx, hippo.RecallInput{Query: q, MinRelevance: &zero, Limit: 20})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, x := range res {
			out = append(out, x.Chunk.Content)
		}
		slices.Sort(out)
		return out
	}
	for _, c := range []string{"The cat sleeps on the sofa", "Invoices go out on the first Monday"} {
		if _, err := wm.StoreMemory(ctx, hippo.StoreInput{Content: c}); err != nil {
			t.Fatal(err)
		}
	}
	if got := recall("cat sofa"); len(got) != 2 {
		t.Fatalf("reader sees %q, want both memories", got)
	}
	// Recalls boost (one version each); the writer's next write lands after.
	if _, err := wm.StoreMemory(ctx, hippo.StoreInput{Content: "The dog barks at the postman"}); err != nil {
		t.Fatal(err)
	}
	if got := recall("dog postman"); len(got) != 3 {
		t.Fatalf("reader after a third write sees %q", got)
	}
	if _, err := wm.Forget(ctx, hippo.ForgetInput{Description: "The cat sleeps on the sofa"}); err != nil {
		t.Fatal(err)
	}
	if got := recall("cat sofa"); slices.Contains(got, "The cat sleeps on the sofa") {
		t.Fatalf("reader still recalls a forgotten memory: %q", got)
	}
}

// TestBoostMatchesDomain checks the boost's SQL against hippo.Boosted,
// the cap included.
func TestBoostMatchesDomain(t *testing.T) {
	ctx := context.Background()
	db := open(t, pgtest.New(t))
	emb := local.NewEmbedder()
	boost := db.Config().RecallBoost()
	for i, intensity := range []float64{0.3, 0.5, 1 - boost/2, 1} {
		agent := fmt.Sprintf("agent%d", i)
		vecs, err := emb.Embed(ctx, []string{"the boosted memory"})
		if err != nil {
			t.Fatal(err)
		}
		c := &hippo.Chunk{Content: "the boosted memory", Embedding: vecs[0], RunningIntensity: intensity, EncounterCount: 1}
		if err := db.InsertChunks(ctx, agent, "", emb.Model(), []*hippo.Chunk{c}); err != nil {
			t.Fatal(err)
		}
		m, err := db.Service(hippo.MemoryOptions{AgentID: agent, Embedder: emb})
		if err != nil {
			t.Fatal(err)
		}
		zero := 0.0
		res, err := m.Recall(ctx, hippo.RecallInput{Query: "the boosted memory", MinRelevance: &zero})
		if err != nil || len(res) != 1 {
			t.Fatalf("recall: %v %v", res, err)
		}
		if got, want := res[0].Chunk.RunningIntensity, hippo.Boosted(intensity, boost); got != want || res[0].Chunk.AccessCount != 1 {
			t.Errorf("intensity %v boosted to %v with %d accesses, want %v and 1", intensity, got, res[0].Chunk.AccessCount, want)
		}
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

// hashEmbedder embeds text as a few hashed dimensions: another model
// than the offline embedder, to re-embed into.
type hashEmbedder struct{}

func (hashEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, 16)
		for j, r := range t {
			v[(int(r)+j)%16] += 1
		}
		out[i] = v
	}
	return out, nil
}
func (hashEmbedder) Model() string  { return "hash-16" }
func (hashEmbedder) Dimension() int { return 16 }

// TestReembedAcrossHandles re-embeds through one handle while another
// holds the agent's index: the other reloads, recalls with the new model
// and refuses the old one.
func TestReembedAcrossHandles(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.New(t)
	a, b := open(t, dsn), open(t, dsn)
	old := local.NewEmbedder()
	zero := 0.0
	ma, err := a.Service(hippo.MemoryOptions{AgentID: "alice", Embedder: old})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"The cat sleeps on the sofa", "Invoices go out on Mondays"} {
		if _, err := ma.StoreMemory(ctx, hippo.StoreInput{Content: c}); err != nil {
			t.Fatal(err)
		}
	}
	mb, err := b.Service(hippo.MemoryOptions{AgentID: "alice", Embedder: old})
	if err != nil {
		t.Fatal(err)
	}
	if res, err := mb.Recall(ctx, hippo.RecallInput{Query: "cat", MinRelevance: &zero}); err != nil || len(res) != 2 {
		t.Fatalf("before: %v %v", res, err)
	}
	res, err := a.Reembed(ctx, hashEmbedder{}, hippo.ReembedOptions{})
	if err != nil || res.Chunks != 2 {
		t.Fatalf("reembed: %+v %v", res, err)
	}
	if _, err := mb.Recall(ctx, hippo.RecallInput{Query: "cat", MinRelevance: &zero}); hippo.ErrorCode(err) != hippo.ECONFLICT {
		t.Errorf("recall with the old model after the switch: %v, want ECONFLICT", err)
	}
	nb, err := b.Service(hippo.MemoryOptions{AgentID: "alice", Embedder: hashEmbedder{}})
	if err != nil {
		t.Fatal(err)
	}
	got, err := nb.Recall(ctx, hippo.RecallInput{Query: "The cat sleeps on the sofa", MinRelevance: &zero})
	if err != nil || len(got) != 2 || got[0].Chunk.Content != "The cat sleeps on the sofa" || len(got[0].Chunk.Embedding) != 0 && len(got[0].Chunk.Embedding) != 16 {
		t.Errorf("recall with the new model through the other handle: %v %v", got, err)
	}
}

// TestActiveClockAcrossHandles records activity through one handle
// under the active decay clock: the other handle's next recall counts it.
func TestActiveClockAcrossHandles(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.New(t)
	hour := time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC)
	now := func() time.Time { return hour }
	a, err := postgres.Open(ctx, dsn, postgres.Options{DecayClock: postgres.ActiveClock, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := postgres.Open(ctx, dsn, postgres.Options{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if b.DecayClock() != postgres.ActiveClock {
		t.Fatalf("second handle's clock %q, want the recorded %q", b.DecayClock(), postgres.ActiveClock)
	}
	ma, _ := a.Service(hippo.MemoryOptions{AgentID: "alice", Embedder: local.NewEmbedder()})
	if _, err := ma.StoreMemory(ctx, hippo.StoreInput{Content: "Standup is at ten"}); err != nil {
		t.Fatal(err)
	}
	hour = hour.Add(5 * time.Hour) // idle hours do not count
	mb, _ := b.Service(hippo.MemoryOptions{AgentID: "alice", Embedder: local.NewEmbedder()})
	zero := 0.0
	res, err := mb.Recall(ctx, hippo.RecallInput{Query: "standup", MinRelevance: &zero})
	if err != nil || len(res) != 1 {
		t.Fatalf("recall: %v %v", res, err)
	}
	clock, err := a.DecayClockAt(ctx, "alice", hour)
	if err != nil {
		t.Fatal(err)
	}
	if got := clock(hour.Add(-5 * time.Hour).UnixMilli()); got != 1 {
		t.Errorf("active hours since the store: %v, want 1 (the recall's hour)", got)
	}
}

// TestTextFilterFolds finds content by text without case or accents.
func TestTextFilterFolds(t *testing.T) {
	ctx := context.Background()
	db := open(t, pgtest.New(t))
	m, _ := db.Service(hippo.MemoryOptions{AgentID: "alice", Embedder: local.NewEmbedder()})
	for _, c := range []string{"Tried the new Café on Sukhumvit", "The cafeteria closes at 3", "Tea at home"} {
		if _, err := m.StoreMemory(ctx, hippo.StoreInput{Content: c}); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		text string
		want int
	}{{"cafe", 2}, {"CAFÉ", 2}, {"café on", 1}, {"tea", 1}, {"nothing", 0}} {
		n, err := db.CountChunks(ctx, hippo.ChunkFilter{AgentID: "alice", Text: tc.text})
		if err != nil || n != tc.want {
			t.Errorf("text %q: %d chunks (%v), want %d", tc.text, n, err, tc.want)
		}
	}
}
