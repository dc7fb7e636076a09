package postgres

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

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
	db, err := Open(ctx, pgtest.New(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
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
