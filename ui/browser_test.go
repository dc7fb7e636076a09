package ui_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/mcp"
)

// browserPath finds Debian's chromium (or another Chrome). With CI set a
// missing browser fails the test; otherwise it skips.
func browserPath(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("no chromium on PATH: install it (apt-get install -y chromium); CI runs the browser tests")
	}
	t.Skip("no chromium on PATH (apt-get install -y chromium); the browser tests are skipped outside CI")
	return ""
}

// browser is a headless Chromium tab that records console messages.
type browser struct {
	t       *testing.T
	ctx     context.Context
	dir     string // screenshots
	mu      sync.Mutex
	console []chromedp.ConsoleMessage
}

func newBrowser(t *testing.T) *browser {
	exe := browserPath(t)
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe),
		chromedp.Headless,
		chromedp.NoSandbox, // tests run as root in CI containers
		chromedp.DisableGPU,
		chromedp.WindowSize(1360, 900),
		chromedp.UserDataDir(t.TempDir()),
		// Loopback only: every other host name fails to resolve.
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"),
		chromedp.ProxyServer("direct://"),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	if err := chromedp.Do(ctx); err != nil { // starts the browser
		t.Fatalf("start %s: %v", exe, err)
	}
	b := &browser{t: t, ctx: ctx, dir: t.TempDir()}
	messages := chromedp.Console(ctx)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			b.mu.Lock()
			b.console = append(b.console, m)
			b.mu.Unlock()
		}
	}()
	return b
}

// do runs actions with a time limit.
func (b *browser) do(what string, steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		b.t.Fatalf("%s: %v", what, err)
	}
}

// click clicks what navigates to another page and waits for it to load.
func (b *browser) click(what string, sel chromedp.CSS) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	res, err := chromedp.RunResponse(ctx, chromedp.Click(sel))
	if err != nil {
		b.t.Fatalf("%s: click %s: %v", what, sel, err)
	}
	if res != nil && res.Status >= 400 {
		b.t.Fatalf("%s: click %s: status %d", what, sel, res.Status)
	}
}

func (b *browser) text(sel chromedp.CSS) string {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	s, err := chromedp.Run(ctx, chromedp.Text(sel))
	if err != nil {
		b.t.Fatalf("text of %s: %v", sel, err)
	}
	return s
}

// shot saves a screenshot of the whole page as name.png and prints where.
func (b *browser) shot(name string) string {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		b.t.Fatalf("screenshot %s: %v", name, err)
	}
	p := filepath.Join(b.dir, name+".png")
	if err := os.WriteFile(p, png, 0o644); err != nil {
		b.t.Fatal(err)
	}
	b.t.Logf("screenshot %s", p)
	if out := os.Getenv("HIPPO_UI_SCREENSHOTS"); out != "" {
		if err := os.WriteFile(filepath.Join(out, "ui-"+name+".png"), png, 0o644); err != nil {
			b.t.Fatal(err)
		}
	}
	return p
}

// noConsoleErrors fails on any error or exception the pages logged,
// Content-Security-Policy violations included.
func (b *browser) noConsoleErrors() {
	b.t.Helper()
	time.Sleep(200 * time.Millisecond) // let the last events arrive
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, m := range b.console {
		if m.Type == chromedp.ConsoleError || m.Type == chromedp.ConsoleException || m.Type == chromedp.ConsoleWarning {
			b.t.Errorf("console %s: %s (%s)", m.Type, m.Text, m.URL)
		}
	}
}

// TestBrowserScenario clicks through the UI in Chromium, served by the MCP
// server as `hippo serve` does, with a token: sign in, open the agent,
// search and read the explanation, edit a block, forget with preview and
// confirmation, open a fact's history.
func TestBrowserScenario(t *testing.T) {
	b := newBrowser(t)
	e := newEnv(t, "s3cret")
	e.seed(t)
	ctx := context.Background()
	srv, err := mcp.NewServer(mcp.Config{DB: e.db, Embedder: e.emb, AuthToken: "s3cret", UI: e.ui})
	if err != nil {
		t.Fatal(err)
	}
	e.srv.Config.Handler = srv.Handler()
	m := e.mem(t, "ada")

	// Sign in with the one-time link: the agents page.
	b.do("sign in", chromedp.Navigate(e.srv.URL+e.ui.SignInPath()))
	if got := b.text("main table"); !strings.Contains(got, "ada") {
		t.Fatalf("agents page: %q", got)
	}
	b.shot("agents")

	// Open the agent: the memory table with strength bars and curves.
	b.click("open agent", `a[href="/ui/memory?agent=ada"]`)
	if got := b.text("table.chunks"); !strings.Contains(got, "deploy key") {
		t.Fatalf("memory table: %q", got)
	}
	b.do("curves", chromedp.WaitVisible(chromedp.CSS("table.chunks svg.curve polyline")))
	b.shot("memory")
	b.click("overview", `nav a[href="/ui/overview?agent=ada"]`)
	if got := b.text("main"); !strings.Contains(got, "hippo-glove") {
		t.Errorf("overview lacks the model lock: %q", got)
	}
	b.shot("overview")

	// Search and read the explanation; the preview boosts nothing.
	before, err := m.Recall(ctx, hippo.RecallInput{Query: "where is the deploy key", Limit: 1, DryRun: true})
	if err != nil || len(before) != 1 || !strings.Contains(before[0].Chunk.Content, "deploy key") {
		t.Fatalf("recall = %v, %v", before, err)
	}
	b.click("recall tab", `nav a[href="/ui/recall?agent=ada"]`)
	b.do("query", chromedp.SetValue(chromedp.CSS(`input[name="q"]`), "where is the deploy key"),
		chromedp.SetValue(chromedp.CSS(`input[name="min_relevance"]`), "0"), chromedp.SetValue(chromedp.CSS(`input[name="limit"]`), "4"))
	b.click("preview", "#preview")
	first := b.text("ol.results > li")
	for _, want := range []string{"deploy key", "cosine relevance", "BM25 relevance", "strength", "recency"} {
		if !strings.Contains(first, want) {
			t.Errorf("first result lacks %q: %q", want, first)
		}
	}
	b.do("stacked bar", chromedp.WaitVisible(chromedp.CSS("ol.results svg.stack rect.cos")))
	b.shot("recall")
	after, err := e.db.Chunk(ctx, "ada", before[0].Chunk.ID)
	if err != nil {
		t.Fatal(err)
	}
	if after.AccessCount != before[0].Chunk.AccessCount || after.RunningIntensity != before[0].Chunk.RunningIntensity {
		t.Errorf("the preview boosted the chunk: access %d → %d, intensity %v → %v", before[0].Chunk.AccessCount,
			after.AccessCount, before[0].Chunk.RunningIntensity, after.RunningIntensity)
	}

	// Edit a block: append, preview, confirm; it persists.
	b.click("blocks tab", `nav a[href="/ui/blocks?agent=ada"]`)
	b.click("persona", `a[href="/ui/block?agent=ada&key=persona"]`)
	b.do("append text", chromedp.SetValue(chromedp.CSS(`#append textarea[name="text"]`), "Prefers answers in French."))
	b.click("append preview", "#append button")
	if got := b.text("#after"); got != "Helpful and terse.\nPrefers answers in French." {
		t.Errorf("preview shows %q", got)
	}
	b.shot("block-preview")
	if blk, _ := m.Block(ctx, "persona"); blk == nil || blk.Value != "Helpful and terse." {
		t.Errorf("the preview changed the block: %+v", blk)
	}
	b.click("confirm", "#confirm")
	if got := b.text("#value"); !strings.Contains(got, "Prefers answers in French.") {
		t.Errorf("block page after the edit: %q", got)
	}
	if blk, err := m.Block(ctx, "persona"); err != nil || blk == nil || blk.Value != "Helpful and terse.\nPrefers answers in French." {
		t.Errorf("block in the library after the edit = %+v, %v", blk, err)
	}

	// Forget with preview and confirmation; it is gone from recall.
	b.click("forget tab", `nav a[href="/ui/forget?agent=ada"]`)
	b.do("description", chromedp.SetValue(chromedp.CSS(`input[name="description"]`), "Lunch on Friday was pizza with the platform team"))
	b.click("forget preview", "#forget-preview")
	if got := b.text("main form.danger"); !strings.Contains(got, "pizza") {
		t.Fatalf("forget preview: %q", got)
	}
	b.shot("forget-preview")
	b.click("forget confirm", "#forget-confirm")
	if got := b.text("main section.card"); !strings.Contains(got, "Deleted") {
		t.Errorf("after forgetting: %q", got)
	}
	res, err := m.Recall(ctx, hippo.RecallInput{Query: "pizza lunch on friday", MinRelevance: new(float64), Limit: 50, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if strings.Contains(r.Chunk.Content, "pizza") {
			t.Errorf("recall still finds %q", r.Chunk.Content)
		}
	}

	// Open a fact's history from the memory table.
	b.click("memory tab", `nav a[href="/ui/memory?agent=ada"]`)
	b.do("facts only", chromedp.SetValue(chromedp.CSS(`select[name="kind"]`), "fact"), chromedp.SetValue(chromedp.CSS(`input[name="q"]`), "Lisbon"))
	b.click("filter", "form.filters button")
	b.click("history", "table.chunks a.small")
	got := b.text(".timeline")
	for _, want := range []string{"Paris", "Berlin", "Lisbon", "current"} {
		if !strings.Contains(got, want) {
			t.Errorf("history lacks %q: %q", want, got)
		}
	}
	b.shot("history")
	b.noConsoleErrors()
}
