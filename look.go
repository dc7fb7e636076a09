package hippo

import "context"

type lookingKey struct{}

// WithLooking returns a context under which reading an agent's memory
// records no activity: a person or a dashboard looking at memory (the web
// UI's pages, a preview) must not change it, and under the active decay
// clock every hour of activity ages all of an agent's chunks. It changes
// nothing else: a recall still boosts unless RecallInput.DryRun is set,
// and writes still write.
func WithLooking(ctx context.Context) context.Context {
	return context.WithValue(ctx, lookingKey{}, true)
}

// Looking reports whether ctx is WithLooking's.
func Looking(ctx context.Context) bool {
	v, _ := ctx.Value(lookingKey{}).(bool)
	return v
}
