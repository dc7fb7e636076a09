package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/local"
	"github.com/hippo-mem/hippo/sqlite"
	"github.com/hippo-mem/hippo/tools"
)

// The crash and concurrency tests run library processes: the test binary
// itself, started again with HIPPO_TEST_HELPER naming what to do. TestMain
// hands over to runHelper before anything else.
//
//	writer  store_memory, remember_facts and recall_memories in a loop, on
//	        the offline defaults, printing every acknowledged write to
//	        stdout as one JSON line (an ack) before the next call
//	reader  recall, list, count and export in a loop, checking that what
//	        it sees only grows
//	batches StoreMemories of batchItems memories in a loop, numbered from
//	        HIPPO_BATCH_FROM, printing each batch's number once stored
//
// Both read HIPPO_DB, HIPPO_AGENT (a comma-separated list: the first is
// written most), HIPPO_HELPER_SEED and HIPPO_HELPER_SECONDS (0: until
// killed). Any error is printed to stderr and exits 1.
const helperEnv = "HIPPO_TEST_HELPER"

// ack is one acknowledged write as a writer prints it.
type ack struct {
	Agent string `json:"agent"`
	Op    string `json:"op"` // "memory" or "fact"
	ID    string `json:"id"`
	// Hash is the content hash of a memory; Content is a fact's text.
	Hash    string `json:"hash,omitempty"`
	Content string `json:"content,omitempty"`
	// New is false for a verbatim repeat (memory) or a duplicate fact.
	New bool `json:"new"`
}

func runHelper(mode string) int {
	var err error
	switch mode {
	case "writer":
		err = helperWriter()
	case "reader":
		err = helperReader()
	case "batches":
		err = helperBatches()
	case "async":
		err = helperAsync()
	default:
		err = fmt.Errorf("unknown helper %q", mode)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "helper %s: %v\n", mode, err)
		return 1
	}
	return 0
}

// helperSetup opens the database and the memories of the helper's agents.
func helperSetup(ctx context.Context) (db *sqlite.DB, agents []string, mems []*sqlite.Memory, r *rand.Rand, deadline time.Time, err error) {
	seed, _ := strconv.ParseUint(os.Getenv("HIPPO_HELPER_SEED"), 10, 64)
	r = rand.New(rand.NewPCG(seed, uint64(os.Getpid())))
	if s, _ := strconv.ParseFloat(os.Getenv("HIPPO_HELPER_SECONDS"), 64); s > 0 {
		deadline = time.Now().Add(time.Duration(s * float64(time.Second)))
	}
	agents = strings.Split(os.Getenv("HIPPO_AGENT"), ",")
	db, err = sqlite.Open(ctx, os.Getenv("HIPPO_DB"), sqlite.Options{})
	if err != nil {
		return nil, nil, nil, nil, deadline, err
	}
	emb, ext, cls := local.NewEmbedder(), local.NewExtractor(), local.NewClassifier()
	for _, a := range agents {
		m, err := db.Memory(sqlite.MemoryOptions{AgentID: a, Embedder: emb, Extractor: ext, Classifier: cls})
		if err != nil {
			db.Close()
			return nil, nil, nil, nil, deadline, err
		}
		mems = append(mems, m)
	}
	return db, agents, mems, r, deadline, nil
}

var (
	helperPlaces = []string{"Berlin", "Lisbon", "Bangkok", "Oslo", "Lima", "Kyoto", "Nairobi", "Quito"}
	helperThings = []string{"Svelte", "Redux", "tea", "coffee", "Go", "Rust", "jazz", "chess", "SQLite"}
	helperWords  = strings.Fields("deploy review budget garden train meeting notes release cluster invoice design lunch")
)

// helperFactText is a sentence the offline extractor finds facts in.
func helperFactText(r *rand.Rand) string {
	switch r.IntN(4) {
	case 0:
		return fmt.Sprintf("I live in %s.", helperPlaces[r.IntN(len(helperPlaces))])
	case 1:
		return fmt.Sprintf("I love %s and I hate %s.", helperThings[r.IntN(len(helperThings))], helperThings[r.IntN(len(helperThings))])
	case 2:
		return fmt.Sprintf("My dog is called %s.", []string{"Rex", "Miso", "Bolt", "Luna"}[r.IntN(4)])
	}
	return fmt.Sprintf("I work at %s as an engineer.", []string{"Acme", "Initech", "Globex"}[r.IntN(3)])
}

// helperMemoryText is unique content (or, now and then, a repeat).
func helperMemoryText(r *rand.Rand, i int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "note %d of process %d:", i, os.Getpid())
	if r.IntN(10) == 0 {
		b.Reset()
		b.WriteString("a note every writer repeats:") // a duplicate: strengthened, not inserted
	}
	for range 3 + r.IntN(20) {
		b.WriteString(" " + helperWords[r.IntN(len(helperWords))])
	}
	if r.IntN(30) == 0 {
		b.WriteString(strings.Repeat(" long", 2000)) // past a page
	}
	return b.String()
}

func helperWriter() error {
	ctx := context.Background()
	db, agents, mems, r, deadline, err := helperSetup(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	sets := make([]tools.Set, len(mems))
	for i, m := range mems {
		sets[i] = tools.New(m, tools.Options{Config: m.Config()})
	}
	enc := json.NewEncoder(os.Stdout) // unbuffered: an ack is out before the next call
	for i := 0; deadline.IsZero() || time.Now().Before(deadline); i++ {
		k := 0
		if len(sets) > 1 && r.IntN(4) == 0 {
			k = 1 + r.IntN(len(sets)-1)
		}
		agent, set := agents[k], sets[k]
		switch n := r.IntN(10); {
		case n < 6:
			content := helperMemoryText(r, i)
			res, err := callTool(ctx, set, "store_memory", map[string]any{"content": content})
			if err != nil {
				return err
			}
			var d struct {
				Duplicate bool `json:"duplicate"`
				Memory    struct {
					ID string `json:"id"`
				} `json:"memory"`
			}
			if err := remarshal(res.Details, &d); err != nil {
				return err
			}
			if err := enc.Encode(ack{Agent: agent, Op: "memory", ID: d.Memory.ID, Hash: sqlite.ContentHash(content), New: !d.Duplicate}); err != nil {
				return err
			}
		case n < 9:
			text := helperFactText(r)
			res, err := callTool(ctx, set, "remember_facts", map[string]any{"text": text})
			if err != nil {
				return err
			}
			var d hippo.RememberResult
			if err := remarshal(res.Details, &d); err != nil {
				return err
			}
			for _, f := range d.Facts {
				if f.ChunkID == "" {
					continue
				}
				isNew := f.Action != hippo.ActionDuplicate
				if err := enc.Encode(ack{Agent: agent, Op: "fact", ID: f.ChunkID, Content: f.Content, New: isNew}); err != nil {
					return err
				}
			}
			if m := d.Message; m != nil { // the text, kept as a memory
				if err := enc.Encode(ack{Agent: agent, Op: "memory", ID: m.ID, Hash: sqlite.ContentHash(text), New: m.New}); err != nil {
					return err
				}
			}
		default:
			if _, err := callTool(ctx, set, "recall_memories", map[string]any{"query": helperFactText(r), "limit": 5}); err != nil {
				return err
			}
		}
	}
	return nil
}

// callTool runs a tool and turns an error result into an error.
func callTool(ctx context.Context, set tools.Set, name string, args map[string]any) (*tools.Result, error) {
	in, err := json.Marshal(args)
	if err != nil {
		return nil, err
	}
	res, err := set.Call(ctx, name, in)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if res.IsError {
		return nil, fmt.Errorf("%s: error result: %s", name, res.Text)
	}
	return res, nil
}

func remarshal(from, to any) error {
	b, err := json.Marshal(from)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, to)
}

// helperReader reads in a loop until its deadline. Writers only add, so
// every count it sees must be at least the one before. It prints how many
// reads it made.
func helperReader() error {
	ctx := context.Background()
	db, agents, mems, r, deadline, err := helperSetup(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	last := map[string]int{}
	reads := 0
	for deadline.IsZero() || time.Now().Before(deadline) {
		k := r.IntN(len(agents))
		agent, m := agents[k], mems[k]
		switch r.IntN(4) {
		case 0:
			if _, err := m.Recall(ctx, hippo.RecallInput{Query: helperFactText(r), Limit: 10}); err != nil {
				return fmt.Errorf("recall: %w", err)
			}
		case 1:
			n, err := db.CountChunks(ctx, sqlite.ChunkFilter{AgentID: agent, Superseded: true})
			if err != nil {
				return fmt.Errorf("count: %w", err)
			}
			if n < last[agent] {
				return fmt.Errorf("agent %s: %d chunks after %d: a write was lost", agent, n, last[agent])
			}
			last[agent] = n
		case 2:
			if _, err := db.ListChunks(ctx, sqlite.ChunkFilter{AgentID: agent, Limit: 20}); err != nil {
				return fmt.Errorf("list: %w", err)
			}
		default:
			var b strings.Builder
			sum, err := db.Export(ctx, &b, sqlite.ExportOptions{AgentID: agent})
			if err != nil {
				return fmt.Errorf("export: %w", err)
			}
			if !json.Valid([]byte(b.String())) {
				return fmt.Errorf("export of %s is not valid JSON", agent)
			}
			if sum.Chunks < last[agent] {
				return fmt.Errorf("agent %s: export of %d chunks after a count of %d", agent, sum.Chunks, last[agent])
			}
			last[agent] = sum.Chunks
		}
		reads++
	}
	fmt.Println(reads)
	return nil
}
