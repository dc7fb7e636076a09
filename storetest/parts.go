package storetest

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/mock"
)

// testPartsFindOneSentence: a memory of several sentences is found
// through the one a question is about (hippo.Chunk.Parts), though its
// own vector, between all it says, is far from the question; it comes
// back once, marked with the part. Its parts are stored (a store opened
// again finds it), follow its content (an edit to one sentence drops
// them), come with store_memories and with a text remember_facts keeps,
// and go through an export and import and a reembed.
// With Config.PartBytes 0 nothing gets parts.
func testPartsFindOneSentence(t *testing.T, b Backend) {
	e := newEnv(t, b)
	ctx := context.Background()
	const (
		query    = "what allergy does the boy have"
		message  = "My son is 8. He has hay fever and needs his spray every morning."
		first    = "My son is 8."
		second   = "He has hay fever and needs his spray every morning."
		dentist  = "The dentist appointment is on Friday"
		edited   = "My son is 8 and mad about trains"
		batchMsg = "Kiri is 6! She gets hay fever in spring too."
	)
	e.srv.Set(query, mock.Axis(testDim, 0))
	e.srv.Set(message, mock.AtCosine(testDim, 0, 5, 0.15)) // the whole: near the unrelated level
	e.srv.Set(first, mock.Axis(testDim, 7))
	e.srv.Set(second, mock.AtCosine(testDim, 0, 6, 0.9))
	e.srv.Set(dentist, mock.AtCosine(testDim, 0, 3, 0.35))
	e.srv.Set(edited, mock.AtCosine(testDim, 0, 5, 0.1))
	e.srv.Set(batchMsg, mock.AtCosine(testDim, 0, 8, 0.15))
	e.srv.Set("Kiri is 6!", mock.Axis(testDim, 9))
	e.srv.Set("She gets hay fever in spring too.", mock.AtCosine(testDim, 0, 10, 0.85))

	m := e.memory("alice")
	ids := storeInTurn(t, e, m, dentist, message)
	c := e.mustChunk("alice", ids[message])
	if len(c.Parts) != 2*testDim {
		t.Fatalf("the message has %d part floats, want 2 parts of %d", len(c.Parts), testDim)
	}
	if d := e.mustChunk("alice", ids[dentist]); d.Parts != nil {
		t.Errorf("a memory of one sentence has %d part floats", len(d.Parts))
	}
	check := func(m hippo.AgentMemory, when string, want []string, part int) {
		t.Helper()
		res, err := m.Recall(ctx, hippo.RecallInput{Query: query, Limit: 10, DryRun: true})
		if err != nil {
			t.Fatal(err)
		}
		got := recalledIDs(res)
		if !slices.Equal(got[:min(len(got), len(want))], want) {
			t.Fatalf("%s: recall = %v, want %v first", when, got, want)
		}
		for _, id := range want {
			if n := strings.Count(strings.Join(got, " "), id); n != 1 {
				t.Errorf("%s: %s comes back %d times", when, id, n)
			}
		}
		if res[0].Part != part {
			t.Errorf("%s: the first result's part is %d, want %d", when, res[0].Part, part)
		}
		if part > 0 && !(res[0].Similarity > 0.7) {
			t.Errorf("%s: found through its sentence at similarity %.3f, want above 0.7", when, res[0].Similarity)
		}
	}
	check(m, "stored", []string{ids[message], ids[dentist]}, 2)
	// The parts are stored: a store opened again loads them.
	again := e.memoryOf(e.open(e.name, Options{}), "alice")
	check(again, "opened again", []string{ids[message], ids[dentist]}, 2)

	// An export carries them, and an import brings them back.
	doc := exportString(t, e.s, hippo.ExportOptions{})
	if !strings.Contains(doc, `"parts_base64"`) {
		t.Fatalf("the export has no parts_base64:\n%s", doc)
	}
	fresh := e.fresh()
	if _, err := importString(fresh, doc, hippo.ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	check(e.memoryOf(fresh, "alice"), "imported", []string{ids[message], ids[dentist]}, 2)

	// store_memories gives parts too.
	res, err := m.StoreMemories(ctx, []hippo.StoreInput{{Content: batchMsg}})
	if err != nil || len(res.Items) != 1 || res.Items[0].Chunk == nil {
		t.Fatalf("store_memories = %+v, %v", res, err)
	}
	check(m, "after store_memories", []string{ids[message], res.Items[0].Chunk.ID, ids[dentist]}, 2)

	// An edit to one sentence: no parts, and the message ranks as itself.
	if _, err := editor(t, m).UpdateChunk(ctx, ids[message], edited); err != nil {
		t.Fatal(err)
	}
	if c := e.mustChunk("alice", ids[message]); c.Parts != nil {
		t.Errorf("the edited memory of one sentence keeps %d part floats", len(c.Parts))
	}
	check(m, "edited", []string{res.Items[0].Chunk.ID, ids[dentist]}, 2)

	// Forgetting it leaves no row behind: recall never names it again.
	if _, err := editor(t, m).DeleteChunk(ctx, res.Items[0].Chunk.ID); err != nil {
		t.Fatal(err)
	}
	check(m, "deleted", []string{ids[dentist]}, 0)

	// A text remember_facts keeps gets parts too: its facts need not
	// cover the sentence asked about. An export and import carry them.
	fm := e.factMemory("bob")
	e.srv.Set("User has a son", mock.Axis(testDim, 11))
	bobDentist := storeInTurn(t, e, fm, dentist)[dentist]
	learned, err := fm.Remember(ctx, hippo.RememberInput{Text: message, Facts: []hippo.GivenFact{{Fact: "User has a son"}}})
	if err != nil || learned.Message == nil {
		t.Fatalf("remember = %+v, %v; want the text kept", learned, err)
	}
	if c := e.mustChunk("bob", learned.Message.ID); len(c.Parts) != 2*testDim {
		t.Errorf("the kept text has %d part floats, want 2 parts of %d", len(c.Parts), testDim)
	}
	check(fm, "kept by remember_facts", []string{learned.Message.ID, bobDentist}, 2)
	keptCopy := e.fresh()
	if _, err := importString(keptCopy, exportString(t, e.s, hippo.ExportOptions{}), hippo.ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	check(e.memoryOf(keptCopy, "bob"), "kept text imported", []string{learned.Message.ID, bobDentist}, 2)

	// Re-embedding gives every memory of several sentences parts of the
	// new model, a kept text too, and none to a fact or a memory of one
	// sentence.
	if _, err := e.s.Reembed(ctx, hashEmbedder{}, hippo.ReembedOptions{}); err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]int{learned.Message.ID: 2 * 16, learned.Facts[0].ChunkID: 0, ids[message]: 0, bobDentist: 0} {
		agent := "bob"
		if id == ids[message] {
			agent = "alice"
		}
		if c := e.mustChunk(agent, id); len(c.Parts) != want || len(c.Embedding) != 16 {
			t.Errorf("after reembed, %q has %d part floats and a vector of %d, want %d and 16", c.Content, len(c.Parts), len(c.Embedding), want)
		}
	}

	// Without parts, the message ranks by its own vector, below the dentist.
	cfg := hippo.DefaultConfig()
	cfg.MinRelevance, cfg.PartBytes = 0, 0
	off := e.open(b.New(t), Options{Config: &cfg})
	mo := e.memoryOf(off, "alice")
	offIDs := storeInTurn(t, e, mo, dentist, message)
	check(mo, "parts off", []string{offIDs[dentist], offIDs[message]}, 0)
}
