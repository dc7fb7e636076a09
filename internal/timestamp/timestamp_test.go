package timestamp

import (
	"testing"
	"time"
)

// TestParse: the fast path reads what time.Parse reads, and leaves
// anything else to it.
func TestParse(t *testing.T) {
	for _, s := range []string{"2026-01-02T03:04:05.000006Z", "2024-02-29T23:59:59.999999Z", "2026-01-02T03:04:05Z",
		"2026-01-02T03:04:05.5+02:00", "2026-02-30T00:00:00.000000Z", "2026-13-01T00:00:00.000000Z", "not a time"} {
		got, err := Parse(s)
		want, werr := time.Parse(Layout, s)
		if werr != nil {
			want, werr = time.Parse(time.RFC3339Nano, s)
			want = want.UTC()
		}
		if (err != nil) != (werr != nil) || !got.Equal(want) || got.Location() != time.UTC {
			t.Errorf("Parse(%q) = %v, %v; want %v, %v", s, got, err, want, werr)
		}
	}
}

// FuzzParseLayout checks the fast timestamp parser against time.Parse:
// whatever it accepts, time.Parse reads as the same instant in UTC.
func FuzzParseLayout(f *testing.F) {
	for _, s := range []string{
		time.Date(2026, 1, 10, 12, 3, 4, 567891000, time.UTC).Format(Layout),
		"2024-02-29T23:59:59.999999Z", "2023-02-29T00:00:00.000000Z", "0000-01-01T00:00:00.000000Z",
		"2024-13-01T00:00:00.000000Z", "2024-01-01T24:00:00.000000Z", "2024-01-01T00:00:60.000000Z",
		"2024-01-01 00:00:00.000000Z", "+024-01-01T00:00:00.000000Z", "2024-01-01T00:00:00.000000",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := parseLayout(s)
		want, err := time.Parse(Layout, s)
		if ok && (err != nil || got != want) {
			t.Errorf("parseLayout(%q) = %v, time.Parse = %v, %v", s, got, want, err)
		}
		if !ok && err == nil && len(s) == len(Layout) && s == want.UTC().Format(Layout) {
			t.Errorf("parseLayout(%q) refused what stores write", s)
		}
	})
}
