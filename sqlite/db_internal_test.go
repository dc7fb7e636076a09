package sqlite

import (
	"testing"
	"time"
)

// FuzzParseLayout checks the fast timestamp parser against time.Parse:
// whatever it accepts, time.Parse reads as the same instant in UTC.
func FuzzParseLayout(f *testing.F) {
	for _, s := range []string{
		formatTime(time.Date(2026, 1, 10, 12, 3, 4, 567891000, time.UTC)),
		"2024-02-29T23:59:59.999999Z", "2023-02-29T00:00:00.000000Z", "0000-01-01T00:00:00.000000Z",
		"2024-13-01T00:00:00.000000Z", "2024-01-01T24:00:00.000000Z", "2024-01-01T00:00:60.000000Z",
		"2024-01-01 00:00:00.000000Z", "+024-01-01T00:00:00.000000Z", "2024-01-01T00:00:00.000000",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := parseLayout(s)
		want, err := time.Parse(timeLayout, s)
		if ok && (err != nil || got != want) {
			t.Errorf("parseLayout(%q) = %v, time.Parse = %v, %v", s, got, want, err)
		}
		if !ok && err == nil && len(s) == len(timeLayout) && s == formatTime(want) {
			t.Errorf("parseLayout(%q) refused what formatTime writes", s)
		}
	})
}
