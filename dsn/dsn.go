// Package dsn reads the names of stores: a file path, a file: URI or a URL
// whose scheme names a backend. It redacts the secrets of such names, and of
// provider URLs, for logs, errors and output.
package dsn

import (
	"net/url"
	"regexp"
	"strings"

	"github.com/hippo-mem/hippo"
)

// DSN names a store: a file path, a file: URI, or a URL whose scheme names
// a backend (postgres://user:password@host/db). Parse reads one; String
// prints it with any password redacted.
type DSN struct {
	// Scheme is "" for a file (a path or a file: URI), else the URL's
	// scheme in lower case.
	Scheme string
	// Path is the file's path; "" for a URL.
	Path string
	// URL is the parsed URL; nil for a file.
	URL *url.URL
}

// Parse reads s as a DSN: a string with "://" is a URL (file:// names a
// file), one starting with "file:" a file URI, anything else a path. It
// does not check that a backend serves the scheme; the one place that
// opens stores does. EINVALID for an empty DSN, a URL that does not parse
// and a file URI with no path or another host; the message never holds a
// password. A file URI with a query or fragment is taken literally, as a
// path, so that no parameter reaches the driver.
func Parse(s string) (DSN, error) {
	if strings.TrimSpace(s) == "" {
		return DSN{}, hippo.Invalidf("db", "must not be empty")
	}
	if strings.ContainsRune(s, 0) {
		return DSN{}, hippo.Invalidf("db", "must not contain NUL bytes")
	}
	scheme, _, isURL := strings.Cut(s, "://")
	if !isURL && keywordDSN(s) {
		return DSN{}, hippo.Invalidf("db", "%q is a PostgreSQL keyword/value connection string, not a file: give it as a "+
			"URL, postgres://user:password@host:5432/dbname?sslmode=require", Redact(s))
	}
	if !isURL && !strings.HasPrefix(strings.ToLower(s), "file:") {
		return DSN{Path: s}, nil
	}
	if isURL && (scheme == "" || strings.ContainsAny(scheme, "/\\")) {
		return DSN{Path: s}, nil // a path with "://" further on, not a scheme
	}
	u, err := url.Parse(s)
	if err != nil {
		return DSN{}, hippo.Invalidf("db", "%s is not a valid URL", Redact(s))
	}
	u.Scheme = strings.ToLower(u.Scheme)
	if u.Scheme != "file" {
		return DSN{Scheme: u.Scheme, URL: u}, nil
	}
	if u.RawQuery != "" || u.Fragment != "" {
		// No URI parameters reach SQLite (mode=memory, _pragma=...): the
		// whole string is a file name, taken literally.
		return DSN{Path: s}, nil
	}
	if u.Host != "" && u.Host != "localhost" {
		return DSN{}, hippo.Invalidf("db", "%s: a file URI names no host other than localhost", Redact(s))
	}
	p := u.Path
	if p == "" {
		p = u.Opaque // file:relative/path.db
	}
	if p == "" {
		return DSN{}, hippo.Invalidf("db", "%s names no file", Redact(s))
	}
	return DSN{Path: p}, nil
}

// libpqKeywords are the keywords of PostgreSQL's keyword/value connection
// strings that tell one from a file name.
var libpqKeywords = map[string]bool{"host": true, "hostaddr": true, "port": true, "dbname": true, "user": true,
	"password": true, "passfile": true, "sslmode": true, "sslcert": true, "sslkey": true, "sslrootcert": true,
	"connect_timeout": true, "application_name": true, "options": true, "target_session_attrs": true}

// keywordDSN reports whether s reads as a keyword/value connection string
// ("host=db password=..."): a password given, or two of libpq's keywords,
// each word of s a keyword=value pair.
func keywordDSN(s string) bool {
	known := 0
	for _, w := range strings.Fields(keywordPassword.ReplaceAllString(s, "${1}x")) {
		k, _, ok := strings.Cut(w, "=")
		if !ok {
			continue
		}
		k = strings.ToLower(strings.TrimSpace(k))
		if k == "password" || k == "sslpassword" {
			return true
		}
		if libpqKeywords[k] {
			known++
		}
	}
	return known >= 2
}

// String is the DSN as given, any password redacted.
func (d DSN) String() string {
	if d.URL != nil {
		return redactURL(d.URL)
	}
	return d.Path
}

// Redact returns s with its secrets replaced by "xxxxx", for logs,
// errors, output and --help: the password of a URL's user information,
// the values of its secret-looking query parameters (key, api_key, token,
// secret, password, sig, ...: see secretParam), and the password of a
// keyword DSN ("host=db password=..."). Anything else is returned as it
// is. A string with "://" that does not parse as a URL has its user
// information's password redacted by position: what lies between the
// first ":" after "://" and the last "@".
func Redact(s string) string {
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok {
		return keywordPassword.ReplaceAllString(s, "${1}xxxxx")
	}
	if u, err := url.Parse(s); err == nil {
		return redactURL(u)
	}
	if i := strings.IndexByte(rest, '?'); i >= 0 {
		rest = rest[:i+1] + redactQuery(rest[i+1:])
	}
	at := strings.LastIndex(rest, "@")
	if at < 0 {
		return scheme + "://" + rest
	}
	user, _, hasPassword := strings.Cut(rest[:at], ":")
	if !hasPassword {
		return scheme + "://" + rest
	}
	return scheme + "://" + user + ":xxxxx" + rest[at:]
}

// keywordPassword matches the password of a keyword/value DSN, quoted or
// not: its name and "=" are group 1.
var keywordPassword = regexp.MustCompile(`(?i)\b((?:ssl)?password\s*=\s*)('(?:[^'\\]|\\.)*'?|[^\s']\S*)`)

// redactURL is u as a string, its password and any secret-looking
// parameter of its query redacted.
func redactURL(u *url.URL) string {
	if u.RawQuery != "" {
		if q := redactQuery(u.RawQuery); q != u.RawQuery {
			c := *u
			c.RawQuery = q
			u = &c
		}
	}
	return u.Redacted()
}

// redactQuery redacts the values of the secret-looking parameters of a
// raw query, keeping its order and everything else as written (even
// escapes that do not parse).
func redactQuery(raw string) string {
	pairs := strings.Split(raw, "&")
	for i, p := range pairs {
		name, _, ok := strings.Cut(p, "=")
		if !ok {
			continue
		}
		if n, err := url.QueryUnescape(name); err == nil {
			name = n
		}
		if secretParam(name) {
			pairs[i] = p[:strings.IndexByte(p, '=')] + "=xxxxx"
		}
	}
	return strings.Join(pairs, "&")
}

// secretParam reports whether a query parameter's name looks like it
// holds a credential.
func secretParam(name string) bool {
	n := strings.ToLower(name)
	switch n {
	case "sig", "pwd", "pass", "code":
		return true
	}
	for _, part := range []string{"key", "token", "secret", "password", "passwd", "signature", "credential", "auth"} {
		if strings.Contains(n, part) {
			return true
		}
	}
	return false
}
