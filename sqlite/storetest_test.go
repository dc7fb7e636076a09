package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/hippo-mem/hippo"

	"github.com/hippo-mem/hippo/sqlite"
	"github.com/hippo-mem/hippo/storetest"
)

// TestStore runs the conformance suite every store passes.
func TestStore(t *testing.T) {
	storetest.Run(t, storetest.Backend{
		New: func(t *testing.T) string { return filepath.Join(t.TempDir(), "store.db") },
		Open: func(t *testing.T, name string) storetest.Store {
			db, err := sqlite.Open(context.Background(), name, sqlite.Options{})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			return db
		},
		OpenWith: func(t *testing.T, name string, now func() time.Time, model hippo.DecayModel) storetest.Store {
			db, err := sqlite.Open(context.Background(), name, sqlite.Options{Now: now, Decay: model})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			return db
		},
	})
}
