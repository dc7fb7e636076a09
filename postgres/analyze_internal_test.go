package postgres

import (
	"context"
	"testing"
	"time"
)

// TestMaybeAnalyze checks that a table that has outgrown its statistics
// gets an ANALYZE from maybeAnalyze, and that one described by fresh
// statistics does not.
func TestMaybeAnalyze(t *testing.T) {
	ctx := context.Background()
	db := openInternal(t)
	analyses := func() (count int64, tuples float64) {
		t.Helper()
		if err := db.pool.QueryRow(ctx, `SELECT s.analyze_count, c.reltuples FROM pg_stat_user_tables AS s
			JOIN pg_class AS c ON c.oid = s.relid WHERE s.relid = 'chunks'::regclass`).Scan(&count, &tuples); err != nil {
			t.Fatal(err)
		}
		return count, tuples
	}
	run := func() {
		t.Helper()
		db.maybeAnalyze(ctx)
		for deadline := time.Now().Add(10 * time.Second); db.analyzing.Load(); time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal("maybeAnalyze still running after 10 s")
			}
		}
	}
	before, _ := analyses()

	// 300 rows the statistics have never seen, their counts flushed to
	// the statistics system at once (PostgreSQL 15 may otherwise hold
	// them back for up to a second or more).
	conn, err := db.pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `INSERT INTO chunks (id, agent_id, kind, content, content_hash, embedding, last_accessed_at, created_at)
		SELECT 'c' || g, 'alice', 'memory', 'note ' || g, md5(g::text) || md5(g::text), '\x0000803f'::bytea,
			'2026-01-01T00:00:00.000000Z', '2026-01-01T00:00:00.000000Z' FROM generate_series(1, 300) AS g`); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `SELECT pg_stat_force_next_flush()`); err != nil {
		t.Fatal(err)
	}
	conn.Release()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		var young bool
		if err := db.pool.QueryRow(ctx, youngTableSQL).Scan(&young); err != nil {
			t.Fatal(err)
		}
		if young {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("300 new rows never showed in the statistics system")
		}
	}
	run()
	count, tuples := analyses()
	if count != before+1 || tuples != 300 {
		t.Fatalf("after 300 rows: %d ANALYZEs (want %d), statistics of %v rows (want 300)", count, before+1, tuples)
	}
	// The statistics are fresh now: nothing to do.
	run()
	if again, _ := analyses(); again != count {
		t.Errorf("fresh statistics analysed again: %d ANALYZEs, want %d", again, count)
	}
}
