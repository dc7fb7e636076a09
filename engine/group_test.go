package engine_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hippo-mem/hippo/engine"
)

// fakeTx is an engine.GroupTx that logs the primitives run on it; fail
// names the one that fails.
type fakeTx struct {
	key  string
	log  *[]string
	fail string
}

func (f *fakeTx) op(name string) error {
	*f.log = append(*f.log, name)
	if name == f.fail {
		return fmt.Errorf("%s failed", name)
	}
	return nil
}

func (f *fakeTx) Savepoint(context.Context) error  { return f.op("savepoint") }
func (f *fakeTx) RollbackTo(context.Context) error { return f.op("rollback-to") }
func (f *fakeTx) Release(context.Context) error    { return f.op("release") }
func (f *fakeTx) Commit(context.Context) error     { return f.op("commit") }
func (f *fakeTx) Rollback(context.Context)         { f.op("rollback") }

// TestGroupCommit checks the queue every store's group commit shares:
// calls that arrive while a group runs form the next group, each gets its
// own outcome, keys are apart, and an idle key leaves nothing behind.
func TestGroupCommit(t *testing.T) {
	release := make(chan struct{})
	g := engine.NewGroupCommit(func(_ context.Context, key string, several bool) (*fakeTx, error) {
		return &fakeTx{key: key, log: new([]string)}, nil
	})
	call := func(p int) func(*fakeTx) error {
		return func(tx *fakeTx) error {
			if p == 0 {
				<-release // the first group holds until the others queue
			}
			if p%2 == 1 {
				return fmt.Errorf("%s: odd %d", tx.key, p)
			}
			return nil
		}
	}
	ctx := context.Background()
	first := make(chan error)
	go func() { first <- g.Do(ctx, "a", call(0)) }()
	for g.Keys() == 0 {
		time.Sleep(time.Millisecond)
	}
	const n = 6
	errs := make([]error, n+1)
	var wg sync.WaitGroup
	for p := 1; p <= n; p++ {
		wg.Go(func() { errs[p] = g.Do(ctx, "a", call(p)) })
	}
	for g.Queued("a") < n {
		time.Sleep(time.Millisecond)
	}
	if err := g.Do(ctx, "b", call(7)); err == nil || err.Error() != "b: odd 7" {
		t.Errorf("another key's call: %v, want its own error, not waiting for a", err)
	}
	close(release)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	for p := 1; p <= n; p++ {
		if want := p%2 == 1; (errs[p] != nil) != want {
			t.Errorf("call %d: %v", p, errs[p])
		}
	}
	if st := g.Stats(); st.Groups != 3 || st.Calls != n+2 || st.Largest != n {
		t.Errorf("stats %+v, want [0], [7], then all %d calls of a together", st, n)
	}
	if g.Keys() != 0 {
		t.Errorf("%d idle keys kept", g.Keys())
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := g.Do(cctx, "a", call(2)); !errors.Is(err, context.Canceled) {
		t.Errorf("a call cancelled before it queues: %v", err)
	}
}

// TestGroupCommitSavepoints checks the loop a group runs over a store's
// transaction: a savepoint per call when there are several, a failed call
// rolled back to its savepoint alone, one commit; a call alone runs
// without a savepoint; a transaction that fails under the group (begin,
// savepoint, release, commit) fails every call not failed already, and
// a call cancelled while it waited is skipped.
func TestGroupCommitSavepoints(t *testing.T) {
	boom := errors.New("boom")
	ok := func(*fakeTx) error { return nil }
	fails := func(*fakeTx) error { return boom }
	tests := []struct {
		name      string
		fns       []func(*fakeTx) error
		cancelled int // index of a call cancelled while it waits, -1 none
		fail      string
		beginErr  bool
		want      string // the primitives run, in order
		errs      []string
	}{
		{"alone", []func(*fakeTx) error{ok}, -1, "", false, "commit", []string{""}},
		{"alone failing", []func(*fakeTx) error{fails}, -1, "", false, "rollback", []string{"boom"}},
		{"several", []func(*fakeTx) error{ok, fails, ok}, -1, "", false,
			"savepoint release savepoint rollback-to release savepoint release commit", []string{"", "boom", ""}},
		{"all failing", []func(*fakeTx) error{fails, fails}, -1, "", false,
			"savepoint rollback-to release savepoint rollback-to release rollback", []string{"boom", "boom"}},
		{"one left after a cancelled call", []func(*fakeTx) error{ok, ok}, 0, "", false, "commit", []string{"canceled", ""}},
		{"savepoint fails", []func(*fakeTx) error{ok, ok}, -1, "savepoint", false, "savepoint rollback",
			[]string{"savepoint failed", "savepoint failed"}},
		{"release fails", []func(*fakeTx) error{ok, fails}, -1, "release", false, "savepoint release rollback",
			[]string{"release failed", "release failed"}},
		{"rollback-to fails", []func(*fakeTx) error{ok, fails, ok}, -1, "rollback-to", false,
			"savepoint release savepoint rollback-to rollback", []string{"rollback-to failed", "boom", "rollback-to failed"}},
		{"commit fails", []func(*fakeTx) error{ok, fails}, -1, "commit", false,
			"savepoint release savepoint rollback-to release commit rollback", []string{"commit failed", "boom"}},
		{"begin fails", []func(*fakeTx) error{ok, ok}, -1, "", true, "", []string{"begin failed", "begin failed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var log []string
			release, started := make(chan struct{}), make(chan struct{})
			groups := 0
			g := engine.NewGroupCommit(func(_ context.Context, key string, several bool) (*fakeTx, error) {
				if groups++; groups > 1 && tt.beginErr {
					return nil, errors.New("begin failed")
				}
				if groups == 1 {
					return &fakeTx{key: key, log: new([]string)}, nil // the holder's
				}
				return &fakeTx{key: key, log: &log, fail: tt.fail}, nil
			})
			ctx := context.Background()
			held := make(chan error, 1)
			go func() {
				held <- g.Do(ctx, "k", func(*fakeTx) error { close(started); <-release; return nil })
			}()
			<-started
			errs := make([]error, len(tt.fns))
			var wg sync.WaitGroup
			cctx, cancel := context.WithCancel(ctx)
			for i, fn := range tt.fns {
				c := ctx
				if i == tt.cancelled {
					c = cctx
				}
				wg.Go(func() { errs[i] = g.Do(c, "k", fn) })
				for g.Queued("k") < i+1 {
					time.Sleep(time.Millisecond)
				}
			}
			cancel()
			close(release)
			if err := <-held; err != nil {
				t.Fatal(err)
			}
			wg.Wait()
			if got := strings.Join(log, " "); got != tt.want {
				t.Errorf("ran %q, want %q", got, tt.want)
			}
			for i, err := range errs {
				if tt.errs[i] == "" && err != nil || tt.errs[i] != "" && (err == nil || !strings.Contains(err.Error(), tt.errs[i])) {
					t.Errorf("call %d: %v, want %q", i, err, tt.errs[i])
				}
			}
		})
	}
}
