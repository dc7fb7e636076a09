package eval_test

import (
	"context"
	"encoding/gob"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/sqlite"
	"github.com/hippo-mem/hippo/vector"
)

// Ranking is chosen offline, from every question's candidates as recall
// sees them: each set's questions asked in order, and per question the
// chunks with the best cosines and the best full-text scores, with their
// sizes and the order they were stored in. A ranking function is then a
// pure function of those, and a sweep over many of them takes seconds
// instead of a library run each. The chosen function is then run through
// the library (boost on and off) on every set, which is what is reported.
//
//	go test ./eval/ -run Candidates -candidates -embedder minilm -v -timeout 2h
var (
	flagCandidates = flag.Bool("candidates", false, "write every set's recall candidates (per question: cosines, BM25, sizes) to the eval cache")
	flagCandSets   = flag.String("candidates-sets", "own,conversation,longmemeval,realmem", "the sets -candidates writes")
)

// candSetWanted reports whether -candidates-sets names set.
func candSetWanted(set string) bool {
	return slices.Contains(strings.Split(*flagCandSets, ","), set)
}

// candK is how many of the best cosines and of the best BM25 scores are
// kept per question: a chunk outside both is not in any fused top 10.
const candK = 200

// cand is one chunk a question might recall.
type cand struct {
	Items []string // the set's items it stands for
	Cos   float64
	BM25  float64 // raw full-text score, 0 when no word matched
	Size  int     // bytes
	Seq   int     // order stored, from 0
}

// candQuery is one question and its candidates.
type candQuery struct {
	Set, QID, Tag, Text string
	Half                int
	Relevant, Outdated  []string
	Cands               []cand
	// Chunks is how many chunks the agent held; CosMean and CosSD the
	// mean and standard deviation of the question's cosine over them.
	Chunks         int
	CosMean, CosSD float64
	Vec            []float32 // the question's embedding
	Agent          string    // whose chunks: candSet.Vecs[Agent][Seq] is a chunk's vector
}

// candSet is what a set's collection saves: its questions, and every
// agent's chunk vectors by Seq.
type candSet struct {
	Queries []*candQuery
	Vecs    map[string][][]float32
	// Texts are every agent's chunk texts by Seq.
	Texts map[string][]string
}

// candCollector gathers the candidates of one agent's questions.
type candCollector struct {
	agent  string
	ce     *cachedEmbedder
	mem    hippo.AgentMemory
	texts  []string       // stored chunk texts by Seq
	items  [][]string     // items each stands for
	chunks map[string]int // Seq by chunk ID
	vs     [][]float32    // vectors by Seq, filled as questions need them
}

func newCandCollector(agent string, ce *cachedEmbedder, mem hippo.AgentMemory) *candCollector {
	return &candCollector{agent: agent, ce: ce, mem: mem, chunks: map[string]int{}}
}

// vecs are the agent's chunk vectors by Seq.
func (c *candCollector) vecs(t testing.TB, ctx context.Context) [][]float32 {
	out, err := c.ce.Embed(ctx, c.texts)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// stored records that chunkID (new or a duplicate) stands for item.
func (c *candCollector) stored(chunkID, text, item string) {
	seq, ok := c.chunks[chunkID]
	if !ok {
		seq = len(c.texts)
		c.chunks[chunkID] = seq
		c.texts = append(c.texts, text)
		c.items = append(c.items, nil)
	}
	c.items[seq] = append(c.items[seq], item)
}

// cosine is the cosine of two vectors (vector.Cosine).
func cosine(a, b []float32) float64 { return vector.Cosine(a, b) }

// ask collects question q's candidates from the agent's memory as it is.
func (c *candCollector) ask(t testing.TB, ctx context.Context, q *candQuery) {
	t.Helper()
	vecs, err := c.ce.Embed(ctx, []string{q.Text})
	if err != nil {
		t.Fatal(err)
	}
	q.Vec, q.Agent = vecs[0], c.agent
	one, zero := 1.0, 0.0
	res, err := c.mem.Recall(ctx, hippo.RecallInput{Query: q.Text, Limit: candK, Alpha: &one, MinRelevance: &zero, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	bm := map[int]float64{}
	for _, r := range res {
		if r.BM25 > 0 {
			bm[c.chunks[r.Chunk.ID]] = r.BM25
		}
	}
	cos := make([]float64, len(c.texts))
	var sum, sq float64
	if len(c.vs) < len(c.texts) {
		more, err := c.ce.Embed(ctx, c.texts[len(c.vs):])
		if err != nil {
			t.Fatal(err)
		}
		c.vs = append(c.vs, more...)
	}
	for i, v := range c.vs {
		cos[i] = cosine(q.Vec, v)
		sum += cos[i]
		sq += cos[i] * cos[i]
	}
	n := float64(len(cos))
	q.Chunks = len(cos)
	if n > 0 {
		q.CosMean = sum / n
		q.CosSD = math.Sqrt(max(0, sq/n-q.CosMean*q.CosMean))
	}
	order := make([]int, len(cos))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		if cos[a] > cos[b] {
			return -1
		}
		if cos[a] < cos[b] {
			return 1
		}
		return 0
	})
	keep := map[int]bool{}
	for _, i := range order[:min(candK, len(order))] {
		keep[i] = true
	}
	for i := range bm {
		keep[i] = true
	}
	for i := range keep {
		q.Cands = append(q.Cands, cand{Items: c.items[i], Cos: cos[i], BM25: bm[i], Size: len(c.texts[i]), Seq: i})
	}
	slices.SortFunc(q.Cands, func(a, b cand) int { return a.Seq - b.Seq })
}

// candConfig is the configuration of the collection: no boost, results
// up to candK.
func candConfig() hippo.Config {
	cfg := hippo.DefaultConfig()
	cfg.RetrievalBoost = 0
	cfg.MaxLimit = candK
	return cfg
}

func openCandDB(t testing.TB, ctx context.Context, path string) *sqlite.DB {
	cfg := candConfig()
	db, err := sqlite.Open(ctx, path, sqlite.Options{Config: &cfg, Now: func() time.Time { return evalClock }, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	return db
}

func saveCands(t testing.TB, set, model string, qs []*candQuery, cols ...*candCollector) {
	t.Helper()
	path := cacheFile(model, "candidates-"+set)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cs := candSet{Queries: qs, Vecs: map[string][][]float32{}, Texts: map[string][]string{}}
	for _, c := range cols {
		cs.Vecs[c.agent] = c.vecs(t, context.Background())
		cs.Texts[c.agent] = c.texts
	}
	if err := gob.NewEncoder(f).Encode(cs); err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: %d questions to %s", set, len(qs), path)
}

func loadCands(t testing.TB, set, model string) candSet {
	t.Helper()
	f, err := os.Open(cacheFile(model, "candidates-"+set))
	if err != nil {
		t.Fatalf("%v (write it with -candidates)", err)
	}
	defer f.Close()
	var cs candSet
	if err := gob.NewDecoder(f).Decode(&cs); err != nil {
		t.Fatal(err)
	}
	return cs
}

// TestCandidates writes the candidates of the own set, LongMemEval,
// RealMem and the conversation sets.
func TestCandidates(t *testing.T) {
	if !*flagCandidates {
		t.Skip("runs with -candidates")
	}
	ctx := context.Background()
	_, emb := newEmbedder(t)
	model := emb.Model()
	dir := t.TempDir()
	ce := newCachedEmbedder(emb)

	// Own set: every memory stored, then the questions.
	if candSetWanted("own") {
		s := loadOwnSet(t)
		db := openCandDB(t, ctx, filepath.Join(dir, "own.db"))
		mem, err := db.Memory(sqlite.MemoryOptions{AgentID: ownAgent, Embedder: ce})
		if err != nil {
			t.Fatal(err)
		}
		col := newCandCollector(ownAgent, ce, mem)
		for _, id := range s.ids {
			res, err := mem.StoreMemory(ctx, hippo.StoreInput{Content: s.content[id]})
			if err != nil {
				t.Fatal(err)
			}
			col.stored(res.Chunk.ID, s.content[id], id)
		}
		var qs []*candQuery
		for _, q := range s.queries {
			cq := &candQuery{Set: "own", QID: q.id, Tag: q.tag, Text: q.text, Half: int(splitOf(q.id)), Relevant: keys(q.relevant)}
			col.ask(t, ctx, cq)
			qs = append(qs, cq)
		}
		db.Close()
		saveCands(t, "own", model, qs, col)
	}
	// Conversation sets: a memory per user.
	for _, set := range everyConversationSet {
		if !candSetWanted("conversation") {
			break
		}
		users, msgs, questions := loadConversation(t, set)
		db := openCandDB(t, ctx, filepath.Join(dir, set+".db"))
		var qs []*candQuery
		var cols []*candCollector
		for _, user := range users {
			mem, err := db.Memory(sqlite.MemoryOptions{AgentID: user, Embedder: ce})
			if err != nil {
				t.Fatal(err)
			}
			col := newCandCollector(user, ce, mem)
			cols = append(cols, col)
			for _, m := range msgs {
				if m.user == user {
					res, err := mem.StoreMemory(ctx, hippo.StoreInput{Content: m.text})
					if err != nil {
						t.Fatal(err)
					}
					col.stored(res.Chunk.ID, m.text, m.id)
				}
			}
			for i, q := range questions {
				if q.user != user {
					continue
				}
				cq := &candQuery{Set: set, QID: fmt.Sprintf("%s#%d", set, i), Text: q.text, Relevant: keys(q.relevant), Outdated: keys(q.outdated)}
				col.ask(t, ctx, cq)
				qs = append(qs, cq)
			}
		}
		db.Close()
		saveCands(t, set, model, qs, cols...)
	}
	// LongMemEval: every turn stored, then the questions.
	dataDir := sharedEvalDir(t)
	if candSetWanted("longmemeval") {
		d := loadLME(t, filepath.Join(dataDir, "longmemeval-oracle"), false)
		if n, err := ce.load(cacheFile(model, "longmemeval")); err != nil || n == 0 {
			t.Logf("LongMemEval vectors not cached (%v): embedding", err)
		}
		texts := make([]string, len(d.turns))
		for i, tr := range d.turns {
			texts[i] = tr.Text
		}
		if err := ce.prepare(ctx, texts); err != nil {
			t.Fatal(err)
		}
		if err := ce.save(cacheFile(model, "longmemeval")); err != nil {
			t.Logf("LongMemEval vectors not saved: %v", err)
		}
		db := openCandDB(t, ctx, filepath.Join(dir, "lme.db"))
		mem, err := db.Memory(sqlite.MemoryOptions{AgentID: lmeAgent, Embedder: ce})
		if err != nil {
			t.Fatal(err)
		}
		col := newCandCollector(lmeAgent, ce, mem)
		for _, tr := range d.turns {
			res, err := mem.StoreMemory(ctx, hippo.StoreInput{Content: tr.Text})
			if err != nil {
				t.Fatal(err)
			}
			col.stored(res.Chunk.ID, tr.Text, tr.ID)
		}
		var qs []*candQuery
		for _, q := range d.queries {
			cq := &candQuery{Set: "longmemeval", QID: q.QID, Tag: q.Type, Text: q.Question, Half: int(splitOf(q.QID)), Relevant: q.EvidenceTurns}
			col.ask(t, ctx, cq)
			qs = append(qs, cq)
		}
		db.Close()
		saveCands(t, "longmemeval", model, qs, col)
	}
	if candSetWanted("realmem") {

		// RealMem: each persona's sessions in order, each query at its cutoff.
		rd := loadRealMem(t, filepath.Join(dataDir, "realmem"))
		prepareRealMem(t, ctx, ce, model, rd)
		db := openCandDB(t, ctx, filepath.Join(dir, "realmem.db"))
		var qs []*candQuery
		var cols []*candCollector
		playRealMem(t, ctx, db, ce, rd, func(persona string, mem *sqlite.Memory) {
			cols = append(cols, newCandCollector(rmAgent(persona), ce, mem))
		}, func(chunkID string, tr rmTurn) {
			cols[len(cols)-1].stored(chunkID, tr.Text, tr.ID)
		}, func(q rmQuery) {
			cq := &candQuery{Set: "realmem", QID: q.QID, Tag: q.Category, Text: q.Question, Half: int(splitOf(q.QID)), Relevant: q.Evidence}
			cols[len(cols)-1].ask(t, ctx, cq)
			qs = append(qs, cq)
		})
		db.Close()
		saveCands(t, "realmem", model, qs, cols...)
	}
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

var flagVectorsFromCands = flag.String("vectors-from-candidates", "", "rebuild the named set's embedding cache (longmemeval) from its saved candidates: every chunk's and question's vector")

// TestVectorsFromCandidates rebuilds a set's embedding cache from its
// candidates, which hold every chunk's and question's vector, so that the
// library runs need not embed the set again.
//
//	go test ./eval/ -run VectorsFromCandidates -vectors-from-candidates longmemeval -embedder minilm
func TestVectorsFromCandidates(t *testing.T) {
	set := *flagVectorsFromCands
	if set == "" {
		t.Skip("runs with -vectors-from-candidates")
	}
	_, emb := newEmbedder(t)
	cs := loadCands(t, set, emb.Model())
	ce := newCachedEmbedder(emb)
	path := cacheFile(emb.Model(), set)
	if _, err := ce.load(path); err != nil {
		t.Fatal(err)
	}
	for agent, texts := range cs.Texts {
		for i, text := range texts {
			ce.cache[text] = cs.Vecs[agent][i]
		}
	}
	for _, q := range cs.Queries {
		ce.cache[q.Text] = q.Vec
	}
	if err := ce.save(path); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d vectors to %s", len(ce.cache), path)
}
