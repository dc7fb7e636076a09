package engine

import (
	"context"
	"errors"
	"testing"
	"time"
)

// clockStore is an in-memory engine.ClockStore whose hour writes can fail.
type clockStore struct {
	meta   map[string]string
	writes []string
	fail   bool
}

func (s *clockStore) Meta(_ context.Context, key string) (string, error) { return s.meta[key], nil }

func (s *clockStore) SetMeta(_ context.Context, key, value string) error {
	s.meta[key] = value
	return nil
}

func (s *clockStore) ActiveHours(context.Context, string, int64) ([]int64, error) { return nil, nil }

func (s *clockStore) RecordHour(_ context.Context, agent string, _ int64) error {
	if s.fail {
		return errors.New("disk full")
	}
	s.writes = append(s.writes, agent)
	return nil
}

// TestActivity checks that under the active clock an agent's hour is
// written once, again after a failed write, and again in the next hour;
// agents apart. Under the wall clock nothing is written.
func TestActivity(t *testing.T) {
	ctx := context.Background()
	st := &clockStore{meta: map[string]string{}}
	t0 := time.Date(2026, 11, 24, 10, 5, 0, 0, time.UTC)
	now := t0
	wall, err := openClock(ctx, st, "", func() time.Time { return now })
	if err != nil || wall.Active() || wall.Name() != WallClock {
		t.Fatalf("default clock: %v, %v", wall, err)
	}
	if err := wall.Record(ctx, "a"); err != nil || len(st.writes) != 0 {
		t.Fatalf("wall clock recorded: %v, %v", st.writes, err)
	}
	a, err := openClock(ctx, st, ActiveClock, func() time.Time { return now })
	if err != nil || !a.Active() || st.meta["decay_clock"] != ActiveClock {
		t.Fatalf("active clock: %v, %v", st.meta, err)
	}
	if _, err := openClock(ctx, st, "lunar", nil); err == nil {
		t.Fatal("an unknown clock was accepted")
	}
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
		st.fail, now = s.fail, s.at
		err := a.Record(ctx, s.agent)
		if (err != nil) != s.wantErr || len(st.writes) != s.writes {
			t.Fatalf("step %d: error %v, %d writes; want error %v, %d writes", i, err, len(st.writes), s.wantErr, s.writes)
		}
	}
}
