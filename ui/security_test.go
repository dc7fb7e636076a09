package ui_test

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/hippo-mem/hippo"
)

// xssPayloads are stored as memory content, metadata, block values and
// keys; none may reach a page as markup.
var xssPayloads = []string{
	`<script>alert("xss")</script>`,
	`<img src=x onerror=alert(1)>`,
	`"><svg onload=alert(1)>`,
}

// get fetches a UI path and returns the status and body.
func get(t *testing.T, c *http.Client, u string) (int, string) {
	t.Helper()
	res, err := c.Get(u)
	return readAll(t, res, err)
}

// readAll returns a response's status and body.
func readAll(t *testing.T, res *http.Response, err error) (int, string) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, string(b)
}

var csrfRe = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// csrfFrom reads the CSRF token from a page's form.
func csrfFrom(t *testing.T, body string) string {
	t.Helper()
	m := csrfRe.FindStringSubmatch(body)
	if m == nil {
		t.Fatal("no CSRF token in the page")
	}
	return m[1]
}

func TestPagesEscapeStoredContent(t *testing.T) {
	e := newEnv(t, "")
	ctx := context.Background()
	m := e.mem(t, "ada")
	for _, p := range xssPayloads {
		if _, err := m.StoreMemory(ctx, hippo.StoreInput{Content: "note " + p,
			Metadata: []byte(`{"tags":[` + jsonString(p) + `],"category":` + jsonString(p) + `}`)}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := m.SetBlock(ctx, "persona", xssPayloads[0]+xssPayloads[1]); err != nil {
		t.Fatal(err)
	}
	if _, err := m.DescribeBlock(ctx, "persona", xssPayloads[2]); err != nil {
		t.Fatal(err)
	}
	chunks, err := m.Recall(ctx, hippo.RecallInput{Query: "note script alert", MinRelevance: new(float64), DryRun: true})
	if err != nil || len(chunks) == 0 {
		t.Fatalf("recall = %v, %v", chunks, err)
	}
	q := url.QueryEscape(xssPayloads[0])
	pages := []string{
		"/ui/", "/ui/memory?agent=ada", "/ui/memory?agent=ada&sort=strength&tag=" + url.QueryEscape(xssPayloads[1]),
		"/ui/memory?agent=ada&q=" + q, "/ui/overview?agent=ada",
		"/ui/recall?agent=ada&min_relevance=0&q=" + q, "/ui/recall?agent=ada&alpha=" + q + "&q=x",
		"/ui/history?agent=ada&q=" + q + "&as_of=" + q, "/ui/blocks?agent=ada", "/ui/block?agent=ada&key=persona",
		"/ui/forget?agent=ada&threshold=0.01&description=" + q, "/ui/chunk?agent=ada&id=" + chunks[0].Chunk.ID,
	}
	for _, p := range pages {
		status, body := get(t, e.srv.Client(), e.srv.URL+p)
		if status >= 500 {
			t.Errorf("%s: status %d", p, status)
		}
		// The UI has no script, image or event handler of its own: any of
		// these is a payload that got through as markup.
		for _, bad := range append([]string{"<script", "<img", "<svg onload"}, xssPayloads...) {
			if strings.Contains(strings.ToLower(body), bad) {
				i := strings.Index(strings.ToLower(body), bad)
				t.Errorf("%s: page contains %q unescaped: …%s…", p, bad, body[max(0, i-80):min(len(body), i+80)])
			}
		}
	}
	// The escaped text is there, so the test looked at the right pages.
	if _, body := get(t, e.srv.Client(), e.srv.URL+"/ui/memory?agent=ada"); !strings.Contains(body, "&lt;script&gt;alert(&#34;xss&#34;)&lt;/script&gt;") {
		t.Error("the memory page does not show the escaped <script> content")
	}
}

func jsonString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		if r == '"' || r == '\\' {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	b.WriteByte('"')
	return b.String()
}

func TestStateChangesNeedTheCSRFToken(t *testing.T) {
	e := newEnv(t, "")
	e.seed(t)
	ctx := context.Background()
	m := e.mem(t, "ada")
	_, page := get(t, e.srv.Client(), e.srv.URL+"/ui/block?agent=ada&key=persona")
	token := csrfFrom(t, page)
	victim, err := m.Recall(ctx, hippo.RecallInput{Query: "pizza lunch", Limit: 1, DryRun: true})
	if err != nil || len(victim) != 1 {
		t.Fatalf("recall = %v, %v", victim, err)
	}
	id := victim[0].Chunk.ID
	posts := []struct {
		path string
		form url.Values
	}{
		{"/ui/block/apply", url.Values{"agent": {"ada"}, "key": {"persona"}, "action": {"set"}, "text": {"pwned"}}},
		{"/ui/block/apply", url.Values{"agent": {"ada"}, "key": {"persona"}, "action": {"delete"}}},
		{"/ui/block/preview", url.Values{"agent": {"ada"}, "key": {"persona"}, "action": {"set"}, "text": {"pwned"}}},
		{"/ui/chunk/delete", url.Values{"agent": {"ada"}, "id": {id}}},
		{"/ui/chunk/trust", url.Values{"agent": {"ada"}, "id": {id}}},
		{"/ui/forget", url.Values{"agent": {"ada"}, "id": {id}}},
		{"/ui/recall", url.Values{"agent": {"ada"}, "q": {"pizza lunch"}}},
	}
	for _, bad := range []string{"", "forged", token + "x"} {
		for _, p := range posts {
			f := url.Values{}
			for k, v := range p.form {
				f[k] = v
			}
			if bad != "" {
				f.Set("csrf", bad)
			}
			res, err := e.srv.Client().PostForm(e.srv.URL+p.path, f)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != http.StatusForbidden {
				t.Errorf("POST %s with csrf %q: status %d, want 403", p.path, bad, res.StatusCode)
			}
		}
	}
	// Nothing changed.
	if b, err := m.Block(ctx, "persona"); err != nil || b == nil || b.Value != "Helpful and terse." {
		t.Errorf("persona block after forged posts = %+v, %v", b, err)
	}
	c, err := e.db.Chunk(ctx, "ada", id)
	if err != nil {
		t.Fatalf("chunk %s after forged posts: %v", id, err)
	}
	if c.AccessCount != victim[0].Chunk.AccessCount {
		t.Errorf("a forged recall boosted the chunk: access %d → %d", victim[0].Chunk.AccessCount, c.AccessCount)
	}
	// A cross-site request is refused even with the token.
	req, _ := http.NewRequest("POST", e.srv.URL+"/ui/block/apply", strings.NewReader(url.Values{"csrf": {token}, "agent": {"ada"},
		"key": {"persona"}, "action": {"set"}, "text": {"pwned"}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	if res, err := e.srv.Client().Do(req); err != nil || res.StatusCode != http.StatusForbidden {
		t.Errorf("cross-site POST = %v, %v: want 403", res, err)
	}
	// With the page's token the same request goes through.
	f := url.Values{"csrf": {token}, "agent": {"ada"}, "key": {"persona"}, "action": {"set"}, "text": {"edited"}}
	res, err := e.srv.Client().PostForm(e.srv.URL+"/ui/block/apply", f)
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("POST with the token = %v, %v", res, err)
	}
	if b, _ := m.Block(ctx, "persona"); b == nil || b.Value != "edited" {
		t.Errorf("persona block after a valid post = %+v", b)
	}
}

func TestSecurityHeaders(t *testing.T) {
	e := newEnv(t, "")
	e.seed(t)
	for _, p := range []string{"/ui/", "/ui/memory?agent=ada", "/ui/static/style.css"} {
		res, err := e.srv.Client().Get(e.srv.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		csp := res.Header.Get("Content-Security-Policy")
		for _, want := range []string{"default-src 'none'", "style-src 'self'", "form-action 'self'", "frame-ancestors 'none'"} {
			if !strings.Contains(csp, want) {
				t.Errorf("%s: CSP %q lacks %q", p, csp, want)
			}
		}
		if strings.Contains(csp, "unsafe-inline") || strings.Contains(csp, "script-src") {
			t.Errorf("%s: CSP %q allows script", p, csp)
		}
		if res.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s: no nosniff", p)
		}
	}
}

func TestTokenSignIn(t *testing.T) {
	e := newEnv(t, "s3cret")
	e.seed(t)
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	// Signed out: every page sends to the sign-in form, nothing leaks.
	for _, p := range []string{"/ui/", "/ui/memory?agent=ada", "/ui/export?agent=ada"} {
		status, body := get(t, c, e.srv.URL+p)
		if status != http.StatusOK || !strings.Contains(body, `name="token"`) || strings.Contains(body, "deploy") {
			t.Errorf("%s signed out: status %d, want the sign-in form", p, status)
		}
	}
	if status, _ := get(t, c, e.srv.URL+"/ui/login?code=guess"); status != http.StatusUnauthorized {
		t.Errorf("unknown sign-in code: status %d, want 401", status)
	}
	_, form := get(t, c, e.srv.URL+"/ui/login")
	loginCSRF := csrfFrom(t, form)
	res, _ := c.PostForm(e.srv.URL+"/ui/login", url.Values{"token": {"wrong"}, "csrf": {loginCSRF}})
	if res.StatusCode != http.StatusUnauthorized {
		t.Errorf("wrong token: status %d, want 401", res.StatusCode)
	}
	// Signing in needs the form's token too (no login CSRF).
	res, _ = c.PostForm(e.srv.URL+"/ui/login", url.Values{"token": {"s3cret"}})
	if res.StatusCode != http.StatusForbidden {
		t.Errorf("sign-in without the CSRF token: status %d, want 403", res.StatusCode)
	}
	// The printed link signs in once.
	link := e.srv.URL + e.ui.SignInPath()
	status, body := get(t, c, link)
	if status != http.StatusOK || !strings.Contains(body, "ada") {
		t.Fatalf("sign-in link: status %d, body %.200s", status, body)
	}
	u, _ := url.Parse(e.srv.URL + "/ui/")
	cs := jar.Cookies(u)
	if len(cs) != 1 {
		t.Fatalf("cookies after sign-in: %v", cs)
	}
	// A second browser cannot reuse the link.
	jar2, _ := cookiejar.New(nil)
	if status, _ := get(t, &http.Client{Jar: jar2}, link); status != http.StatusUnauthorized {
		t.Errorf("reused sign-in link: status %d, want 401", status)
	}
	// The cookie is HttpOnly and SameSite=Strict.
	res, err := (&http.Client{Jar: jar2, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).
		PostForm(e.srv.URL+"/ui/login", url.Values{"token": {"s3cret"}, "csrf": {loginCSRF}})
	if err != nil {
		t.Fatal(err)
	}
	sc := res.Header.Get("Set-Cookie")
	if !strings.Contains(sc, "HttpOnly") || !strings.Contains(sc, "SameSite=Strict") {
		t.Errorf("session cookie %q: want HttpOnly and SameSite=Strict", sc)
	}
	// A CSRF token from one session is refused in another.
	_, page := get(t, c, e.srv.URL+"/ui/block?agent=ada&key=persona")
	tok := csrfFrom(t, page)
	res, _ = (&http.Client{Jar: jar2}).PostForm(e.srv.URL+"/ui/block/apply", url.Values{"csrf": {tok}, "agent": {"ada"},
		"key": {"persona"}, "action": {"set"}, "text": {"pwned"}})
	if res.StatusCode != http.StatusForbidden {
		t.Errorf("another session's CSRF token: status %d, want 403", res.StatusCode)
	}
}
