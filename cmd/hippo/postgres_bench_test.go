package main

import (
	"fmt"
	"testing"

	"github.com/hippo-mem/hippo/internal/pgtest"
)

// BenchmarkServeStoresPostgres is BenchmarkServeStores on a PostgreSQL
// database of its own (HIPPO_TEST_POSTGRES, else the local server); one
// command measures both stores:
//
//	go test -run '^$' -bench 'ServeStores' -benchtime 2000x -timeout 30m ./cmd/hippo/
func BenchmarkServeStoresPostgres(b *testing.B) {
	for _, embedder := range []string{"api-1536", "offline"} {
		for _, clients := range []int{1, 8, 32} {
			b.Run(fmt.Sprintf("embedder=%s/clients=%d", embedder, clients), func(b *testing.B) {
				benchServeStores(b, embedder, clients, pgtest.New(b))
			})
		}
	}
}
