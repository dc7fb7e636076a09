package main

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/local"
	"github.com/hippo-mem/hippo/sqlite"
)

// TestCrashAsyncRemember kills a library process making async
// remember_facts calls, while its background runs learn them, with
// SIGKILL at a random time. After each kill every acknowledged text is in
// the database, kept as a memory, and either learned (its fact is there)
// or still queued; at the end LearnPending, as the next start runs it,
// learns what is queued, each text once.
//
// HIPPO_CRASH_ASYNC_KILLS sets the number of kills (5 by default).
func TestCrashAsyncRemember(t *testing.T) {
	t.Parallel()
	kills := envInt("HIPPO_CRASH_ASYNC_KILLS", 5)
	seed := uint64(envInt("HIPPO_CRASH_SEED", int(time.Now().UnixNano()%1e9)))
	t.Logf("%d kills, HIPPO_CRASH_SEED=%d", kills, seed)
	r := rand.New(rand.NewPCG(seed, 4))
	dir := t.TempDir()
	path := filepath.Join(dir, "async.db")
	acked := map[int]string{} // kept text's ID by text number
	for k := range kills {
		env := append(cleanEnv(dir, path), helperEnv+"=async", "HIPPO_AGENT=crash", "HIPPO_BATCH_FROM="+strconv.Itoa(k*100000))
		wait := time.Duration(300+r.IntN(2000)) * time.Millisecond
		killHelper(t, env, math.MaxInt, wait, func(line string) {
			n, id, ok := strings.Cut(line, " ")
			if i, err := strconv.Atoi(n); ok && err == nil {
				acked[i] = id
			}
		})
		if _, err := checkAsync(path, acked, false); err != nil {
			t.Fatalf("kill %d, after %d texts acknowledged: %v", k, len(acked), err)
		}
	}
	if len(acked) == 0 {
		t.Fatalf("no text acknowledged in %d runs", kills)
	}
	queued, err := checkAsync(path, acked, true)
	if err != nil {
		t.Fatalf("after LearnPending: %v", err)
	}
	t.Logf("%d kills, %d texts acknowledged, all kept; %d queued at the end, learned by LearnPending", kills, len(acked), queued)
}

// asyncText is the helper's n-th text.
func asyncText(n int) string { return fmt.Sprintf("I own %d blue bicycles.", n) }

// checkAsync checks the database at path after a kill: integrity, every
// acknowledged text kept under its ID, queued at most once, learned at
// most once and never both (a text's row goes in the transaction that
// writes its fact). With learn it first learns what is queued, as the
// next start does, and then wants nothing queued. It returns how many
// were queued.
func checkAsync(path string, acked map[int]string, learn bool) (int, error) {
	raw, err := openIntact(path)
	if err != nil {
		return 0, err
	}
	if err := ftsIntact(raw); err != nil {
		raw.Close()
		return 0, err
	}
	raw.Close()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, path, sqlite.Options{})
	if err != nil {
		return 0, err
	}
	defer db.Close()
	m, err := db.Memory(sqlite.MemoryOptions{AgentID: "crash", Embedder: local.NewEmbedder(),
		Extractor: local.NewExtractor(), Classifier: local.NewClassifier()})
	if err != nil {
		return 0, err
	}
	st, err := db.Stats(ctx)
	if err != nil {
		return 0, err
	}
	queued := st.Pending
	if learn {
		if _, err := m.LearnPending(ctx); err != nil {
			return queued, err
		}
	}
	raw, err = openIntact(path)
	if err != nil {
		return queued, err
	}
	defer raw.Close()
	// A text learned gives one fact (new, superseding or strengthening
	// one): never two, which learning it twice would.
	factsOf := map[string]int{}
	rows, err := raw.Query(`SELECT input_hash, COUNT(*) FROM chunks WHERE kind = 'fact' AND input_hash IS NOT NULL GROUP BY input_hash`)
	if err != nil {
		return queued, err
	}
	for rows.Next() {
		var h string
		var n int
		if err := rows.Scan(&h, &n); err != nil {
			rows.Close()
			return queued, err
		}
		factsOf[h] = n
	}
	rows.Close()
	for n, id := range acked {
		text := asyncText(n)
		c, err := db.Chunk(ctx, "crash", id)
		if err != nil || c.Content != text {
			return queued, fmt.Errorf("acknowledged text %d (%s) is not kept: %v", n, id, err)
		}
		h := hippo.ContentHash(text)
		var waiting int
		if err := raw.QueryRow(`SELECT COUNT(*) FROM remember_pending WHERE text_hash = ?`, h).Scan(&waiting); err != nil {
			return queued, err
		}
		switch {
		case factsOf[h] > 1:
			return queued, fmt.Errorf("text %d learned %d times", n, factsOf[h])
		case waiting > 1:
			return queued, fmt.Errorf("text %d queued %d times", n, waiting)
		case factsOf[h] == 1 && waiting > 0:
			return queued, fmt.Errorf("text %d learned and still queued", n)
		case learn && waiting > 0:
			return queued, fmt.Errorf("text %d still queued after LearnPending", n)
		}
	}
	return queued, nil
}

// helperAsync makes async remember_facts calls until killed, printing each
// acknowledged text's number and kept ID.
func helperAsync() error {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, os.Getenv("HIPPO_DB"), sqlite.Options{})
	if err != nil {
		return err
	}
	defer db.Close()
	m, err := db.Memory(sqlite.MemoryOptions{AgentID: os.Getenv("HIPPO_AGENT"), Embedder: local.NewEmbedder(),
		Extractor: local.NewExtractor(), Classifier: local.NewClassifier()})
	if err != nil {
		return err
	}
	from, _ := strconv.Atoi(os.Getenv("HIPPO_BATCH_FROM"))
	for n := from; ; n++ {
		text := asyncText(n)
		res, err := m.Remember(ctx, hippo.RememberInput{Text: text, Async: true})
		if err != nil {
			return err
		}
		if res.Message == nil {
			return fmt.Errorf("text %d: not kept", n)
		}
		fmt.Println(n, res.Message.ID)
	}
}
