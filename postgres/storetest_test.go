package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/hippo-mem/hippo"

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
		OpenWith: func(t *testing.T, name string, now func() time.Time, model hippo.DecayModel) storetest.Store {
			db, err := postgres.Open(context.Background(), name, postgres.Options{Now: now, Decay: model})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			return db
		},
	})
}
