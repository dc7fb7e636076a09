package storetest

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/internal/testutil"
	"github.com/hippo-mem/hippo/local"
)

func testIsolationBetweenAgents(t *testing.T, bk Backend) {
	e := newEnv(t, bk)
	ctx := context.Background()
	a, b := e.memory("agent-a"), e.memory("agent-b")
	secret := store(t, a, "agent a's secret plan")
	if _, err := a.AppendBlock(ctx, "persona", "I am A"); err != nil {
		t.Fatal(err)
	}
	if ids := recallIDs(t, b, "agent a's secret plan"); len(ids) != 0 {
		t.Errorf("agent-b recalled %v", ids)
	}
	if blk, err := b.Block(ctx, "persona"); blk != nil || err != nil {
		t.Errorf("agent-b read agent-a's block: %v, %v", blk, err)
	}
	if _, _, err := b.ReplaceBlock(ctx, "persona", "A", "B"); hippo.ErrorCode(err) != hippo.ENOTFOUND {
		t.Errorf("agent-b replaced in agent-a's block: %v", err)
	}
	res, err := b.Forget(ctx, hippo.ForgetInput{Description: "agent a's secret plan", Threshold: 0.1})
	if err != nil || len(res.Deleted) != 0 {
		t.Errorf("agent-b forget deleted %v, %v", res, err)
	}
	if _, err := editor(t, b).DeleteChunk(ctx, secret.ID); hippo.ErrorCode(err) != hippo.ENOTFOUND {
		t.Errorf("agent-b deleted agent-a's chunk: %v", err)
	}
	if _, err := editor(t, b).UpdateChunk(ctx, secret.ID, "hijacked"); hippo.ErrorCode(err) != hippo.ENOTFOUND {
		t.Errorf("agent-b updated agent-a's chunk: %v", err)
	}
	if _, err := e.chunk("agent-a", secret.ID); err != nil {
		t.Errorf("agent-a's chunk is gone: %v", err)
	}
	if blk, _ := a.Block(ctx, "persona"); blk == nil || blk.Value != "I am A" {
		t.Errorf("agent-a's block = %+v", blk)
	}
}

// isolationAgents look alike on purpose: case, spaces, LIKE wildcards,
// quotes, Unicode look-alikes and a prefix of another, so that any
// comparison less exact than equality shows.
var isolationAgents = []string{"alice", "Alice", "alice ", "al%", "al_ce", "ali'ce", "alıce", "alice-and-bob", "a"}

var isolationScopes = []string{"", "work", "Work", "%", "work "}

// The texts are shared by every agent: identical content, identical
// vectors. A leak across agents would be the best match.
var isolationTexts = []string{
	"I live in Berlin.", "I love Svelte and I hate Redux.", "My dog is called Rex.",
	"The launch code is 4711.", "We chose SQLite over PostgreSQL for the billing service.",
	"I work at Acme as an engineer.", "Meeting notes: ship the release on Friday.",
}

// testIsolationProperty runs random operations for random agents and
// scopes on one database and checks after each that no other agent's
// data changed by a byte (their exports are identical) and that nothing
// returned belongs to another agent or, with a scope, to another scope.
// Operations include passing other agents' chunk IDs to every call that
// takes one.
func testIsolationProperty(t *testing.T, b Backend) {
	for seed := range uint64(2) {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			t.Parallel()
			checkIsolation(t, b, seed, envInt("HIPPO_ISOLATION_OPS", 50))
		})
	}
}

func checkIsolation(t *testing.T, b Backend, seed uint64, ops int) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(seed, 9))
	clk := newClock()
	cfg := hippo.DefaultConfig()
	cfg.MinRelevance = 0
	db := openWith(t, b, b.New(t), Options{Now: clk.Now, Config: &cfg})
	emb, ext, cls := local.NewEmbedder(), local.NewExtractor(), local.NewClassifier()
	agents := isolationAgents[:4+r.IntN(3)]

	memory := func(agent, scope string, recall []string) hippo.AgentMemory {
		m, err := db.Service(hippo.MemoryOptions{AgentID: agent, Scope: scope, RecallScopes: recall,
			Embedder: emb, Extractor: ext, Classifier: cls})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	others := func(actor string) []byte { return testutil.ExportWithout(t, db, actor) }
	seedIsolation(ctx, t, agents, memory)

	var counts = map[string]int{}
	for i := range ops {
		s := &isolationStep{t: t, r: r, agents: agents}
		s.actor = agents[r.IntN(len(agents))]
		s.scope = isolationScopes[r.IntN(len(isolationScopes))]
		if r.IntN(2) == 0 { // else nil: every scope
			s.recallScopes = []string{s.scope}
		}
		s.m = memory(s.actor, s.scope, s.recallScopes)
		before := others(s.actor)
		s.own = chunkOwners(ctx, t, db)
		for id, a := range s.own {
			if a != s.actor {
				s.theirs = append(s.theirs, id)
			}
		}
		slices.Sort(s.theirs)
		text := isolationTexts[r.IntN(len(isolationTexts))]
		op := isolationOps[r.IntN(len(isolationOps))]
		counts[op]++
		s.where = fmt.Sprintf("op %d %s by %q in scope %q (recall scopes %q)", i, op, s.actor, s.scope, s.recallScopes)

		s.run(ctx, op, text)
		clk.Advance(time.Duration(r.IntN(48)) * time.Hour)

		if after := others(s.actor); !bytes.Equal(before, after) {
			t.Fatalf("%s: other agents' data changed:\nbefore %s\nafter  %s", s.where, before, after)
		}
	}
	t.Logf("%d agents, %d operations: %v", len(agents), ops, counts)
}

// seedIsolation gives every agent the same memories and facts, in every
// scope.
func seedIsolation(ctx context.Context, t *testing.T, agents []string, memory func(agent, scope string, recall []string) hippo.AgentMemory) {
	for _, a := range agents {
		for _, s := range isolationScopes[:2] {
			m := memory(a, s, nil)
			for _, text := range isolationTexts[:3] {
				if _, err := m.StoreMemory(ctx, hippo.StoreInput{Content: text}); err != nil {
					t.Fatal(err)
				}
				if _, err := m.RememberFacts(ctx, text); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := m.AppendBlock(ctx, "human", "Shared note for "+a); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// chunkOwners maps every chunk ID in db, superseded ones included, to its
// agent.
func chunkOwners(ctx context.Context, t *testing.T, db Store) map[string]string {
	out := map[string]string{}
	cs, err := db.ListChunks(ctx, hippo.ChunkFilter{Superseded: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cs {
		out[c.ID] = c.AgentID
	}
	return out
}

// isolationOps are the operations checkIsolation draws from.
var isolationOps = []string{"store", "remember", "recall", "forget", "append", "replace", "set", "delete-block",
	"block", "blocks", "reinforce", "delete-other", "update-other", "history-other", "context", "consolidate"}

// isolationStep is one operation of checkIsolation: who acts, where, and
// who owned each chunk before it, to check what the operation returns.
type isolationStep struct {
	t            *testing.T
	r            *rand.Rand
	agents       []string
	actor, scope string
	recallScopes []string // nil: every scope
	m            hippo.AgentMemory
	own          map[string]string // chunk ID -> agent
	theirs       []string          // chunk IDs of other agents, sorted
	where        string
}

// run performs op with text through the actor's memory and checks its
// answer.
func (s *isolationStep) run(ctx context.Context, op, text string) {
	switch op {
	case "store", "remember", "forget", "consolidate":
		s.writeMemories(ctx, op, text)
	case "recall", "context":
		s.readMemories(ctx, op, text)
	case "append", "replace", "set", "delete-block", "block", "blocks":
		s.blocks(ctx, op)
	case "reinforce", "delete-other", "update-other", "history-other":
		s.reachOthers(ctx, op, text)
	default:
		s.t.Fatalf("unknown operation %q", op)
	}
}

// writeMemories stores, remembers, forgets or consolidates: whatever it
// writes or deletes must be the actor's.
func (s *isolationStep) writeMemories(ctx context.Context, op, text string) {
	t, m, where := s.t, s.m, s.where
	switch op {
	case "store":
		res, err := m.StoreMemory(ctx, hippo.StoreInput{Content: text})
		if err != nil {
			t.Fatal(where, err)
		}
		if res.Chunk.AgentID != s.actor || res.Chunk.Scope != s.scope {
			t.Fatalf("%s: stored as %q/%q", where, res.Chunk.AgentID, res.Chunk.Scope)
		}
		s.mineID(res.Chunk.ID)
	case "remember":
		res, err := m.RememberFacts(ctx, text)
		if err != nil {
			t.Fatal(where, err)
		}
		for _, f := range res.Facts {
			s.mineID(f.ChunkID, f.SupersededID)
		}
	case "forget":
		res, err := m.Forget(ctx, hippo.ForgetInput{Description: text, Threshold: 0.3 + 0.7*s.r.Float64()})
		if err != nil {
			t.Fatal(where, err)
		}
		for _, f := range res.Deleted {
			s.mineID(f.ID)
		}
		s.mineID(res.Resurrected...)
	case "consolidate":
		if _, err := m.Consolidate(ctx, hippo.ConsolidateOptions{AgentID: s.actor, Grace: time.Hour}); err != nil {
			t.Fatal(where, err)
		}
	}
}

// readMemories recalls or builds a context: nothing in it may be another
// agent's, or of a scope not recalled.
func (s *isolationStep) readMemories(ctx context.Context, op, text string) {
	t, m, where := s.t, s.m, s.where
	switch op {
	case "recall":
		res, err := m.Recall(ctx, hippo.RecallInput{Query: text, Limit: 50})
		if err != nil {
			t.Fatal(where, err)
		}
		for _, x := range res {
			s.mine(x.Chunk)
		}
	case "context":
		c, err := m.Context(ctx, hippo.ContextInput{Query: text})
		if err != nil {
			t.Fatal(where, err)
		}
		s.mineID(c.Memories...)
		for _, a := range s.agents {
			if a != s.actor && strings.Contains(c.Text, "for "+a+"\n") {
				t.Fatalf("%s: context holds %q's block: %q", where, a, c.Text)
			}
		}
	}
}

// blocks writes or reads the actor's core memory blocks: only the actor's
// own, in its scope, may be touched or shown.
func (s *isolationStep) blocks(ctx context.Context, op string) {
	t, m, where, actor, scope := s.t, s.m, s.where, s.actor, s.scope
	switch op {
	case "append":
		if _, err := m.AppendBlock(ctx, "human", "more from "+actor); err != nil {
			t.Fatal(where, err)
		}
	case "replace":
		b, _, err := m.ReplaceBlock(ctx, "human", "Shared", "Own")
		if err == nil && (b.AgentID != actor || b.Scope != scope) {
			t.Fatalf("%s: replaced block of %q/%q", where, b.AgentID, b.Scope)
		} else if err != nil && hippo.ErrorCode(err) != hippo.ENOTFOUND {
			t.Fatal(where, err)
		}
	case "set":
		if _, err := m.SetBlock(ctx, "persona", "set by "+actor); err != nil {
			t.Fatal(where, err)
		}
	case "delete-block":
		if err := m.DeleteBlock(ctx, "human"); err != nil && hippo.ErrorCode(err) != hippo.ENOTFOUND {
			t.Fatal(where, err)
		}
	case "block":
		b, err := m.Block(ctx, "human")
		if err != nil {
			t.Fatal(where, err)
		}
		if b != nil && (b.AgentID != actor || b.Scope != scope || strings.Contains(b.Value, "for ") && !strings.Contains(b.Value, "for "+actor)) {
			t.Fatalf("%s: read block %+v", where, b)
		}
	case "blocks":
		bs, err := m.Blocks(ctx)
		if err != nil {
			t.Fatal(where, err)
		}
		for _, b := range bs {
			if b.AgentID != actor || b.Scope != scope {
				t.Fatalf("%s: listed block %+v", where, b)
			}
		}
	}
}

// reachOthers passes other agents' chunk IDs to the calls that take one:
// each must answer not found and leave them be.
func (s *isolationStep) reachOthers(ctx context.Context, op, text string) {
	t, m, where := s.t, s.m, s.where
	switch op {
	case "reinforce":
		ids := []string{s.other(), s.other()}
		for id, a := range s.own {
			if a == s.actor {
				ids = append(ids, id)
				break
			}
		}
		res, err := m.Reinforce(ctx, ids[:2], ids[2:])
		if err != nil {
			t.Fatal(where, err)
		}
		s.mineID(res.Upvoted...)
		s.mineID(res.Downvoted...)
		for _, id := range ids[:2] {
			if !slices.Contains(res.NotFound, id) {
				t.Fatalf("%s: another agent's %s is not reported as not found: %+v", where, id, res)
			}
		}
	case "delete-other":
		_, err := editor(t, m).DeleteChunk(ctx, s.other())
		s.notFound(err)
	case "update-other":
		_, err := editor(t, m).UpdateChunk(ctx, s.other(), "overwritten by "+s.actor)
		s.notFound(err)
	case "history-other":
		_, err := m.FactHistory(ctx, "", s.other())
		s.notFound(err)
		hist, err := m.FactHistory(ctx, text, "")
		if err != nil {
			t.Fatal(where, err)
		}
		for _, h := range hist {
			s.mineID(h.ID)
		}
	}
}

// other is a random chunk ID of another agent.
func (s *isolationStep) other() string { return s.theirs[s.r.IntN(len(s.theirs))] }

// mine checks chunks returned to the actor.
func (s *isolationStep) mine(cs ...*hippo.Chunk) {
	s.t.Helper()
	for _, c := range cs {
		if c.AgentID != s.actor || s.own[c.ID] != "" && s.own[c.ID] != s.actor {
			s.t.Fatalf("%s: returned chunk %s of agent %q", s.where, c.ID, c.AgentID)
		}
		if s.recallScopes != nil && !slices.Contains(s.recallScopes, c.Scope) {
			s.t.Fatalf("%s: returned chunk %s of scope %q", s.where, c.ID, c.Scope)
		}
	}
}

// mineID checks chunk IDs returned to the actor or touched for it.
func (s *isolationStep) mineID(ids ...string) {
	s.t.Helper()
	for _, id := range ids {
		if a, ok := s.own[id]; ok && a != s.actor {
			s.t.Fatalf("%s: touched chunk %s of agent %q", s.where, id, a)
		}
	}
}

func (s *isolationStep) notFound(err error) {
	s.t.Helper()
	if hippo.ErrorCode(err) != hippo.ENOTFOUND {
		s.t.Fatalf("%s: %v, want not found", s.where, err)
	}
}

// testIsolationCrossAgentLinks plants supersession links between agents
// (which only an import of a crafted file can make) and checks that one
// agent's deletes, forgets and purges never change the other's rows.
func testIsolationCrossAgentLinks(t *testing.T, b Backend) {
	ctx := context.Background()
	e := newEnv(t, b)
	vec := make([]float32, testDim)
	vec[0] = 1
	at := e.clock.Now()
	// bob's fact claims to be superseded by alice's chunks.
	alice := []*hippo.Chunk{
		{ID: "A-NEW", Kind: hippo.KindFact, Content: "Alice lives in Oslo", Embedding: vec},
		{ID: "A-OLD", Kind: hippo.KindFact, Content: "Alice lived in Rome", Embedding: vec, SupersededBy: "A-NEW", SupersededAt: &at},
	}
	bob := []*hippo.Chunk{
		{ID: "B-1", Kind: hippo.KindFact, Content: "Bob lives in Lima", Embedding: vec, SupersededBy: "A-NEW", SupersededAt: &at},
		{ID: "B-2", Kind: hippo.KindFact, Content: "Bob lived in Kyiv", Embedding: vec, SupersededBy: "A-OLD", SupersededAt: &at},
	}
	e.plant("alice", "", alice...)
	e.plant("bob", "", bob...)
	export := func() []byte { return testutil.ExportWithout(t, e.s, "alice") }
	want := export()
	if _, err := e.s.PurgeSuperseded(ctx, hippo.PurgeFilter{AgentID: "alice"}); err != nil {
		t.Fatal(err)
	}
	if got := export(); !bytes.Equal(got, want) {
		t.Errorf("alice's purge changed bob's rows:\n%s\nwant\n%s", got, want)
	}
	if _, err := editor(t, e.memory("alice")).DeleteChunk(ctx, "A-NEW"); err != nil {
		t.Fatal(err)
	}
	if got := export(); !bytes.Equal(got, want) {
		t.Errorf("alice's delete changed bob's rows:\n%s\nwant\n%s", got, want)
	}
}

// envInt is the integer in the environment variable name, or def.
func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

func testRecallScopesAndIsolation(t *testing.T, b Backend) {
	ctx := context.Background()
	s := open(t, b)
	if _, err := memory(t, s, "alice", "work", nil).StoreMemory(ctx, hippo.StoreInput{Content: "The deploy runs on Fridays"}); err != nil {
		t.Fatal(err)
	}
	if _, err := memory(t, s, "alice", "", nil).StoreMemory(ctx, hippo.StoreInput{Content: "The user drinks espresso"}); err != nil {
		t.Fatal(err)
	}
	all := recallContents(t, memory(t, s, "alice", "", nil), hippo.RecallInput{Query: "deploy Fridays"})
	if len(all) != 2 {
		t.Errorf("every scope: %q, want both memories", all)
	}
	m, err := s.Service(hippo.MemoryOptions{AgentID: "alice", Embedder: local.NewEmbedder(), RecallScopes: []string{"work"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := recallContents(t, m, hippo.RecallInput{Query: "espresso"}); !slices.Equal(got, []string{"The deploy runs on Fridays"}) {
		t.Errorf("scope work: %q", got)
	}
	if got := recallContents(t, memory(t, s, "bob", "", nil), hippo.RecallInput{Query: "deploy Fridays"}); len(got) != 0 {
		t.Errorf("bob recalls alice's memories: %q", got)
	}
}
