package postgres_test

import (
	"context"
	"testing"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/internal/pgtest"
	"github.com/hippo-mem/hippo/postgres"
	"github.com/hippo-mem/hippo/storetest"
)

// BenchmarkStoreMemoriesLibrary is storetest.BenchStoreMemories on
// PostgreSQL (a new database of the local server, or $HIPPO_TEST_POSTGRES's).
//
//	go test -run '^$' -bench StoreMemoriesLibrary -benchtime 50000x ./postgres/
func BenchmarkStoreMemoriesLibrary(b *testing.B) {
	storetest.BenchStoreMemories(b, func(b *testing.B, dim int) hippo.Store {
		db, err := postgres.Open(context.Background(), pgtest.New(b), postgres.Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { db.Close() })
		return db
	})
}
