package mcp_test

import (
	"context"
	"log"
	"log/slog"
	"os"
	"os/signal"

	"github.com/hippo-mem/hippo/mcp"
	"github.com/hippo-mem/hippo/openai"
	"github.com/hippo-mem/hippo/sqlite"
)

// A server on the default loopback address, shut down gracefully on
// Ctrl-C.
func ExampleServer_ListenAndServe() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	db, err := sqlite.Open(ctx, "hippo.db", sqlite.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	emb, err := openai.NewEmbedder(openai.Config{APIKey: os.Getenv("HIPPO_EMBED_KEY")})
	if err != nil {
		log.Fatal(err)
	}
	s, err := mcp.NewServer(mcp.Config{
		DB: db, Embedder: emb,
		Logger: slog.New(slog.NewTextHandler(os.Stderr, nil)),
	})
	if err != nil {
		log.Fatal(err)
	}
	if err := s.ListenAndServe(ctx, mcp.DefaultAddr); err != nil {
		log.Fatal(err)
	}
}
