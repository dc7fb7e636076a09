package hippo_test

import (
	"strings"
	"testing"
	"time"

	"github.com/hippo-mem/hippo"
)

func TestParseTime(t *testing.T) {
	at := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	tests := []struct {
		in   string
		edge hippo.DayEdge
		want time.Time
	}{
		{"2026-03-01", hippo.StartOfDay, at("2026-03-01T00:00:00Z")},
		{"2026-03-01", hippo.EndOfDay, at("2026-03-01T23:59:59.999999999Z")},
		{"2024-02-29", hippo.EndOfDay, at("2024-02-29T23:59:59.999999999Z")},
		{"2025-12-31", hippo.EndOfDay, at("2025-12-31T23:59:59.999999999Z")},
		// A time is that instant, whatever the edge.
		{"2026-03-01T10:30:00Z", hippo.EndOfDay, at("2026-03-01T10:30:00Z")},
		{"2026-03-01T10:30:00.25Z", hippo.StartOfDay, at("2026-03-01T10:30:00.25Z")},
		{"2026-03-01T10:30:00+02:00", hippo.EndOfDay, at("2026-03-01T08:30:00Z")},
		{"2026-03-01T10:30:15", hippo.EndOfDay, at("2026-03-01T10:30:15Z")},
		{"2026-03-01T10:30", hippo.EndOfDay, at("2026-03-01T10:30:00Z")},
	}
	for _, tt := range tests {
		got, err := hippo.ParseTime("as_of", tt.in, tt.edge)
		if err != nil {
			t.Errorf("%s (edge %d): %v", tt.in, tt.edge, err)
			continue
		}
		if !got.Equal(tt.want) || got.Location() != time.UTC {
			t.Errorf("%s (edge %d) = %v, want %v", tt.in, tt.edge, got, tt.want)
		}
	}
	for _, in := range []string{"", "yesterday", "2026-13-45", "2026-02-30", "2026-03-01 10:30", "01/03/2026", "2026-03-01T25:00:00Z"} {
		_, err := hippo.ParseTime("as_of", in, hippo.EndOfDay)
		if hippo.ErrorCode(err) != hippo.EINVALID || !strings.HasPrefix(hippo.ErrorMessage(err), "as_of: must be a date") {
			t.Errorf("%q: %v, want an invalid error naming as_of", in, err)
		}
	}
}
