package hippo

import "time"

// DayEdge says which instant of its day a bare date stands for.
type DayEdge int

const (
	// StartOfDay is the day's first instant: "since 2026-03-01" and
	// "before 2026-03-01" start at midnight.
	StartOfDay DayEdge = iota
	// EndOfDay is the day's last instant: "until 2026-03-01" and "as of
	// 2026-03-01" include everything that happened that day.
	EndOfDay
)

// timeLayouts are the forms ParseTime reads besides a bare date; those
// without a zone are UTC.
var timeLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02T15:04"}

// ParseTime reads a time given for field (such as "as_of"): RFC 3339
// (2026-03-01T15:04:05Z), a time without a zone (2026-03-01T15:04, UTC) or
// a date (2026-03-01, UTC), which stands for the first or the last instant
// of that day by edge. The MCP tools, the CLI and the web UI all read times
// with it, so that a date means the same everywhere.
func ParseTime(field, s string, edge DayEdge) (time.Time, error) {
	if d, err := time.Parse(time.DateOnly, s); err == nil {
		if edge == EndOfDay {
			return d.AddDate(0, 0, 1).Add(-time.Nanosecond), nil
		}
		return d, nil
	}
	for _, layout := range timeLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, Invalidf(field, "must be a date (2026-03-01) or an RFC 3339 time (2026-03-01T15:04:05Z), got %q", s)
}
