package ui_test

import (
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/hippo-mem/hippo/ui"
)

// TestSessionLifetime: a session ends at sign-out and after
// ui.SessionLifetime; a sign-in link expires after ui.SignInCodeLifetime;
// failed sign-ins from one address are throttled.
func TestSessionLifetime(t *testing.T) {
	e := newEnv(t, "s3cret")
	e.seed(t)
	signIn := func() *http.Client {
		t.Helper()
		jar, _ := cookiejar.New(nil)
		c := &http.Client{Jar: jar}
		if status, body := get(t, c, e.srv.URL+e.ui.SignInPath()); status != http.StatusOK || !strings.Contains(body, "ada") {
			t.Fatalf("sign-in link: %d", status)
		}
		return c
	}
	signedIn := func(c *http.Client) bool {
		t.Helper()
		_, body := get(t, c, e.srv.URL+"/ui/")
		return !strings.Contains(body, `name="token"`)
	}

	// Sign-out ends the session: the cookie no longer works, even replayed.
	c := signIn()
	_, page := get(t, c, e.srv.URL+"/ui/")
	if !strings.Contains(page, `action="/ui/logout"`) {
		t.Error("no sign-out button on the pages")
	}
	u, _ := url.Parse(e.srv.URL + "/ui/")
	old := c.Jar.Cookies(u)
	res, err := c.PostForm(e.srv.URL+"/ui/logout", url.Values{"csrf": {csrfFrom(t, page)}})
	if status, _ := readAll(t, res, err); status != http.StatusOK || signedIn(c) {
		t.Errorf("after sign-out: status %d, signed in %v", status, signedIn(c))
	}
	replay, _ := cookiejar.New(nil)
	replay.SetCookies(u, old)
	if signedIn(&http.Client{Jar: replay}) {
		t.Error("the cookie of a signed-out session still signs in")
	}

	// A session expires.
	c = signIn()
	e.clk.Advance(ui.SessionLifetime - time.Minute)
	if !signedIn(c) {
		t.Error("session ended before its lifetime")
	}
	e.clk.Advance(2 * time.Minute)
	if signedIn(c) {
		t.Error("session still valid after its lifetime")
	}

	// A sign-in link expires unused.
	link := e.srv.URL + e.ui.SignInPath()
	e.clk.Advance(ui.SignInCodeLifetime + time.Second)
	jar, _ := cookiejar.New(nil)
	if status, _ := get(t, &http.Client{Jar: jar}, link); status != http.StatusUnauthorized {
		t.Errorf("expired sign-in link: status %d, want 401", status)
	}

	// Failed sign-ins are throttled: past the limit, even the right token
	// waits, and says so. (The expired link above was a failure: its
	// minute passes first.)
	e.clk.Advance(time.Minute + time.Second)
	jar, _ = cookiejar.New(nil)
	b := &http.Client{Jar: jar}
	_, form := get(t, b, e.srv.URL+"/ui/login")
	csrf := csrfFrom(t, form)
	for i := range ui.MaxFailedSignIns {
		res, err := b.PostForm(e.srv.URL+"/ui/login", url.Values{"token": {"wrong"}, "csrf": {csrf}})
		if status, _ := readAll(t, res, err); status != http.StatusUnauthorized {
			t.Fatalf("failed sign-in %d: status %d, want 401", i, status)
		}
	}
	res, err = b.PostForm(e.srv.URL+"/ui/login", url.Values{"token": {"s3cret"}, "csrf": {csrf}})
	status, body := readAll(t, res, err)
	if status != http.StatusTooManyRequests || res.Header.Get("Retry-After") == "" || !strings.Contains(body, "Too many") {
		t.Errorf("sign-in past the limit: status %d, want 429 with Retry-After", status)
	}
	if status, _ := get(t, b, e.srv.URL+"/ui/login?code=guess"); status != http.StatusTooManyRequests {
		t.Errorf("code guess past the limit: status %d, want 429", status)
	}
	e.clk.Advance(time.Minute + time.Second)
	res, err = b.PostForm(e.srv.URL+"/ui/login", url.Values{"token": {"s3cret"}, "csrf": {csrf}})
	if status, _ := readAll(t, res, err); status != http.StatusOK || !signedIn(b) {
		t.Errorf("sign-in a minute later: status %d", status)
	}
}
