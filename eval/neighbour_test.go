package eval_test

import (
	"context"
	"flag"
	"path/filepath"
	"testing"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/sqlite"
)

// neighbourVecs embeds as the embedder it wraps says it does, with
// vectors that cost nothing: the neighbour's vectors play no part in
// another agent's recall.
type neighbourVecs struct{ hippo.Embedder }

func (f neighbourVecs) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, x := range texts {
		v := make([]float32, f.Dimension())
		for j := range v {
			v[j] = float32((len(x)*31+j*17+i)%97) - 48
		}
		out[i] = v
	}
	return out, nil
}

// flagNeighbour is how many LongMemEval turns another agent holds in
// each user's database in TestConversationSetsNeighbour; flagAgentStats
// turns Config.AgentTextStatistics on for the library's evaluations.
var (
	flagNeighbour  = flag.Int("neighbour", 0, "TestConversationSetsNeighbour: LongMemEval turns another agent stores in each user's database")
	flagAgentStats = flag.Bool("agent-statistics", false, "the library's evaluations run with Config.AgentTextStatistics")
)

// TestConversationSetsNeighbour runs the conversation sets as
// TestConversationSets does, verbatim, boost on, but with another agent
// holding -neighbour LongMemEval turns in each user's database, as agents
// share a database in use. With -agent-statistics an agent's recall does
// not move with what another agent stores.
//
//	go test ./eval/ -run ConversationSetsNeighbour -neighbour 10000 [-agent-statistics] -v
func TestConversationSetsNeighbour(t *testing.T) {
	n := *flagNeighbour
	if n <= 0 {
		t.Skip("runs with -neighbour N")
	}
	e := firstContactEmbedder()
	ctx := context.Background()
	shared := sharedEvalDir(t)
	if shared == "" {
		t.Fatal("no ../shared/eval beside the repository (HIPPO_EVAL_DATA sets it)")
	}
	d := loadLME(t, filepath.Join(shared, "longmemeval-oracle"), false)
	tmpl := filepath.Join(t.TempDir(), "tmpl.db")
	cfg := evalConfig(true)
	db, err := sqlite.Open(ctx, tmpl, sqlite.Options{Config: &cfg, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	mem, err := db.Memory(sqlite.MemoryOptions{AgentID: "neighbour", Embedder: neighbourVecs{e}})
	if err != nil {
		t.Fatal(err)
	}
	for i, tr := range d.turns {
		if i >= n {
			break
		}
		if !storable(tr.Text) {
			continue
		}
		if _, err := mem.StoreMemory(ctx, hippo.StoreInput{Content: tr.Text}); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	for _, set := range everyConversationSet {
		dir := t.TempDir()
		o := conversation(t, ctx, set, func(user string) client {
			p := filepath.Join(dir, user+".db")
			if err := copyDB(tmpl, p); err != nil {
				t.Fatal(err)
			}
			return openLibClient(t, p, user, e, cfg, false)
		}, nil)
		t.Logf("%s via library (%s), stored verbatim, beside %d turns of another agent: %v", set, e.Model(), n, o)
	}
}
