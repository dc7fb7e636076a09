package hippo_test

import (
	"strings"
	"testing"

	"github.com/hippo-mem/hippo"
)

func TestParseDSN(t *testing.T) {
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
		d, err := hippo.ParseDSN(tt.in)
		if err != nil {
			t.Errorf("%q: %v", tt.in, err)
			continue
		}
		if d.Scheme != tt.scheme || d.Path != tt.path || d.String() != tt.shown {
			t.Errorf("%q: scheme %q path %q shown %q, want %q %q %q", tt.in, d.Scheme, d.Path, d.String(), tt.scheme, tt.path, tt.shown)
		}
	}
	for _, bad := range []string{"", "  ", "file:", "file://otherhost/h.db", "postgres://u:sec ret@%zz/db"} {
		_, err := hippo.ParseDSN(bad)
		if hippo.ErrorCode(err) != hippo.EINVALID {
			t.Errorf("%q: error %v, want %s", bad, err, hippo.EINVALID)
		}
		if err != nil && strings.Contains(err.Error(), "sec") {
			t.Errorf("%q: error shows the password: %v", bad, err)
		}
	}
}

func TestRedactDSN(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://u:secret@host/db":                   "postgres://u:xxxxx@host/db",
		"postgres://u:sec ret@%zz/db":                   "postgres://u:xxxxx@%zz/db",
		"postgres://host/db?password=x&sslmode=require": "postgres://host/db?password=xxxxx&sslmode=require",
		"/path/with:colon@at.db":                        "/path/with:colon@at.db",
		"mysql://root@tcp(127.0.0.1:3306)/":             "mysql://root@tcp(127.0.0.1:3306)/",
	} {
		if got := hippo.RedactDSN(in); got != want {
			t.Errorf("RedactDSN(%q) = %q, want %q", in, got, want)
		}
	}
}
