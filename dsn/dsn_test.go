package dsn_test

import (
	"strings"
	"testing"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/dsn"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in           string
		scheme, path string
		shown        string // String()
	}{
		{"hippo.db", "", "hippo.db", "hippo.db"},
		{"/var/lib/hippo/h.db", "", "/var/lib/hippo/h.db", "/var/lib/hippo/h.db"},
		{"file:rel/h.db", "", "rel/h.db", "rel/h.db"},
		{"file:/abs/h.db", "", "/abs/h.db", "/abs/h.db"},
		{"file:///abs/h.db", "", "/abs/h.db", "/abs/h.db"},
		{"FILE://localhost/abs/h.db", "", "/abs/h.db", "/abs/h.db"},
		{"postgres://u:secret@host:5432/db", "postgres", "", "postgres://u:xxxxx@host:5432/db"},
		{"Postgres://host/db", "postgres", "", "postgres://host/db"},
		{"./odd/dir://x.db", "", "./odd/dir://x.db", "./odd/dir://x.db"},
		{"file:h.db?mode=memory", "", "file:h.db?mode=memory", "file:h.db?mode=memory"},
	}
	for _, tt := range tests {
		d, err := dsn.Parse(tt.in)
		if err != nil {
			t.Errorf("%q: %v", tt.in, err)
			continue
		}
		if d.Scheme != tt.scheme || d.Path != tt.path || d.String() != tt.shown {
			t.Errorf("%q: scheme %q path %q shown %q, want %q %q %q", tt.in, d.Scheme, d.Path, d.String(), tt.scheme, tt.path, tt.shown)
		}
	}
	for _, bad := range []string{"", "  ", "file:", "file://otherhost/h.db", "postgres://u:sec ret@%zz/db"} {
		_, err := dsn.Parse(bad)
		if hippo.ErrorCode(err) != hippo.EINVALID {
			t.Errorf("%q: error %v, want %s", bad, err, hippo.EINVALID)
		}
		if err != nil && strings.Contains(err.Error(), "sec") {
			t.Errorf("%q: error shows the password: %v", bad, err)
		}
	}
}

func TestRedact(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://u:secret@host/db":                   "postgres://u:xxxxx@host/db",
		"postgres://u:sec ret@%zz/db":                   "postgres://u:xxxxx@%zz/db",
		"postgres://host/db?password=x&sslmode=require": "postgres://host/db?password=xxxxx&sslmode=require",
		"/path/with:colon@at.db":                        "/path/with:colon@at.db",
		"mysql://root@tcp(127.0.0.1:3306)/":             "mysql://root@tcp(127.0.0.1:3306)/",
		// Provider URLs: a userinfo password and secret-looking query
		// parameters, whatever their case; others are kept.
		"http://user:PASS@host/v1?key=K":             "http://user:xxxxx@host/v1?key=xxxxx",
		"https://host/v1?api_key=K&api-version=2024": "https://host/v1?api_key=xxxxx&api-version=2024",
		"https://host/v1?API-KEY=K":                  "https://host/v1?API-KEY=xxxxx",
		"https://host/v1?access_token=T&model=m":     "https://host/v1?access_token=xxxxx&model=m",
		"https://host/v1?sig=S&se=2030":              "https://host/v1?sig=xxxxx&se=2030",
		"https://host/v1?client_secret=S":            "https://host/v1?client_secret=xxxxx",
		"https://host/v1?auth=A":                     "https://host/v1?auth=xxxxx",
		"https://host/v1?pwd=P":                      "https://host/v1?pwd=xxxxx",
		"https://host/v1?model=m":                    "https://host/v1?model=m",
		"http://user:PASS@host/v1?key=K%zz":          "http://user:xxxxx@host/v1?key=xxxxx",
		"http://host/v1?a=1&token=T&b=2":             "http://host/v1?a=1&token=xxxxx&b=2",
		// Keyword DSNs: a password in any quoting.
		"host=db.example user=hippo password=s3cret dbname=hippo": "host=db.example user=hippo password=xxxxx dbname=hippo",
		"host=db password = 's3 cret' dbname=hippo":               "host=db password = xxxxx dbname=hippo",
		"host=db PASSWORD='it\\'s' sslpassword=x":                 "host=db PASSWORD=xxxxx sslpassword=xxxxx",
	} {
		if got := dsn.Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestKeywordDSNRefused: a PostgreSQL keyword/value connection string is
// not taken as a file name (which would echo its password in errors and
// create a file named after it): it is refused, pointing to the URL form,
// its password redacted.
func TestKeywordDSNRefused(t *testing.T) {
	for _, in := range []string{
		"host=db.example user=hippo password=KWSECRET dbname=hippo",
		"dbname=hippo password='KW SECRET'",
		"  user=hippo host=/var/run/postgresql password=KWSECRET",
		"sslmode=require host=db port=5432 password=KWSECRET",
	} {
		_, err := dsn.Parse(in)
		if hippo.ErrorCode(err) != hippo.EINVALID || !strings.Contains(err.Error(), "postgres://") {
			t.Errorf("Parse(%q) = %v, want EINVALID pointing to postgres://", in, err)
		}
		if err != nil && strings.Contains(err.Error(), "SECRET") {
			t.Errorf("Parse(%q): the error shows the password: %v", in, err)
		}
	}
	// Paths with "=" in them stay paths.
	for _, in := range []string{"a=b.db", "/data/x=1/hippo.db", "notes key=value.db"} {
		if d, err := dsn.Parse(in); err != nil || d.Path != in {
			t.Errorf("Parse(%q) = %+v, %v, want the path", in, d, err)
		}
	}
}
