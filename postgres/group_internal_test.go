package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/internal/pgtest"
)

// TestGroupCommit runs many concurrent writes of one agent: each that
// succeeds is stored, each that fails (after writing) leaves nothing, a
// call cancelled before it runs changes nothing, and groups formed. A call
// cancelled while it runs in a group runs to its end (a lone call is
// cancelled as any transaction).
func TestGroupCommit(t *testing.T) {
	ctx := context.Background()
	db := openInternal(t)
	const n = 60
	errFail := errors.New("scripted failure")
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cctx, cancel := context.WithCancel(ctx)
			defer cancel()
			if i%10 == 9 {
				cancel()
			}
			errs[i] = db.agentWrite(cctx, "alice", func(q querier, _ *hippo.ModelLock) error {
				if i%13 == 6 {
					cancel() // cancelled once running: it runs to its end
				}
				if i%17 == 8 {
					return errFail // before any statement: no savepoint to undo
				}
				// A call's first statement carries its savepoint, whatever
				// kind of statement it is.
				switch i % 5 {
				case 1:
					var n int
					if err := q.QueryRow(cctx, `SELECT count(*) FROM memory_blocks WHERE agent_id = 'alice'`).Scan(&n); err != nil {
						return err
					}
				case 2:
					rows, err := q.Query(cctx, `SELECT key FROM memory_blocks WHERE agent_id = 'alice'`)
					if err != nil {
						return err
					}
					rows.Close()
					if err := rows.Err(); err != nil {
						return err
					}
				}
				if _, err := q.Exec(cctx, `INSERT INTO memory_blocks (agent_id, scope, key, value, updated_at)
					VALUES ('alice', '', $1, 'v', '2026-01-01T00:00:00.000000Z')`, fmt.Sprintf("k%02d", i)); err != nil {
					return err
				}
				if i%7 == 3 {
					return errFail
				}
				if i%11 == 5 { // a statement error aborts the call's savepoint
					_, err := q.Exec(context.Background(), `SELECT 1/0`)
					return err
				}
				return nil
			})
		}()
	}
	wg.Wait()
	blocks, err := db.ListBlocks(ctx, "alice", nil)
	if err != nil {
		t.Fatal(err)
	}
	stored := map[string]bool{}
	for _, b := range blocks {
		stored[b.Key] = true
	}
	for i, err := range errs {
		key := fmt.Sprintf("k%02d", i)
		switch {
		case i%10 == 9:
			if !errors.Is(err, context.Canceled) || stored[key] {
				t.Errorf("call %d, cancelled: %v, stored %v", i, err, stored[key])
			}
		case i%7 == 3 || i%17 == 8:
			if !errors.Is(err, errFail) || stored[key] {
				t.Errorf("call %d, failing: %v, stored %v", i, err, stored[key])
			}
		case i%11 == 5:
			if err == nil || stored[key] {
				t.Errorf("call %d, a failing statement: %v, stored %v", i, err, stored[key])
			}
		case i%13 == 6:
			if err == nil != stored[key] {
				t.Errorf("call %d, cancelled while running: %v, stored %v", i, err, stored[key])
			}
		default:
			if err != nil || !stored[key] {
				t.Errorf("call %d: %v, stored %v", i, err, stored[key])
			}
		}
	}
	if st := db.CommitStats(); st.Calls != n-n/10 || st.Largest < 2 { // the cancelled calls never queue
		t.Errorf("commit stats %+v: want %d calls, some in groups", st, n-n/10)
	}
	left := db.group.Keys()
	if left != 0 {
		t.Errorf("%d idle queues kept", left)
	}
}

// TestCommitGroupSavepoints runs groups of calls as they come, one group
// at a time: a call that fails before any statement or after writing
// leaves the others committed, and a call that swallows a statement error
// (the transaction has failed under it) fails the whole group instead of
// losing its own writes while it is told they committed.
func TestCommitGroupSavepoints(t *testing.T) {
	ctx := context.Background()
	db := openInternal(t)
	errFail := errors.New("scripted failure")
	insert := func(key string) func(querier, *hippo.ModelLock) error {
		return func(q querier, _ *hippo.ModelLock) error {
			_, err := q.Exec(ctx, `INSERT INTO memory_blocks (agent_id, scope, key, value, updated_at)
				VALUES ('alice', '', $1, 'v', '2026-01-01T00:00:00.000000Z')`, key)
			return err
		}
	}
	then := func(first, second func(querier, *hippo.ModelLock) error) func(querier, *hippo.ModelLock) error {
		return func(q querier, l *hippo.ModelLock) error {
			if err := first(q, l); err != nil {
				return err
			}
			return second(q, l)
		}
	}
	fails := func(querier, *hippo.ModelLock) error { return errFail }
	swallows := func(q querier, _ *hippo.ModelLock) error {
		_, _ = q.Exec(ctx, `SELECT 1/0`)
		return nil
	}
	type fn = func(querier, *hippo.ModelLock) error
	for _, tc := range []struct {
		name   string
		prefix byte // of the case's keys
		calls  []fn
		failed []bool // which calls must fail
		stored []string
	}{
		{"a call fails before any statement", 'a', []fn{insert("a1"), fails, insert("a3")}, []bool{false, true, false}, []string{"a1", "a3"}},
		{"a call fails after writing", 'b', []fn{insert("b1"), then(insert("b2"), fails), insert("b3")}, []bool{false, true, false}, []string{"b1", "b3"}},
		{"the first call fails", 'c', []fn{then(insert("c1"), fails), insert("c2")}, []bool{true, false}, []string{"c2"}},
		{"a call swallows a statement error", 'd', []fn{insert("d1"), then(insert("d2"), swallows), insert("d3")}, []bool{true, true, true}, nil},
		{"the last call swallows a statement error", 'e', []fn{insert("e1"), then(insert("e2"), swallows)}, []bool{true, true}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for i, err := range group(t, db, "alice", tc.calls) {
				if (err != nil) != tc.failed[i] {
					t.Errorf("call %d: error %v, want failed %v", i, err, tc.failed[i])
				}
			}
			blocks, err := db.ListBlocks(ctx, "alice", nil)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, b := range blocks {
				if b.Key[0] == tc.prefix {
					got = append(got, b.Key)
				}
			}
			slices.Sort(got)
			if !slices.Equal(got, tc.stored) {
				t.Errorf("stored %q, want %q", got, tc.stored)
			}
		})
	}
}

// group runs fns as one group of agent's writes, in order: each is
// queued behind a call that holds the agent's transaction until all are.
// It returns each call's error.
func group(t *testing.T, db *DB, agent string, fns []func(querier, *hippo.ModelLock) error) []error {
	t.Helper()
	ctx := context.Background()
	release, started := make(chan struct{}), make(chan struct{})
	held := make(chan error, 1)
	go func() {
		held <- db.agentWrite(ctx, agent, func(querier, *hippo.ModelLock) error { close(started); <-release; return nil })
	}()
	<-started
	errs := make([]error, len(fns))
	var wg sync.WaitGroup
	for i, fn := range fns {
		wg.Go(func() { errs[i] = db.agentWrite(ctx, agent, fn) })
		for deadline := time.Now().Add(10 * time.Second); db.group.Queued(agent) < i+1; time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("call %d did not queue", i)
			}
		}
	}
	close(release)
	if err := <-held; err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	return errs
}

// openInternal opens a database of its own for t, closed when t ends.
func openInternal(t *testing.T) *DB {
	t.Helper()
	db, err := Open(context.Background(), pgtest.New(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
