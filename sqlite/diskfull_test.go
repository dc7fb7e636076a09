package sqlite_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/sqlite"
)

// TestDiskFull: on a full disk reads still answer (a recall's boost is
// bookkeeping: it is dropped, as the docs allow), writes fail with an
// error that says the disk is full and names the file, Ping (/health)
// reports it, and nothing stored is lost.
func TestDiskFull(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	m := e.memory("a")
	stored := 0
	for i := range 20 {
		if _, err := m.StoreMemory(ctx, hippo.StoreInput{Content: fmt.Sprintf("note %d about the deploy of the cluster", i)}); err != nil {
			t.Fatal(err)
		}
		stored++
	}
	if _, err := m.AppendBlock(ctx, "persona", "Terse."); err != nil {
		t.Fatal(err)
	}
	if err := e.db.FillDisk(ctx); err != nil {
		t.Fatal(err)
	}
	// Fill what room the pages have left, until a write fails.
	var werr error
	for i := 0; werr == nil; i++ {
		if i > 100_000 {
			t.Fatal("the disk never filled")
		}
		if _, werr = m.StoreMemory(ctx, hippo.StoreInput{Content: fmt.Sprintf("filler %d %s", i, strings.Repeat("x", 500))}); werr == nil {
			stored++
		}
	}
	if msg := hippo.ErrorMessage(werr); !strings.Contains(msg, "disk") || !strings.Contains(msg, "full") || !strings.Contains(msg, e.db.Path()) {
		t.Errorf("write on a full disk: %q, want it to say the disk holding %s is full", msg, e.db.Path())
	}
	// Reads answer, again and again: each boosts its best result, and
	// the boost's change-log rows soon need a page the disk has no room
	// for.
	for i := range 1000 {
		res, err := m.Recall(ctx, hippo.RecallInput{Query: fmt.Sprintf("note %d about the deploy of the cluster", i%20), Limit: 5})
		if err != nil {
			t.Fatalf("recall %d on a full disk: %v", i, err)
		}
		if len(res) == 0 {
			t.Fatalf("recall %d on a full disk: no results", i)
		}
	}
	if b, err := m.Block(ctx, "persona"); err != nil || b == nil {
		t.Errorf("block on a full disk: %v, %v", b, err)
	}
	if err := e.db.Ping(ctx); err == nil || !strings.Contains(err.Error(), "full") {
		t.Errorf("Ping on a full disk: %v, want it to report the disk full", err)
	}
	// Nothing stored is lost.
	n, err := e.db.CountChunks(ctx, sqlite.ChunkFilter{AgentID: "a", Superseded: true})
	if err != nil || n != stored {
		t.Errorf("%d chunks on a full disk (%v), %d stored", n, err, stored)
	}
}
