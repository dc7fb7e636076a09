package engine_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/hippo-mem/hippo/engine"
)

// TestActivity checks that an agent's hour is written once, again after a
// failed write, and again in the next hour; agents apart.
func TestActivity(t *testing.T) {
	ctx := context.Background()
	var writes []string
	fail := false
	a := engine.NewActivity(func(_ context.Context, agent string, hour int64) error {
		if fail {
			return errors.New("disk full")
		}
		writes = append(writes, agent)
		return nil
	})
	t0 := time.Date(2026, 11, 24, 10, 5, 0, 0, time.UTC)
	steps := []struct {
		agent   string
		at      time.Time
		fail    bool
		wantErr bool
		writes  int
	}{
		{"a", t0, false, false, 1},
		{"a", t0.Add(50 * time.Minute), false, false, 1}, // same hour
		{"b", t0, false, false, 2},                       // another agent
		{"a", t0.Add(time.Hour), true, true, 2},          // the write fails
		{"a", t0.Add(time.Hour), false, false, 3},        // so it is tried again
		{"a", t0.Add(time.Hour + time.Minute), false, false, 3},
	}
	for i, s := range steps {
		fail = s.fail
		err := a.Record(ctx, s.agent, s.at)
		if (err != nil) != s.wantErr || len(writes) != s.writes {
			t.Fatalf("step %d: error %v, %d writes; want error %v, %d writes", i, err, len(writes), s.wantErr, s.writes)
		}
	}
}
