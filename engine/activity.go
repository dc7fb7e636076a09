package engine

import (
	"context"
	"sync"
	"time"

	"github.com/hippo-mem/hippo"
)

// Decay clocks.
const (
	WallClock   = "wall"
	ActiveClock = "active"
)

// MetaStore is a store's settings table (hippo_meta): values recorded in
// the database for every process that opens it.
type MetaStore interface {
	// Meta is the value recorded under key, "" when there is none.
	Meta(ctx context.Context, key string) (string, error)
	// SetMeta records value under key.
	SetMeta(ctx context.Context, key, value string) error
}

// ClockStore is what the decay clock needs of a store: its settings and
// the agents' hours of activity.
type ClockStore interface {
	MetaStore
	// ActiveHours are the agent's hours of activity after the hour after,
	// ascending.
	ActiveHours(ctx context.Context, agentID string, after int64) ([]int64, error)
	// RecordHour writes one (agent, hour) row, doing nothing when another
	// process wrote it first.
	RecordHour(ctx context.Context, agentID string, hour int64) error
}

// Clock is a database's decay clock: wall time, or under the active
// clock the hours in which each agent used its memory, which it records.
type Clock struct {
	st     ClockStore
	now    func() time.Time
	active bool

	mu   sync.Mutex
	hour map[string]int64 // last hour recorded, by agent
}

// openClock records clock (WallClock or ActiveClock) when given, and
// returns the clock recorded in the store, the wall clock by default;
// now is the time (nil: time.Now).
func openClock(ctx context.Context, st ClockStore, clock string, now func() time.Time) (*Clock, error) {
	switch clock {
	case "":
	case WallClock, ActiveClock:
		if err := st.SetMeta(ctx, "decay_clock", clock); err != nil {
			return nil, err
		}
	default:
		return nil, hippo.Invalidf("decay_clock", "must be %q or %q, got %q", WallClock, ActiveClock, clock)
	}
	recorded, err := st.Meta(ctx, "decay_clock")
	if err != nil {
		return nil, err
	}
	if now == nil {
		now = time.Now
	}
	return &Clock{st: st, now: now, active: recorded == ActiveClock, hour: map[string]int64{}}, nil
}

// openDecayModel records model when given and returns the model recorded
// in the store, hippo.DecayHippo when none is.
func openDecayModel(ctx context.Context, st MetaStore, model hippo.DecayModel) (hippo.DecayModel, error) {
	if model != "" {
		if _, err := hippo.ParseDecayModel(string(model)); err != nil {
			return "", err
		}
		if err := st.SetMeta(ctx, "decay_model", string(model)); err != nil {
			return "", err
		}
	}
	recorded, err := st.Meta(ctx, "decay_model")
	if err != nil {
		return "", err
	}
	return hippo.RecordedDecayModel(recorded)
}

// Now is the time.
func (c *Clock) Now() time.Time { return c.now() }

// Active reports whether chunks decay by the active clock.
func (c *Clock) Active() bool { return c.active }

// Name is WallClock or ActiveClock.
func (c *Clock) Name() string {
	if c.active {
		return ActiveClock
	}
	return WallClock
}

// At is the clock by which agentID's chunks decay at now: wall time, or
// under the active clock the agent's recorded hours.
func (c *Clock) At(ctx context.Context, agentID string, now time.Time) (hippo.DecayClock, error) {
	if !c.active {
		return hippo.WallHours(now.UnixMilli()), nil
	}
	hours, err := c.st.ActiveHours(ctx, agentID, -1)
	if err != nil {
		return nil, err
	}
	return hippo.ActiveHours(hours, now.UnixMilli()), nil
}

// Record records that agentID uses its memory now, under the active
// clock: one write per agent and hour by this process.
func (c *Clock) Record(ctx context.Context, agentID string) error {
	if !c.active {
		return nil
	}
	hour := c.now().Unix() / 3600
	c.mu.Lock()
	done := c.hour[agentID] == hour
	c.mu.Unlock()
	if done {
		return nil
	}
	if err := c.st.RecordHour(ctx, agentID, hour); err != nil {
		return err
	}
	c.mu.Lock()
	c.hour[agentID] = hour
	c.mu.Unlock()
	return nil
}
