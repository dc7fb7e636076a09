package engine

import (
	"context"
	"sync"
	"time"
)

// Activity records the hours in which agents use their memory, for the
// active decay clock: a store's write of one (agent, hour) row, called at
// most once per agent and hour by this process (the store's write must
// ignore a row another process wrote first).
type Activity struct {
	write func(ctx context.Context, agentID string, hour int64) error
	mu    sync.Mutex
	hour  map[string]int64 // last hour recorded, by agent
}

// NewActivity returns an Activity writing through write.
func NewActivity(write func(ctx context.Context, agentID string, hour int64) error) *Activity {
	return &Activity{write: write, hour: map[string]int64{}}
}

// Record records that agentID uses its memory at now, unless this process
// already recorded that hour.
func (a *Activity) Record(ctx context.Context, agentID string, now time.Time) error {
	hour := now.Unix() / 3600
	a.mu.Lock()
	done := a.hour[agentID] == hour
	a.mu.Unlock()
	if done {
		return nil
	}
	if err := a.write(ctx, agentID, hour); err != nil {
		return err
	}
	a.mu.Lock()
	a.hour[agentID] = hour
	a.mu.Unlock()
	return nil
}
