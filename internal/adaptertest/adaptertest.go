// Package adaptertest gives the agent framework adapters (adapters/*,
// modules of their own) what their tests and Examples start from: Hippo's
// tools over a fresh memory, offline.
package adaptertest

import (
	"context"
	"encoding/json"
	"errors"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/hippo-mem/hippo/local"
	"github.com/hippo-mem/hippo/sqlite"
	"github.com/hippo-mem/hippo/tools"
)

// Open creates a database in a new temporary directory and starts model,
// a fake of a provider's API, on an httptest server. It returns the tools
// over agent's memory in the database (with the offline embedder), the
// server's URL, and a function that stops the server, closes the database
// and removes the directory. It exits the program on an error, as an
// Example does.
func Open(agent string, model http.HandlerFunc) (set tools.Set, modelURL string, closeAll func()) {
	set, closeMemory, err := open(agent)
	if err != nil {
		log.Fatal(err)
	}
	srv := httptest.NewServer(model)
	return set, srv.URL, func() {
		srv.Close()
		closeMemory()
	}
}

// Tools is Open for a test of agent "agent": it fails tb on an error and
// cleans up when tb ends.
func Tools(tb testing.TB) tools.Set {
	tb.Helper()
	set, closeAll, err := open("agent")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(closeAll)
	return set
}

// JSON is v marshalled and read back as generic JSON: what a provider's
// API receives.
func JSON(tb testing.TB, v any) map[string]any {
	tb.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		tb.Fatalf("%s: %v", b, err)
	}
	return m
}

func open(agent string) (tools.Set, func(), error) {
	dir, err := os.MkdirTemp("", "hippo-adapter-")
	if err != nil {
		return nil, nil, err
	}
	db, err := sqlite.Open(context.Background(), filepath.Join(dir, "hippo.db"), sqlite.Options{NoSync: true})
	if err != nil {
		return nil, nil, errors.Join(err, os.RemoveAll(dir))
	}
	closeAll := func() {
		db.Close()
		os.RemoveAll(dir)
	}
	mem, err := db.Memory(sqlite.MemoryOptions{AgentID: agent, Embedder: local.NewEmbedder()})
	if err != nil {
		closeAll()
		return nil, nil, err
	}
	return tools.New(mem, tools.Options{Config: db.Config()}), closeAll, nil
}
