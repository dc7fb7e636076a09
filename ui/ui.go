// Package ui serves a web UI for looking inside agents' memory: the
// agents, each agent's chunks with their strength over time, a recall
// playground that explains every score, fact histories, blocks, forgetting
// and export. Pages are rendered on the server with html/template and use
// no JavaScript, so the Content-Security-Policy allows no script at all
// and every page reads the same in a browser without it.
//
// Reading goes through hippo.MemoryService with RecallInput.DryRun, so
// looking never strengthens a memory. Every state-changing request is a
// POST carrying a CSRF token bound to the session; with a token
// configured, the browser signs in once and holds an HttpOnly,
// SameSite=Strict session cookie.
package ui

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"embed"
	"encoding/base64"
	"errors"
	"fmt"
	"html/template"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/hippo-mem/hippo"
)

// Prefix is the path the UI is served under.
const Prefix = "/ui/"

// Store is what the UI reads and deletes beyond one agent's
// hippo.MemoryService: listings, counts and whole-database facts.
// *sqlite.DB implements it (checked in the tests).
type Store interface {
	Agents(ctx context.Context) ([]hippo.AgentSummary, error)
	Stats(ctx context.Context) (*hippo.Stats, error)
	BrowseChunks(ctx context.Context, q hippo.BrowseQuery) ([]hippo.Browsed, int, error)
	ChunkStrengths(ctx context.Context, agentID string, ids []string) (map[string]float64, error)
	CountAgentChunks(ctx context.Context, agentID string, bins int) (*hippo.ChunkCounts, error)
	ListBlocks(ctx context.Context, agentID string, scope *string) ([]hippo.BlockInfo, error)
	Chunk(ctx context.Context, agentID, id string) (*hippo.Chunk, error)
	PlanDelete(ctx context.Context, agentID string, ids []string) (*hippo.DeletePlan, error)
	DeleteChunks(ctx context.Context, agentID string, ids []string) (deleted, resurrected []string, err error)
	Export(ctx context.Context, w io.Writer, opts hippo.ExportOptions) (*hippo.ExportSummary, error)
	EmbeddingModel(ctx context.Context) (*hippo.ModelLock, error)
	Config() hippo.Config
	DecayClock() string
}

// Config configures a Handler.
type Config struct {
	// Store is the database; required.
	Store Store
	// Memory returns the memory service of an agent writing to scope and
	// recalling from every scope, bound for looking
	// (hippo.MemoryOptions.Look) when look is set; required.
	Memory func(agentID, scope string, look bool) (hippo.MemoryService, error)
	// Token, if set, must be presented once (the sign-in link or form);
	// the browser then holds a session cookie.
	Token string
	// Logger receives internal errors; nil discards them.
	Logger *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Handler serves the UI under Prefix. It does not check the Origin and
// Host headers: mount it behind the same checks as the MCP endpoints.
type Handler struct {
	cfg    Config
	mux    *http.ServeMux
	pages  map[string]*template.Template
	secret []byte // keys CSRF tokens and session IDs

	mu       sync.Mutex
	sessions map[string]time.Time // session ID → when it ends
	codes    map[string]time.Time // unused one-time sign-in codes → when they expire
	failures map[string]*failures // failed sign-ins by client address
}

// Session and sign-in limits.
const (
	// SessionLifetime is how long a signed-in browser stays signed in.
	SessionLifetime = 12 * time.Hour
	// SignInCodeLifetime is how long a sign-in link works, unused.
	SignInCodeLifetime = 15 * time.Minute
	// MaxFailedSignIns from one address within a minute hold back its
	// sign-ins until the minute is over.
	MaxFailedSignIns = 5
	failureWindow    = time.Minute
)

// failures counts one address's failed sign-ins since start.
type failures struct {
	n     int
	start time.Time
}

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

const sessionCookie = "hippo_ui_session"

// New returns the UI handler.
func New(cfg Config) (*Handler, error) {
	if cfg.Store == nil || cfg.Memory == nil {
		return nil, errors.New("ui: Config.Store and Config.Memory are required")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	h := &Handler{cfg: cfg, secret: make([]byte, 32), sessions: map[string]time.Time{}, codes: map[string]time.Time{},
		failures: map[string]*failures{}}
	rand.Read(h.secret)
	var err error
	if h.pages, err = parsePages(); err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("GET /ui/static/", http.StripPrefix("/ui/", http.FileServerFS(staticFS)))
	mux.HandleFunc("GET /ui/login", h.loginPage)
	mux.HandleFunc("POST /ui/login", h.login)
	mux.HandleFunc("POST /ui/logout", h.logout)
	mux.HandleFunc("GET /ui/{$}", h.agents)
	mux.HandleFunc("GET /ui/memory", h.memory)
	mux.HandleFunc("GET /ui/overview", h.overview)
	mux.HandleFunc("GET /ui/recall", h.recall)
	mux.HandleFunc("POST /ui/recall", h.recall)
	mux.HandleFunc("GET /ui/history", h.history)
	mux.HandleFunc("GET /ui/blocks", h.blocks)
	mux.HandleFunc("GET /ui/block", h.block)
	mux.HandleFunc("POST /ui/block/preview", h.blockPreview)
	mux.HandleFunc("POST /ui/block/apply", h.blockApply)
	mux.HandleFunc("GET /ui/forget", h.forget)
	mux.HandleFunc("POST /ui/forget", h.forgetConfirm)
	mux.HandleFunc("GET /ui/chunk", h.chunk)
	mux.HandleFunc("POST /ui/chunk/delete", h.chunkDelete)
	mux.HandleFunc("POST /ui/chunk/trust", h.chunkTrust)
	mux.HandleFunc("GET /ui/export", h.export)
	h.mux = mux
	return h, nil
}

// SignInPath returns a path that signs a browser in once, for printing at
// startup: /ui/login?code=<one-time code>, or /ui/ when no token is set.
func (h *Handler) SignInPath() string {
	if h.cfg.Token == "" {
		return Prefix
	}
	code := randomString()
	h.mu.Lock()
	h.codes[code] = h.cfg.Now().Add(SignInCodeLifetime)
	h.mu.Unlock()
	return Prefix + "login?code=" + url.QueryEscape(code)
}

// ServeHTTP sets the security headers, then checks the session and, on a
// POST, the CSRF token.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("Content-Security-Policy", "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("X-Frame-Options", "DENY")
	hd.Set("Referrer-Policy", "same-origin") // no-referrer would make form posts send "Origin: null"
	hd.Set("Cache-Control", "no-store")
	open := r.URL.Path == "/ui/login" || (r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/ui/static/"))
	if !open && !h.signedIn(r) {
		http.Redirect(w, r, "/ui/login", http.StatusSeeOther)
		return
	}
	// Signing in is a state change too (login CSRF): its form carries a
	// token bound to the absent session.
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" && site != "none" {
			http.Error(w, "forbidden: cross-site request", http.StatusForbidden)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, 1<<20)
		if !h.validCSRF(r) {
			http.Error(w, "forbidden: missing or invalid CSRF token; reload the page and try again", http.StatusForbidden)
			return
		}
	}
	h.mux.ServeHTTP(w, r)
}

// service is the memory service of agent writing to scope, bound for
// looking when r looks.
func (h *Handler) service(r *http.Request, agent, scope string) (hippo.MemoryService, error) {
	return h.cfg.Memory(agent, scope, looks(r))
}

// looks reports whether r only looks at memory: pages and previews record
// no activity hour and boost nothing.
func looks(r *http.Request) bool {
	return r.Method == http.MethodGet || r.Method == http.MethodHead || r.URL.Path == "/ui/block/preview"
}

// signedIn reports whether r may use the UI: always without a token,
// otherwise with a live session cookie.
func (h *Handler) signedIn(r *http.Request) bool {
	if h.cfg.Token == "" {
		return true
	}
	c, err := r.Cookie(sessionCookie)
	if err != nil {
		return false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	end, ok := h.sessions[c.Value]
	if ok && !h.cfg.Now().Before(end) {
		delete(h.sessions, c.Value)
		return false
	}
	return ok
}

// session is the session ID the CSRF token is bound to: the cookie's
// value, or "" without a token.
func (h *Handler) session(r *http.Request) string {
	if h.cfg.Token == "" {
		return ""
	}
	if c, err := r.Cookie(sessionCookie); err == nil {
		return c.Value
	}
	return ""
}

// csrfToken is the CSRF token of r's session: an HMAC of the session ID
// under the process's secret, which a page on another origin cannot read.
func (h *Handler) csrfToken(r *http.Request) string {
	m := hmac.New(sha256.New, h.secret)
	m.Write([]byte("csrf\x00" + h.session(r)))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

func (h *Handler) validCSRF(r *http.Request) bool {
	got := r.PostFormValue("csrf")
	want := h.csrfToken(r)
	return got != "" && hmac.Equal([]byte(got), []byte(want))
}

func (h *Handler) loginPage(w http.ResponseWriter, r *http.Request) {
	if code := r.URL.Query().Get("code"); code != "" {
		if h.throttled(w, r) {
			return
		}
		h.mu.Lock()
		expires, ok := h.codes[code]
		delete(h.codes, code)
		h.mu.Unlock()
		if ok && h.cfg.Now().Before(expires) {
			h.signedInFrom(r)
			h.startSession(w, r)
			return
		}
		h.failedFrom(r)
		h.render(w, r, "login", http.StatusUnauthorized, page{Title: "Sign in", Error: "This sign-in link was already used, has expired or is unknown: sign in with the token."})
		return
	}
	if h.cfg.Token == "" {
		http.Redirect(w, r, Prefix, http.StatusSeeOther)
		return
	}
	h.render(w, r, "login", http.StatusOK, page{Title: "Sign in"})
}

func (h *Handler) login(w http.ResponseWriter, r *http.Request) {
	if h.cfg.Token == "" {
		http.Redirect(w, r, Prefix, http.StatusSeeOther)
		return
	}
	if h.throttled(w, r) {
		return
	}
	got := sha256.Sum256([]byte(r.PostFormValue("token")))
	want := sha256.Sum256([]byte(h.cfg.Token))
	if subtle.ConstantTimeCompare(got[:], want[:]) != 1 {
		h.failedFrom(r)
		h.render(w, r, "login", http.StatusUnauthorized, page{Title: "Sign in", Error: "Wrong token."})
		return
	}
	h.signedInFrom(r)
	h.startSession(w, r)
}

// logout ends the session and forgets its cookie.
func (h *Handler) logout(w http.ResponseWriter, r *http.Request) {
	if c, err := r.Cookie(sessionCookie); err == nil {
		h.mu.Lock()
		delete(h.sessions, c.Value)
		h.mu.Unlock()
	}
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: "", Path: Prefix, MaxAge: -1, HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil})
	http.Redirect(w, r, "/ui/login", http.StatusSeeOther)
}

func (h *Handler) startSession(w http.ResponseWriter, r *http.Request) {
	id := randomString()
	now := h.cfg.Now()
	h.mu.Lock()
	for s, end := range h.sessions { // ended ones go as new ones come
		if !now.Before(end) {
			delete(h.sessions, s)
		}
	}
	h.sessions[id] = now.Add(SessionLifetime)
	h.mu.Unlock()
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: id, Path: Prefix, HttpOnly: true,
		MaxAge: int(SessionLifetime / time.Second), SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil})
	http.Redirect(w, r, Prefix, http.StatusSeeOther)
}

// clientAddr is the address failed sign-ins are counted by.
func clientAddr(r *http.Request) string {
	if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		return host
	}
	return r.RemoteAddr
}

// throttled answers 429 when r's address has failed MaxFailedSignIns
// times within the last minute, and reports whether it did.
func (h *Handler) throttled(w http.ResponseWriter, r *http.Request) bool {
	now := h.cfg.Now()
	h.mu.Lock()
	f := h.failures[clientAddr(r)]
	wait := time.Duration(0)
	if f != nil && f.n >= MaxFailedSignIns {
		wait = f.start.Add(failureWindow).Sub(now)
	}
	h.mu.Unlock()
	if wait <= 0 {
		return false
	}
	w.Header().Set("Retry-After", fmt.Sprint(int(wait.Seconds())+1))
	h.render(w, r, "login", http.StatusTooManyRequests, page{Title: "Sign in",
		Error: fmt.Sprintf("Too many failed sign-ins from this address: try again in %d seconds.", int(wait.Seconds())+1)})
	return true
}

// failedFrom counts a failed sign-in of r's address.
func (h *Handler) failedFrom(r *http.Request) {
	now := h.cfg.Now()
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.failures) > 10_000 { // bounded: windows that are over go
		for a, f := range h.failures {
			if now.Sub(f.start) >= failureWindow {
				delete(h.failures, a)
			}
		}
	}
	a := clientAddr(r)
	f := h.failures[a]
	if f == nil || now.Sub(f.start) >= failureWindow {
		f = &failures{start: now}
		h.failures[a] = f
	}
	f.n++
}

// signedInFrom forgets the failures of r's address.
func (h *Handler) signedInFrom(r *http.Request) {
	h.mu.Lock()
	delete(h.failures, clientAddr(r))
	h.mu.Unlock()
}

func randomString() string {
	b := make([]byte, 24)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// page is what every template gets.
type page struct {
	Title string
	Agent string
	Tab   string
	CSRF  string
	Error string
	Note  string
	Data  any
	// SignOut shows the sign-out button: a token is set and the page is
	// not the sign-in form.
	SignOut bool
}

// render executes the named page into a buffer first, so that a template
// error becomes a clean 500 rather than half a page.
func (h *Handler) render(w http.ResponseWriter, r *http.Request, name string, status int, p page) {
	t, ok := h.pages[name]
	if !ok {
		h.fail(w, r, fmt.Errorf("no template %q", name))
		return
	}
	p.CSRF = h.csrfToken(r)
	p.SignOut = h.cfg.Token != "" && name != "login"
	var buf bytesBuffer
	if err := t.ExecuteTemplate(&buf, "layout", p); err != nil {
		h.fail(w, r, fmt.Errorf("render %s: %w", name, err))
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

// fail answers an error: the domain's codes as 400 and 404 with their
// message, anything else as 500 with the details logged only.
func (h *Handler) fail(w http.ResponseWriter, r *http.Request, err error) {
	switch hippo.ErrorCode(err) {
	case hippo.EINVALID:
		http.Error(w, hippo.ErrorMessage(err), http.StatusBadRequest)
	case hippo.ENOTFOUND:
		http.Error(w, hippo.ErrorMessage(err), http.StatusNotFound)
	default:
		if errors.Is(err, context.Canceled) {
			return
		}
		h.cfg.Logger.Error("ui", "path", r.URL.Path, "err", err)
		http.Error(w, "internal error (see the server log)", http.StatusInternalServerError)
	}
}
