package ui_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/sqlite"
)

// post submits a form with the CSRF token of the page at from.
func post(t *testing.T, e *env, from, path string, form url.Values) (int, string) {
	t.Helper()
	_, page := get(t, e.srv.Client(), e.srv.URL+from)
	form.Set("csrf", csrfFrom(t, page))
	res, err := e.srv.Client().PostForm(e.srv.URL+path, form)
	return readAll(t, res, err)
}

func TestRecallPreviewDoesNotBoost(t *testing.T) {
	e := newEnv(t, "")
	e.seed(t)
	ctx := context.Background()
	hit, err := e.mem(t, "ada").Recall(ctx, hippo.RecallInput{Query: "where is the deploy key", Limit: 1, DryRun: true})
	if err != nil || len(hit) != 1 {
		t.Fatalf("recall = %v, %v", hit, err)
	}
	id, access := hit[0].Chunk.ID, hit[0].Chunk.AccessCount
	for range 3 {
		status, body := get(t, e.srv.Client(), e.srv.URL+"/ui/recall?agent=ada&q=where+is+the+deploy+key")
		if status != http.StatusOK || !strings.Contains(body, "nothing was boosted") || !strings.Contains(body, "deploy key") ||
			!strings.Contains(body, "BM25 with the database's word statistics") {
			t.Fatalf("preview: status %d\n%s", status, body)
		}
	}
	if c, _ := e.db.Chunk(ctx, "ada", id); c.AccessCount != access {
		t.Fatalf("previews boosted the chunk: access %d → %d", access, c.AccessCount)
	}
	status, body := post(t, e, "/ui/recall?agent=ada&q=where+is+the+deploy+key", "/ui/recall",
		url.Values{"agent": {"ada"}, "q": {"where is the deploy key"}, "limit": {"1"}})
	if status != http.StatusOK || !strings.Contains(body, "results above the floor were boosted") {
		t.Fatalf("recall and boost: status %d", status)
	}
	if c, _ := e.db.Chunk(ctx, "ada", id); c.AccessCount != access+1 {
		t.Errorf("recall and boost: access %d → %d, want one more", access, c.AccessCount)
	}
	// Bad input is shown on the page, not a crash.
	if status, body := get(t, e.srv.Client(), e.srv.URL+"/ui/recall?agent=ada&q=x&alpha=2"); status != http.StatusBadRequest || !strings.Contains(body, "alpha") {
		t.Errorf("alpha 2: status %d", status)
	}
}

func TestHistoryAsOf(t *testing.T) {
	e := newEnv(t, "")
	e.seed(t)
	// The seed: Paris from 2026-04-06, Berlin from 04-12, Lisbon from 04-18.
	status, body := get(t, e.srv.Client(), e.srv.URL+"/ui/history?agent=ada&q=User+lives+in+Berlin&as_of=2026-04-14")
	if status != http.StatusOK {
		t.Fatalf("status %d", status)
	}
	for _, want := range []string{"User lives in Paris", "User lives in Berlin", "User lives in Lisbon"} {
		if !strings.Contains(body, want) {
			t.Errorf("history lacks %q", want)
		}
	}
	// A bare date is the end of its day (hippo.ParseTime): as of the day
	// the user moved at 09:00, the new city is current.
	for _, tt := range []struct{ asOf, city string }{
		{"2026-04-14", "Berlin"}, {"2026-04-12", "Berlin"}, {"2026-04-11", "Paris"}, {"2026-04-12T08:00", "Paris"},
	} {
		_, body := get(t, e.srv.Client(), e.srv.URL+"/ui/history?agent=ada&q=User+lives+in+Berlin&as_of="+tt.asOf)
		mark := "current at " + tt.asOf
		i := strings.Index(body, mark)
		if i < 0 || !strings.Contains(body[max(0, i-200):i], "User lives in "+tt.city) {
			t.Errorf("%s is not marked current at %s", tt.city, tt.asOf)
		}
		if n := strings.Count(body, mark); n != 1 {
			t.Errorf("%d versions marked current at %s, want 1", n, tt.asOf)
		}
	}
	if status, _ := get(t, e.srv.Client(), e.srv.URL+"/ui/history?agent=ada&q=x&as_of=yesterday"); status != http.StatusBadRequest {
		t.Errorf("bad as_of: status %d, want 400", status)
	}
}

func TestDeleteChunkShowsWhatItResurrects(t *testing.T) {
	e := newEnv(t, "")
	e.seed(t)
	ctx := context.Background()
	live, err := e.db.ListChunks(ctx, sqlite.ChunkFilter{AgentID: "ada", Kind: hippo.KindFact, Text: "Lisbon"})
	if err != nil || len(live) != 1 {
		t.Fatalf("Lisbon fact: %v, %v", live, err)
	}
	id := live[0].ID
	status, body := get(t, e.srv.Client(), e.srv.URL+"/ui/chunk?agent=ada&id="+id)
	if status != http.StatusOK || !strings.Contains(body, "current again") || !strings.Contains(body, "User lives in Berlin") {
		t.Fatalf("chunk page: status %d, want Berlin among what deleting resurrects", status)
	}
	status, body = post(t, e, "/ui/chunk?agent=ada&id="+id, "/ui/chunk/delete", url.Values{"agent": {"ada"}, "id": {id}})
	if status != http.StatusOK || !strings.Contains(body, "User lives in Berlin") {
		t.Fatalf("delete: status %d", status)
	}
	if _, err := e.db.Chunk(ctx, "ada", id); hippo.ErrorCode(err) != hippo.ENOTFOUND {
		t.Errorf("deleted chunk: %v", err)
	}
	h, err := e.mem(t, "ada").FactHistory(ctx, "User lives in Berlin", "")
	if err != nil || len(h) == 0 || !h[len(h)-1].Current || !strings.Contains(h[len(h)-1].Content, "Berlin") {
		t.Errorf("history after the delete = %+v, %v: want Berlin current", h, err)
	}
}

func TestForgetDeletesWhatWasPreviewed(t *testing.T) {
	e := newEnv(t, "")
	e.seed(t)
	ctx := context.Background()
	preview := "/ui/forget?agent=ada&description=" + url.QueryEscape("Lunch on Friday was pizza with the platform team")
	status, body := get(t, e.srv.Client(), e.srv.URL+preview)
	if status != http.StatusOK || !strings.Contains(body, "would be deleted") {
		t.Fatalf("preview: status %d", status)
	}
	before, _ := e.db.CountChunks(ctx, sqlite.ChunkFilter{AgentID: "ada", Superseded: true})
	ids := idsIn(body)
	if len(ids) == 0 {
		t.Fatal("no chunk listed in the preview")
	}
	if after, _ := e.db.CountChunks(ctx, sqlite.ChunkFilter{AgentID: "ada", Superseded: true}); after != before {
		t.Fatal("the preview deleted something")
	}
	status, _ = post(t, e, preview, "/ui/forget", url.Values{"agent": {"ada"}, "id": ids})
	if status != http.StatusOK {
		t.Fatalf("confirm: status %d", status)
	}
	if after, _ := e.db.CountChunks(ctx, sqlite.ChunkFilter{AgentID: "ada", Superseded: true}); after != before-len(ids) {
		t.Errorf("chunks %d → %d, want %d fewer", before, after, len(ids))
	}
}

// idsIn reads the chunk IDs a forget preview carries in its form.
func idsIn(body string) []string {
	var ids []string
	for _, part := range strings.Split(body, `name="id" value="`)[1:] {
		ids = append(ids, part[:strings.IndexByte(part, '"')])
	}
	return ids
}

func TestExportDownload(t *testing.T) {
	e := newEnv(t, "")
	e.seed(t)
	res, err := e.srv.Client().Get(e.srv.URL + "/ui/export?agent=ada")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if cd := res.Header.Get("Content-Disposition"); !strings.Contains(cd, `attachment; filename="hippo-export-ada.json"`) {
		t.Errorf("Content-Disposition %q", cd)
	}
	var head struct {
		Format string `json:"format"`
	}
	if err := json.NewDecoder(res.Body).Decode(&head); err != nil || head.Format != sqlite.ExportFormat {
		t.Errorf("export = %+v, %v", head, err)
	}
}

func TestMemoryTableFiltersAndSorts(t *testing.T) {
	e := newEnv(t, "")
	e.seed(t)
	for _, c := range []struct {
		query     string
		want, not []string
	}{
		{"tag=secrets", []string{"deploy key"}, []string{"pizza"}},
		{"category=infra", []string{"deploy key", "staging database"}, []string{"pizza"}},
		{"state=superseded", []string{"Paris", "Berlin"}, []string{"Lisbon", "deploy key"}},
		{"kind=fact", []string{"Lisbon", "Neovim"}, []string{"deploy key"}},
		{"q=PIZZA", []string{"pizza"}, []string{"deploy key"}},
		{"sort=strength", []string{"deploy key", "pizza"}, nil},
	} {
		status, body := get(t, e.srv.Client(), e.srv.URL+"/ui/memory?agent=ada&"+c.query)
		if status != http.StatusOK {
			t.Errorf("%s: status %d", c.query, status)
			continue
		}
		table := body[strings.Index(body, `<table class="chunks">`):]
		for _, w := range c.want {
			if !strings.Contains(table, w) {
				t.Errorf("%s: lacks %q", c.query, w)
			}
		}
		for _, n := range c.not {
			if strings.Contains(table, n) {
				t.Errorf("%s: shows %q", c.query, n)
			}
		}
	}
	// By strength the recalled deploy key comes first.
	_, body := get(t, e.srv.Client(), e.srv.URL+"/ui/memory?agent=ada&sort=strength")
	if strings.Index(body, "deploy key") > strings.Index(body, "pizza") {
		t.Error("sort=strength: the deploy key (recalled 4 times) is not above the pizza lunch")
	}
	if status, _ := get(t, e.srv.Client(), e.srv.URL+"/ui/memory?agent=ada&sort=bogus"); status != http.StatusBadRequest {
		t.Errorf("bad sort: status %d, want 400", status)
	}
}

// TestDecayModelShown names the database's decay model on the overview
// and the memory table, with the half-life under that model: ln 2 days
// for a never-recalled chunk of the default intensity (S = 1 day) under
// Ebbinghaus, the seed's 28.9 days otherwise.
func TestDecayModelShown(t *testing.T) {
	for _, tt := range []struct {
		model    hippo.DecayModel
		halfLife string
		lambda   bool
	}{
		{hippo.DecayHippo, "28.9 days", true},
		{hippo.DecayEbbinghaus, "0.7 days", false},
	} {
		e := newEnv(t, "", func(o *sqlite.Options) { o.Decay = tt.model })
		e.seed(t)
		_, body := get(t, e.srv.Client(), e.srv.URL+"/ui/overview?agent=ada")
		if !strings.Contains(body, "<dt>Decay model</dt><dd>"+string(tt.model)+"</dd>") || !strings.Contains(body, tt.halfLife) ||
			strings.Contains(body, "<dt>λ</dt>") != tt.lambda {
			t.Errorf("%s: overview lacks the model or its half-life %s:\n%s", tt.model, tt.halfLife, body)
		}
		_, body = get(t, e.srv.Client(), e.srv.URL+"/ui/memory?agent=ada")
		if !strings.Contains(body, "decay model "+string(tt.model)) {
			t.Errorf("%s: the memory table does not name the model", tt.model)
		}
	}
}

// TestKeptTextShown: the chunk page of a text remember_facts kept says so,
// and a fact's page says it was extracted from a text.
func TestKeptTextShown(t *testing.T) {
	e := newEnv(t, "")
	res, err := e.mem(t, "ada").RememberFacts(context.Background(), "I keep bees on the roof of the office.")
	if err != nil || res.Message == nil || len(res.Facts) == 0 {
		t.Fatalf("remember = %+v, %v", res, err)
	}
	for id, want := range map[string]string{
		res.Message.ID:       "the text itself, kept as a memory",
		res.Facts[0].ChunkID: "extracted from a text",
	} {
		status, body := get(t, e.srv.Client(), e.srv.URL+"/ui/chunk?agent=ada&id="+id)
		if status != http.StatusOK || !strings.Contains(body, want) {
			t.Errorf("chunk page of %s: status %d, want %q", id, status, want)
		}
	}
	if _, body := get(t, e.srv.Client(), e.srv.URL+"/ui/"); !strings.Contains(body, "1 of them texts kept by remember") {
		t.Errorf("the agents page does not count the kept text")
	}
}

// TestFollowUpShown: the chunk page of a follow-up links the memory it was
// read after.
func TestFollowUpShown(t *testing.T) {
	e := newEnv(t, "")
	ctx := context.Background()
	m := e.mem(t, "ada")
	before, err := m.StoreMemory(ctx, hippo.StoreInput{Content: "My son is 8."})
	if err != nil {
		t.Fatal(err)
	}
	follow, err := m.StoreMemory(ctx, hippo.StoreInput{Content: "He has hay fever."})
	if err != nil {
		t.Fatal(err)
	}
	status, body := get(t, e.srv.Client(), e.srv.URL+"/ui/chunk?agent=ada&id="+follow.Chunk.ID)
	if want := "id=" + before.Chunk.ID + `">` + before.Chunk.ID + "</a>: this follow-up"; status != http.StatusOK || !strings.Contains(body, want) {
		t.Errorf("chunk page of the follow-up: status %d, want %q in\n%s", status, want, body)
	}
}
