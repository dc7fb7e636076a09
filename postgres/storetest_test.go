package postgres_test

import (
	"context"
	"testing"

	"github.com/hippo-mem/hippo/internal/pgtest"
	"github.com/hippo-mem/hippo/postgres"
	"github.com/hippo-mem/hippo/storetest"
)

// open opens the database dsn, closed when t ends.
func open(t testing.TB, dsn string) *postgres.DB {
	t.Helper()
	db, err := postgres.Open(context.Background(), dsn, postgres.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// TestStore runs the conformance suite every store passes.
func TestStore(t *testing.T) {
	storetest.Run(t, storetest.Backend{
		New:  func(t *testing.T) string { return pgtest.New(t) },
		Open: func(t *testing.T, name string) storetest.Store { return open(t, name) },
		OpenWith: func(t *testing.T, name string, o storetest.Options) (storetest.Store, error) {
			db, err := postgres.Open(context.Background(), name, postgres.Options{Config: o.Config, Now: o.Now,
				Decay: o.Decay, DecayClock: o.DecayClock, IndexMemory: o.IndexMemory})
			if err != nil {
				return nil, err
			}
			t.Cleanup(func() { db.Close() })
			return db, nil
		},
		Parallel: 4,
	})
}
