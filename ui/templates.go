package ui

import (
	"bytes"
	"fmt"
	"html/template"
	"io/fs"
	"math"
	"net/url"
	"path"
	"strings"
	"time"
	"unicode/utf8"
)

type bytesBuffer = bytes.Buffer

// parsePages parses each page with the layout, one set per page, since
// every page defines its own "content".
func parsePages() (map[string]*template.Template, error) {
	files, err := fs.Glob(templateFS, "templates/*.html")
	if err != nil {
		return nil, err
	}
	out := map[string]*template.Template{}
	for _, f := range files {
		name := strings.TrimSuffix(path.Base(f), ".html")
		if name == "layout" {
			continue
		}
		t, err := template.New(name).Funcs(funcs).ParseFS(templateFS, "templates/layout.html", f)
		if err != nil {
			return nil, fmt.Errorf("ui: parse %s: %w", f, err)
		}
		out[name] = t
	}
	return out, nil
}

var funcs = template.FuncMap{
	"f2":    func(v float64) string { return fmt.Sprintf("%.2f", v) },
	"f3":    func(v float64) string { return fmt.Sprintf("%.3f", v) },
	"px":    func(v, scale float64) string { return fmt.Sprintf("%.1f", math.Max(0, v*scale)) },
	"short": shortID,
	"trunc": trunc,
	"when": func(t time.Time) string {
		if t.IsZero() {
			return "—"
		}
		return t.UTC().Format("2006-01-02 15:04")
	},
	"whenp": func(t *time.Time) string {
		if t == nil {
			return "now"
		}
		return t.UTC().Format("2006-01-02 15:04")
	},
	"bytes": humanBytes,
	// link builds a UI path with query parameters from key, value pairs.
	"link": func(p string, kv ...string) string {
		q := url.Values{}
		for i := 0; i+1 < len(kv); i += 2 {
			if kv[i+1] != "" {
				q.Set(kv[i], kv[i+1])
			}
		}
		if len(q) == 0 {
			return p
		}
		return p + "?" + q.Encode()
	},
	"add":  func(a, b int) int { return a + b },
	"sum":  func(a, b float64) float64 { return a + b },
	"sum3": func(a, b, c float64) float64 { return a + b + c },
	// edit carries a block edit form's hidden fields.
	"edit": func(csrf, agent, scope, key, action string) map[string]string {
		return map[string]string{"CSRF": csrf, "Agent": agent, "Scope": scope, "Key": key, "Action": action}
	},
}

// shortID is the end of an ID: ULIDs begin with their time, so chunks
// stored together share their first characters.
func shortID(id string) string {
	if len(id) <= 8 {
		return id
	}
	return "…" + id[len(id)-8:]
}

// trunc shortens s to at most n characters, marking the cut with "…".
func trunc(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
