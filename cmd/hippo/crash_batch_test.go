package main

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/local"
	"github.com/hippo-mem/hippo/sqlite"
)

// batchItems is how many memories a crash-test batch holds.
const batchItems = 50

// TestCrashBatches kills a library process storing batches (StoreMemories)
// with SIGKILL, after a few acknowledged batches or at a random time, and
// checks after each kill that the database is intact and that every batch
// is whole or absent: every acknowledged one whole, none in part.
//
// HIPPO_CRASH_BATCH_KILLS sets the number of kills (6 by default).
func TestCrashBatches(t *testing.T) {
	t.Parallel()
	kills := envInt("HIPPO_CRASH_BATCH_KILLS", 6)
	seed := uint64(envInt("HIPPO_CRASH_SEED", int(time.Now().UnixNano()%1e9)))
	t.Logf("%d kills, HIPPO_CRASH_SEED=%d", kills, seed)
	r := rand.New(rand.NewPCG(seed, 3))
	dir := t.TempDir()
	path := filepath.Join(dir, "batch.db")
	acked := map[int]bool{}
	for k := range kills {
		env := append(cleanEnv(dir, path), helperEnv+"=batches", "HIPPO_AGENT=crash", "HIPPO_BATCH_FROM="+strconv.Itoa(k*100000))
		wait := time.Duration(500+r.IntN(3000)) * time.Millisecond
		killHelper(t, env, 1+r.IntN(8), wait, func(line string) {
			if n, err := strconv.Atoi(line); err == nil {
				acked[n] = true
			}
		})
		if err := checkBatches(path, acked); err != nil {
			t.Fatalf("kill %d, after %d batches acknowledged: %v", k, len(acked), err)
		}
	}
	if len(acked) == 0 {
		t.Errorf("no batch acknowledged in %d runs", kills)
	}
	t.Logf("%d kills, %d batches acknowledged, all whole; no partial batch", kills, len(acked))
}

// killHelper runs a helper process with env and kills it with SIGKILL
// once it has printed want lines or after wait, whichever comes first,
// handing every line it printed, those printed as the kill landed too, to
// ack.
func killHelper(t *testing.T, env []string, want int, wait time.Duration, ack func(line string)) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = env
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 1<<12)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	timeout := time.After(wait)
	for got := 0; got < want; {
		select {
		case line, ok := <-lines:
			if !ok { // the helper ended
				got = want
				break
			}
			ack(line)
			got++
		case <-timeout:
			got = want
		}
	}
	cmd.Process.Kill()
	for line := range lines {
		ack(line) // printed before the kill landed
	}
	cmd.Wait()
}

// checkBatches checks the database at path after a kill: integrity, the
// full-text index, every acknowledged batch whole and no batch in part.
func checkBatches(path string, acked map[int]bool) error {
	if _, err := os.Stat(path); os.IsNotExist(err) {
		if len(acked) > 0 {
			return fmt.Errorf("the database is gone")
		}
		return nil
	}
	raw, err := openIntact(path)
	if err != nil {
		return err
	}
	defer raw.Close()
	if err := ftsIntact(raw); err != nil {
		return err
	}
	rows, err := raw.Query(`SELECT content FROM chunks`)
	if err != nil {
		return err
	}
	defer rows.Close()
	count := map[int]int{}
	for rows.Next() {
		var content string
		var b, i int
		if err := rows.Scan(&content); err != nil {
			return err
		}
		if _, err := fmt.Sscanf(content, "batch %d item %d", &b, &i); err != nil {
			return fmt.Errorf("unexpected chunk %q", content)
		}
		count[b]++
	}
	if err := rows.Err(); err != nil {
		return err
	}
	for b := range acked {
		if count[b] != batchItems {
			return fmt.Errorf("acknowledged batch %d has %d of %d memories", b, count[b], batchItems)
		}
	}
	for b, n := range count {
		if n != batchItems {
			return fmt.Errorf("batch %d is partly stored: %d of %d memories", b, n, batchItems)
		}
	}
	return nil
}

// helperBatches stores batches until killed, printing each batch's number
// once StoreMemories returned.
func helperBatches() error {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, os.Getenv("HIPPO_DB"), sqlite.Options{})
	if err != nil {
		return err
	}
	defer db.Close()
	m, err := db.Memory(sqlite.MemoryOptions{AgentID: os.Getenv("HIPPO_AGENT"), Embedder: local.NewEmbedder()})
	if err != nil {
		return err
	}
	from, _ := strconv.Atoi(os.Getenv("HIPPO_BATCH_FROM"))
	items := make([]hippo.StoreInput, batchItems)
	for b := from; ; b++ {
		for i := range items {
			items[i].Content = fmt.Sprintf("batch %d item %d: the %s of week %d", b, i, helperWords[(b+i)%len(helperWords)], i)
		}
		res, err := m.StoreMemories(ctx, items)
		if err != nil {
			return err
		}
		if res.Stored != batchItems {
			return fmt.Errorf("batch %d: %d stored, want %d", b, res.Stored, batchItems)
		}
		fmt.Println(b)
	}
}
