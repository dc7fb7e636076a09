package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hippo-mem/hippo"
)

// verbatim extracts its whole text as one fact.
type verbatim struct{}

func (verbatim) ExtractFacts(_ context.Context, text string) ([]hippo.Fact, []hippo.LLMCall, error) {
	return []hippo.Fact{{Content: text, Intensity: 0.6}}, nil, nil
}

// openClocked opens a new store whose clock tick moves on by a minute.
func openClocked(t *testing.T, b Backend) (Store, func() time.Time) {
	t.Helper()
	var clock atomic.Int64
	clock.Store(time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC).UnixMilli())
	s := openWith(t, b, b.New(t), Options{Now: func() time.Time { return time.UnixMilli(clock.Load()) }})
	return s, func() time.Time {
		now := time.UnixMilli(clock.Add(30_000))
		clock.Add(30_000)
		return now
	}
}

func ptr[T any](v T) *T { return &v }

func testUpdateMemoryFact(t *testing.T, b Backend) {
	ctx := context.Background()
	s, tick := openClocked(t, b)
	m := memory(t, s, "alice", "", verbatim{})
	learn := func(text string) string {
		t.Helper()
		res, err := m.RememberFacts(ctx, text)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Facts) != 1 || res.Facts[0].Action != hippo.ActionNew {
			t.Fatalf("remember %q: %+v", text, res.Facts)
		}
		return res.Facts[0].ChunkID
	}
	berlin := learn("User lives in Berlin")
	debian := learn("The build server runs Debian")
	before := tick()

	res, err := m.UpdateMemory(ctx, hippo.UpdateInput{ID: berlin, Content: ptr("User lives in Lisbon"), Tags: &[]string{"home"}})
	if err != nil {
		t.Fatal(err)
	}
	lisbon := res.Chunk.ID
	if lisbon == berlin || res.PreviousID != berlin || res.PreviousContent != "User lives in Berlin" || res.Merged ||
		res.Chunk.Content != "User lives in Lisbon" || res.Chunk.EncounterCount != 2 || res.Chunk.AccessCount != 1 ||
		!slices.Equal(res.Changed, []string{"content", "tags"}) || res.Reinforce != hippo.ReinforceUp {
		t.Fatalf("edit a fact: %+v, chunk %+v", res, res.Chunk)
	}
	h, err := m.FactHistory(ctx, "", lisbon)
	if err != nil {
		t.Fatal(err)
	}
	if len(h) != 2 || h[0].ID != berlin || h[0].Content != "User lives in Berlin" || h[0].Current || h[0].ValidUntil == nil ||
		h[1].ID != lisbon || !h[1].Current {
		t.Errorf("history after the edit: %+v", h)
	}
	q := hippo.RecallInput{Query: "User lives in", Kind: hippo.KindFact}
	if got := recallContents(t, m, q); !slices.Contains(got, "User lives in Lisbon") || slices.Contains(got, "User lives in Berlin") {
		t.Errorf("recall now: %v", got)
	}
	q.AsOf = &before
	if got := recallContents(t, m, q); !slices.Contains(got, "User lives in Berlin") || slices.Contains(got, "User lives in Lisbon") {
		t.Errorf("recall as of before the edit: %v", got)
	}
	if got := recallContents(t, m, hippo.RecallInput{Query: "Lisbon", Tags: []string{"home"}}); !slices.Equal(got, []string{"User lives in Lisbon"}) {
		t.Errorf("recall by the new tag: %v", got)
	}

	// Edited into a fact already held: the edited one is superseded by it.
	res, err = m.UpdateMemory(ctx, hippo.UpdateInput{ID: lisbon, Content: ptr("The build server runs Debian"), Reinforce: hippo.ReinforceNone})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Merged || res.Chunk.ID != debian || res.PreviousID != lisbon || res.Chunk.EncounterCount != 3 {
		t.Errorf("edit into a known fact: %+v, chunk %+v", res, res.Chunk)
	}
	live := liveChunks(t, s, "alice", hippo.KindFact)
	if len(live) != 1 || live["The build server runs Debian"] == nil {
		t.Errorf("live facts after the merge: %v", live)
	}
	_, err = m.UpdateMemory(ctx, hippo.UpdateInput{ID: berlin, Content: ptr("User lives in Oslo")})
	wantCode(t, err, hippo.ECONFLICT)
}

func testUpdateMemory(t *testing.T, b Backend) {
	ctx := context.Background()
	s, tick := openClocked(t, b)
	m := memory(t, s, "alice", "", nil)
	store := func(content string) *hippo.Chunk {
		t.Helper()
		res, err := m.StoreMemory(ctx, hippo.StoreInput{Content: content, Metadata: json.RawMessage(`{"source":"notes","category":"decision"}`)})
		if err != nil {
			t.Fatal(err)
		}
		return res.Chunk
	}
	db := store("We chose SQLite over PostgreSQL")
	deploy := store("The deploy runs on Fridays")
	tick()

	// Content: same ID, re-embedded, the old text in its history.
	res, err := m.UpdateMemory(ctx, hippo.UpdateInput{ID: db.ID, Content: ptr("We chose SQLite over MySQL"),
		Category: ptr(""), Context: &[]string{"design discussion about storage"}, Reinforce: hippo.ReinforceNone})
	if err != nil {
		t.Fatal(err)
	}
	c := res.Chunk
	if c.ID != db.ID || c.Content != "We chose SQLite over MySQL" || res.PreviousID != "" || res.PreviousContent != "We chose SQLite over PostgreSQL" ||
		c.EncounterCount != 1 || c.AccessCount != 0 || c.RunningIntensity != db.RunningIntensity {
		t.Fatalf("edit a memory: %+v, chunk %+v", res, c)
	}
	var md map[string]any
	if err := json.Unmarshal(c.Metadata, &md); err != nil || md["source"] != "notes" || md["category"] != nil ||
		len(md["context"].([]any)) != 1 || len(hippo.MemoryVersions(c.Metadata)) != 1 {
		t.Errorf("metadata after the edit: %s (%v)", c.Metadata, err)
	}
	if got := recallContents(t, m, hippo.RecallInput{Query: "We chose SQLite over MySQL", Limit: 1}); !slices.Equal(got, []string{"We chose SQLite over MySQL"}) {
		t.Errorf("recall of the new text: %v", got)
	}
	h, err := m.FactHistory(ctx, "", db.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(h) != 2 || h[0].Content != "We chose SQLite over PostgreSQL" || h[0].Current || h[1].Content != "We chose SQLite over MySQL" || !h[1].Current {
		t.Errorf("memory history: %+v", h)
	}
	// Storing the old text again is a new memory: nothing holds it.
	if again, err := m.StoreMemory(ctx, hippo.StoreInput{Content: "We chose SQLite over PostgreSQL"}); err != nil || again.Duplicate {
		t.Errorf("store the old text: %+v, %v", again, err)
	}

	// Intensity and the votes.
	res, err = m.UpdateMemory(ctx, hippo.UpdateInput{ID: deploy.ID, Intensity: ptr(0.9), Reinforce: hippo.ReinforceNone})
	if err != nil || res.Chunk.RunningIntensity != 0.9 || res.Chunk.EncounterCount != 1 || !slices.Equal(res.Changed, []string{"intensity"}) {
		t.Errorf("set intensity: %+v, %v", res, err)
	}
	res, err = m.UpdateMemory(ctx, hippo.UpdateInput{ID: deploy.ID, Tags: &[]string{"ops"}})
	if err != nil || res.Chunk.RunningIntensity != hippo.MovingAverage(0.9, 1, 1) || res.Chunk.EncounterCount != 2 || res.Chunk.AccessCount != 1 {
		t.Errorf("upvote with an edit: %+v, %v", res.Chunk, err)
	}
	res, err = m.UpdateMemory(ctx, hippo.UpdateInput{ID: deploy.ID, Tags: &[]string{}, Reinforce: hippo.ReinforceDown})
	if err != nil || res.Chunk.EncounterCount != 3 || res.Chunk.AccessCount != 1 || strings.Contains(string(res.Chunk.Metadata), "tags") {
		t.Errorf("downvote with an edit: %+v, %v", res.Chunk, err)
	}

	// Edited into content another memory holds: merged into it, as a
	// store of that content would be.
	res, err = m.UpdateMemory(ctx, hippo.UpdateInput{ID: deploy.ID, Content: ptr("We chose SQLite over MySQL")})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Merged || res.Chunk.ID != db.ID || res.PreviousID != deploy.ID || res.Chunk.EncounterCount != 1+3+1 {
		t.Errorf("edit into a held memory: %+v, chunk %+v", res, res.Chunk)
	}
	live := liveChunks(t, s, "alice", hippo.KindMemory)
	if len(live) != 2 || live["The deploy runs on Fridays"] != nil {
		t.Errorf("live memories after the merge: %v", live)
	}

	// Errors change nothing: unknown IDs, another agent's, bad input.
	checkUpdatesRefused(t, s, m, db.ID, deploy.ID, res.Chunk)
}

// checkUpdatesRefused tries edits that must be refused through alice's
// memory m and bob's: of unknown IDs (mergedAway among them), of alice's
// memory held by bob, and with bad input. held, "We chose SQLite over
// MySQL", must be left as want.
func checkUpdatesRefused(t *testing.T, s Store, m hippo.AgentMemory, held, mergedAway string, want *hippo.Chunk) {
	ctx := context.Background()
	bob := memory(t, s, "bob", "", nil)
	for _, tt := range []struct {
		m    hippo.MemoryService
		in   hippo.UpdateInput
		code string
	}{
		{m, hippo.UpdateInput{ID: "01NOSUCHCHUNK0000000000000", Content: ptr("x")}, hippo.ENOTFOUND},
		{m, hippo.UpdateInput{ID: mergedAway, Content: ptr("x")}, hippo.ENOTFOUND},
		{bob, hippo.UpdateInput{ID: held, Content: ptr("hijacked")}, hippo.ENOTFOUND},
		{bob, hippo.UpdateInput{ID: held, Intensity: ptr(0.1)}, hippo.ENOTFOUND},
		{m, hippo.UpdateInput{ID: held}, hippo.EINVALID},
		{m, hippo.UpdateInput{ID: "", Content: ptr("x")}, hippo.EINVALID},
		{m, hippo.UpdateInput{ID: held, Content: ptr("  ")}, hippo.EINVALID},
		{m, hippo.UpdateInput{ID: held, Intensity: ptr(1.5)}, hippo.EINVALID},
		{m, hippo.UpdateInput{ID: held, Tags: &[]string{""}}, hippo.EINVALID},
		{m, hippo.UpdateInput{ID: held, Tags: &[]string{strings.Repeat("t", 120), strings.Repeat("u", 120)}, Context: ptr(slices.Repeat([]string{strings.Repeat("c", 999)}, 20))}, hippo.EINVALID},
		{m, hippo.UpdateInput{ID: held, Content: ptr("x"), Reinforce: "sideways"}, hippo.EINVALID},
	} {
		_, err := tt.m.UpdateMemory(ctx, tt.in)
		wantCode(t, err, tt.code)
	}
	after := liveChunks(t, s, "alice", hippo.KindMemory)["We chose SQLite over MySQL"]
	if after == nil || after.EncounterCount != 5 || after.RunningIntensity != want.RunningIntensity || string(after.Metadata) != string(want.Metadata) {
		t.Errorf("the refused edits changed the memory: %+v", after)
	}
}

// testConcurrentUpdateFact edits one fact from several goroutines at once:
// one edit wins, the others find it superseded (ECONFLICT), and one
// version is current.
func testConcurrentUpdateFact(t *testing.T, b Backend) {
	ctx := context.Background()
	s := open(t, b)
	m := memory(t, s, "alice", "", verbatim{})
	res, err := m.RememberFacts(ctx, "User lives in Berlin")
	if err != nil {
		t.Fatal(err)
	}
	id := res.Facts[0].ChunkID
	const n = 6
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = m.UpdateMemory(ctx, hippo.UpdateInput{ID: id, Content: ptr(fmt.Sprintf("User lives in city number %d", i))})
		}()
	}
	wg.Wait()
	won := 0
	for _, err := range errs {
		switch hippo.ErrorCode(err) {
		case "":
			won++
		case hippo.ECONFLICT:
		default:
			t.Errorf("concurrent edit: %v", err)
		}
	}
	live := liveChunks(t, s, "alice", hippo.KindFact)
	if won != 1 || len(live) != 1 {
		t.Errorf("%d edits won, %d live facts (%v); want 1 and 1", won, len(live), live)
	}
}
