package storetest

import (
	"context"
	"encoding/json"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/mock"
)

// testFollowUpReadAfter: a memory that opens with a word pointing back
// ("He has hay fever …" after "My son is 8.") gets a last part read after
// the memory before it (hippo.Chunk.ContextOf), and a question that only
// that memory makes sense of finds it. The part derives from the other
// memory's text, so it goes when that memory is deleted, forgotten or
// edited (or is deleted while the follow-up is embedded, or while a
// reembed runs), when the follow-up is edited, and in an import that lacks
// the memory; an export and import carry it, and a reembed makes it again
// with the new model. A text remember_facts
// keeps gets one too; a memory that opens otherwise gets none.
func testFollowUpReadAfter(t *testing.T, b Backend) {
	e := newEnv(t, b)
	ctx := context.Background()
	const (
		query   = "what allergy does my son have"
		son     = "My son is 8."
		follow  = "He has hay fever and needs his spray every morning."
		read    = son + "\n" + follow
		dentist = "The dentist appointment is on Friday"
		plain   = "Hay fever season starts in May."
	)
	e.srv.Set(query, mock.Axis(testDim, 0))
	e.srv.Set(son, mock.Axis(testDim, 7))
	e.srv.Set(follow, mock.AtCosine(testDim, 0, 5, 0.1)) // alone: near the unrelated level
	e.srv.Set(read, mock.AtCosine(testDim, 0, 6, 0.95))
	e.srv.Set(dentist, mock.AtCosine(testDim, 0, 3, 0.35))
	e.srv.Set(plain, mock.AtCosine(testDim, 0, 4, 0.2))

	m := e.memory("alice")
	ids := storeInTurn(t, e, m, son, follow, dentist)
	linked := func(when, agent, id, to string, parts int) {
		t.Helper()
		c := e.mustChunk(agent, id)
		if c.ContextOf != to || len(c.Parts) != parts*testDim {
			t.Errorf("%s: %q has context_of %q and %d part floats, want %q and %d parts of %d",
				when, c.Content, c.ContextOf, len(c.Parts), to, parts, testDim)
		}
	}
	linked("stored", "alice", ids[follow], ids[son], 1)
	linked("stored", "alice", ids[dentist], "", 0) // opens with no reference
	first := func(m hippo.AgentMemory, when, want string) {
		t.Helper()
		res, err := m.Recall(ctx, hippo.RecallInput{Query: query, Limit: 10, DryRun: true})
		if err != nil {
			t.Fatal(err)
		}
		if got := recalledIDs(res); len(got) == 0 || got[0] != want {
			t.Fatalf("%s: recall = %v, want %s first", when, got, want)
		}
	}
	first(m, "stored", ids[follow])

	// An export carries the link and an import brings it back; an import
	// without the memory before drops the part.
	doc := exportString(t, e.s, hippo.ExportOptions{})
	copied := e.fresh()
	if _, err := importString(copied, doc, hippo.ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	first(e.memoryOf(copied, "alice"), "imported", ids[follow])
	if c, err := copied.Chunk(ctx, "alice", ids[follow]); err != nil || c.ContextOf != ids[son] || len(c.Parts) != testDim {
		t.Errorf("imported follow-up = %+v, %v; want linked to %s with one part", c, err, ids[son])
	}
	var file map[string]any
	if err := json.Unmarshal([]byte(doc), &file); err != nil {
		t.Fatal(err)
	}
	file["chunks"] = slices.DeleteFunc(file["chunks"].([]any), func(c any) bool { return c.(map[string]any)["id"] == ids[son] })
	partial, _ := json.Marshal(file)
	lacking := e.fresh()
	if _, err := importString(lacking, string(partial), hippo.ImportOptions{Model: e.emb.Model()}); err != nil { // the map put chunks before the model
		t.Fatal(err)
	}
	if c, err := lacking.Chunk(ctx, "alice", ids[follow]); err != nil || c.ContextOf != "" || c.Parts != nil {
		t.Errorf("imported without the memory before, the follow-up = %+v, %v; want no link and no parts", c, err)
	}

	// Editing the memory before drops the part: it was read after the old
	// text.
	if _, err := editor(t, m).UpdateChunk(ctx, ids[son], "My son is 9."); err != nil {
		t.Fatal(err)
	}
	linked("memory before edited", "alice", ids[follow], "", 0)
	first(m, "memory before edited", ids[dentist])

	// Forgetting the memory before drops the part; deleting it too.
	const (
		daughter = "My daughter Kiri is 6."
		kiri     = "She gets hay fever in spring too. It started last year."
	)
	e.srv.Set(daughter+"\n"+kiri, mock.AtCosine(testDim, 0, 8, 0.9))
	got := storeInTurn(t, e, m, daughter, kiri)
	linked("two sentences", "alice", got[kiri], got[daughter], 3) // its sentences', then the read-after
	if _, err := m.Forget(ctx, hippo.ForgetInput{Description: daughter, Threshold: 0.99}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.chunk("alice", got[daughter]); err == nil {
		t.Fatal("the forgotten memory is still there")
	}
	linked("memory before forgotten", "alice", got[kiri], "", 2)
	again := storeInTurn(t, e, m, plain, follow+" Still.")
	linked("stored after a plain memory", "alice", again[follow+" Still."], again[plain], 3)
	if _, err := editor(t, m).DeleteChunk(ctx, again[plain]); err != nil {
		t.Fatal(err)
	}
	linked("memory before deleted", "alice", again[follow+" Still."], "", 2)

	// The memory before deleted while the follow-up is embedded: stored
	// without the part.
	const (
		gone  = "My brother lives in Oslo."
		after = "He moved there in 2019."
	)
	goneID := storeInTurn(t, e, m, gone)[gone]
	racing := e.memory("alice", func(o *hippo.MemoryOptions) {
		o.Embedder = &racingEmbedder{Embedder: e.emb, race: func() {
			if _, err := editor(t, m).DeleteChunk(ctx, goneID); err != nil {
				t.Error(err)
			}
		}}
	})
	res, err := racing.StoreMemory(ctx, hippo.StoreInput{Content: after})
	if err != nil {
		t.Fatal(err)
	}
	linked("memory before deleted meanwhile", "alice", res.Chunk.ID, "", 0)

	// Editing the follow-up drops its link.
	ids = storeInTurn(t, e, m, son, follow+" Always.")
	linked("stored again", "alice", ids[follow+" Always."], ids[son], 3)
	if _, err := editor(t, m).UpdateChunk(ctx, ids[follow+" Always."], "He has hay fever."); err != nil {
		t.Fatal(err)
	}
	linked("follow-up edited", "alice", ids[follow+" Always."], "", 0)

	// store_memories reads a follow-up after the item before it, and its
	// first item after the memory stored before the batch.
	const (
		cat     = "Our cat Miso is 3."
		catNext = "She hates the vet."
		batchUp = "It was a rescue."
	)
	lastID := storeInTurn(t, e, m, cat)[cat]
	batch, err := m.StoreMemories(ctx, []hippo.StoreInput{{Content: batchUp}, {Content: son + " Really."}, {Content: catNext}, {Content: catNext}})
	if err != nil || batch.Failed > 0 {
		t.Fatalf("store_memories = %+v, %v", batch, err)
	}
	linked("first item of a batch", "alice", batch.Items[0].Chunk.ID, lastID, 1)
	linked("a batch item after another", "alice", batch.Items[2].Chunk.ID, batch.Items[1].Chunk.ID, 1)
	linked("a batch item opening otherwise", "alice", batch.Items[1].Chunk.ID, "", 2)

	// An empty memory (only an import makes one) gives no part.
	e.clock.Advance(time.Minute)
	e.plant("alice", "", &hippo.Chunk{ID: "01Z-EMPTY", Kind: hippo.KindMemory, Content: "",
		Embedding: mock.Axis(testDim, 12), CreatedAt: e.clock.Now()})
	e.clock.Advance(time.Minute)
	afterEmpty := storeInTurn(t, e, m, "It rained. We stayed in.")
	linked("after an empty memory", "alice", afterEmpty["It rained. We stayed in."], "", 2)
	if _, err := editor(t, m).DeleteChunk(ctx, "01Z-EMPTY"); err != nil { // a reembed follows: it has no vector
		t.Fatal(err)
	}
	linked("an empty memory deleted", "alice", afterEmpty["It rained. We stayed in."], "", 2)

	// A text remember_facts keeps is read after the memory before it.
	fm := e.factMemory("bob")
	e.srv.Set("User has a son", mock.Axis(testDim, 11))
	bobSon := storeInTurn(t, e, fm, son)[son]
	learned, err := fm.Remember(ctx, hippo.RememberInput{Text: follow, Facts: []hippo.GivenFact{{Fact: "User has a son"}}})
	if err != nil || learned.Message == nil {
		t.Fatalf("remember = %+v, %v; want the text kept", learned, err)
	}
	linked("kept by remember_facts", "bob", learned.Message.ID, bobSon, 1)

	// A reembed reads a follow-up after the memory before it again, with
	// the new model; one whose memory is deleted while the reembed runs
	// (its shadow vector made already) ends up without the part.
	cm := e.memory("carol")
	const (
		aunt    = "My aunt lives in Perth."
		auntFol = "She teaches maths. She retires soon."
	)
	carol := storeInTurn(t, e, cm, aunt, auntFol)
	linked("before the reembed", "carol", carol[auntFol], carol[aunt], 3)
	deleted := false
	_, err = e.s.Reembed(ctx, hashEmbedder{}, hippo.ReembedOptions{BatchSize: 4, Progress: func(done, total int) {
		if done >= total && !deleted {
			deleted = true
			if _, err := editor(t, cm).DeleteChunk(ctx, carol[aunt]); err != nil {
				t.Error(err)
			}
		}
	}})
	if err != nil || !deleted {
		t.Fatalf("reembed: %v (memory deleted meanwhile: %v)", err, deleted)
	}
	const d = 16 // hashEmbedder's
	for _, w := range []struct {
		agent, id, to string
		parts         int
	}{
		{"bob", learned.Message.ID, bobSon, 1},
		{"alice", batch.Items[2].Chunk.ID, batch.Items[1].Chunk.ID, 1},
		{"alice", batch.Items[0].Chunk.ID, lastID, 1},
		{"alice", got[kiri], "", 2},
		{"carol", carol[auntFol], "", 2},
	} {
		c := e.mustChunk(w.agent, w.id)
		if c.ContextOf != w.to || len(c.Parts) != w.parts*d || len(c.Embedding) != d {
			t.Errorf("after reembed, %q has context_of %q, %d part floats and a vector of %d, want %q, %d parts and %d",
				c.Content, c.ContextOf, len(c.Parts), len(c.Embedding), w.to, w.parts, d)
		}
	}
	var hay hashEmbedder
	want, _ := hay.Embed(ctx, []string{son + "\n" + follow, follow})
	if c := e.mustChunk("bob", learned.Message.ID); len(c.Parts) == d {
		if cos := cosine(c.Parts, partVector(want[0], want[1])); cos < 0.999 {
			t.Errorf("after reembed, the kept text's part is at cosine %.3f of its text read after its memory", cos)
		}
	}
}

// partVector is a part as engine.PartVectors makes it with the default
// weight: 0.6 × the unit text's vector + 0.4 × the unit whole's.
func partVector(text, whole []float32) []float32 {
	unit := func(v []float32) []float64 {
		n := 0.0
		for _, x := range v {
			n += float64(x) * float64(x)
		}
		out := make([]float64, len(v))
		for i, x := range v {
			out[i] = float64(x) / math.Sqrt(n)
		}
		return out
	}
	t, w := unit(text), unit(whole)
	out := make([]float32, len(t))
	for i := range t {
		out[i] = float32(0.6*t[i] + 0.4*w[i])
	}
	return out
}
