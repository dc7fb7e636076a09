package engine

import "time"

// ExportTimeLayout is the form of every timestamp in an export file: RFC
// 3339 in UTC with microseconds, fixed width, whatever form a store keeps
// its times in. Import reads it and the older forms (RFC 3339 with any
// precision, SQLite's "2006-01-02 15:04:05").
const ExportTimeLayout = "2006-01-02T15:04:05.000000Z"

// ExportTime is t in ExportTimeLayout.
func ExportTime(t time.Time) string { return t.UTC().Format(ExportTimeLayout) }
