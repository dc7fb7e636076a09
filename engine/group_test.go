package engine_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/hippo-mem/hippo/engine"
)

// TestGroupCommit checks the queue every store's group commit shares:
// calls that arrive while a group runs form the next group, each gets the
// outcome run set for it, keys are apart, and an idle key leaves nothing
// behind.
func TestGroupCommit(t *testing.T) {
	release := make(chan struct{})
	var mu sync.Mutex
	var groups [][]int
	g := engine.NewGroupCommit(func(key string, calls []*engine.GroupCall[int]) {
		var ps []int
		for _, c := range calls {
			ps = append(ps, c.Payload)
			if c.Payload%2 == 1 {
				c.Err = fmt.Errorf("%s: odd %d", key, c.Payload)
			}
		}
		mu.Lock()
		groups = append(groups, ps)
		mu.Unlock()
		if ps[0] == 0 {
			<-release // the first group holds until the others queue
		}
	})
	ctx := context.Background()
	first := make(chan error)
	go func() { first <- g.Do(ctx, "a", 0) }()
	for g.Keys() == 0 {
		time.Sleep(time.Millisecond)
	}
	const n = 6
	errs := make([]error, n+1)
	var wg sync.WaitGroup
	for p := 1; p <= n; p++ {
		wg.Go(func() { errs[p] = g.Do(ctx, "a", p) })
	}
	for g.Queued("a") < n {
		time.Sleep(time.Millisecond)
	}
	if err := g.Do(ctx, "b", 7); err == nil || err.Error() != "b: odd 7" {
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
	if len(groups) != 3 || len(groups[2]) != n {
		t.Errorf("groups %v, want [0], [7], then all %d calls of a together", groups, n)
	}
	if st := g.Stats(); st.Groups != 3 || st.Calls != n+2 || st.Largest != n {
		t.Errorf("stats %+v", st)
	}
	if g.Keys() != 0 {
		t.Errorf("%d idle keys kept", g.Keys())
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := g.Do(cctx, "a", 2); !errors.Is(err, context.Canceled) {
		t.Errorf("a call cancelled before it queues: %v", err)
	}
}
