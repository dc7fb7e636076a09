package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"

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
		OpenWith: func(t *testing.T, name string, o storetest.Options) (storetest.Store, error) {
			db, err := sqlite.Open(context.Background(), name, sqlite.Options{Config: o.Config, Now: o.Now,
				Decay: o.Decay, DecayClock: o.DecayClock, IndexMemory: o.IndexMemory})
			if err != nil {
				return nil, err
			}
			t.Cleanup(func() { db.Close() })
			return db, nil
		},
	})
}
