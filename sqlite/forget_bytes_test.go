package sqlite_test

import (
	"bytes"
	"context"
	crand "crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/sqlite"
	"github.com/hippo-mem/hippo/tools"
)

// The tests in this file prove that forgotten text is gone from the disk:
// after forget_memory, a delete, a purge, an edit or a block change, the
// bytes of the database file, its write-ahead log and its shared-memory
// index hold no trace of it, with the database still open (as a server
// keeps it). They grep the files, so they see every table at once: chunks,
// the full-text index, the change log, free pages.

// secretToken returns a unique lowercase token that no other text shares
// a prefix with ("zq" starts no English word), so that even an index that
// stores terms prefix-compressed holds it whole.
func secretToken() string {
	b := make([]byte, 8)
	crand.Read(b)
	return "zq" + hex.EncodeToString(b) + "7" // a final digit keeps stemmers off it
}

// leaks returns the needles found in the database file, its WAL and its
// shared-memory file, naming the file each is in. Matching ignores ASCII
// case: the full-text index stores tokens lower-cased.
func leaks(t testing.TB, path string, needles ...string) []string {
	t.Helper()
	var found []string
	for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
		data, err := os.ReadFile(path + suffix)
		if os.IsNotExist(err) {
			continue
		} else if err != nil {
			t.Fatal(err)
		}
		data = bytes.ToLower(data)
		for _, n := range needles {
			if i := bytes.Index(data, []byte(strings.ToLower(n))); i >= 0 {
				found = append(found, fmt.Sprintf("%q in %s at byte %d (page %d of 32 KiB)", n, "db"+suffix, i, i/32768))
			}
		}
	}
	return found
}

// fillerWords makes the unrelated text the secrets hide among.
var fillerWords = strings.Fields(`the user likes tea coffee on mondays meeting notes deploy
	kubernetes postgres billing service decided chose berlin paris garden cat dog
	birthday march project alpha beta release review budget travel train plane`)

func filler(r *rand.Rand, words int) string {
	var b strings.Builder
	for i := range words {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(fillerWords[r.IntN(len(fillerWords))])
	}
	fmt.Fprintf(&b, " #%d", r.Int64())
	return b.String()
}

// forgetEnv is a database full of filler for two agents, with the tools
// of agent "alice".
type forgetEnv struct {
	*env
	alice *sqlite.Memory
	tools tools.Set
	r     *rand.Rand
}

func newForgetEnv(t *testing.T, seed uint64) *forgetEnv {
	t.Helper()
	e := newEnv(t)
	f := &forgetEnv{env: e, alice: e.memory("alice"), r: rand.New(rand.NewPCG(seed, 1))}
	f.tools = tools.New(f.alice, tools.Options{Config: f.alice.Config()})
	bob := e.memory("bob")
	for i := range 40 {
		n := 3 + f.r.IntN(30)
		if i%25 == 0 {
			n = 6000 // past a 32 KiB page: overflow pages
		}
		m := f.alice
		if i%3 == 0 {
			m = bob
		}
		store(t, m, filler(f.r, n))
	}
	return f
}

// storeSecret stores a memory holding token (n words of filler around it,
// the token in the metadata too) and returns its chunk.
func (f *forgetEnv) storeSecret(token string, words int) *hippo.Chunk {
	f.t.Helper()
	text := filler(f.r, words/2) + " " + token + " " + filler(f.r, words/2)
	if words > 1000 {
		text = strings.Repeat(token+" ", words/5) + filler(f.r, words/8) // ~40,000 characters
	}
	meta, _ := json.Marshal(map[string]any{"source": "chat " + token, "tags": []string{token}})
	res, err := f.alice.StoreMemory(context.Background(), hippo.StoreInput{Content: text, Metadata: meta})
	if err != nil {
		f.t.Fatal(err)
	}
	// Recalled a few times: the row is rewritten by the retrieval boost,
	// leaving older versions of its page behind in the WAL.
	for range 2 {
		recallIDs(f.t, f.alice, text)
	}
	return res.Chunk
}

// churn writes and recalls unrelated filler, moving pages around.
func (f *forgetEnv) churn(n int) {
	f.t.Helper()
	for range n {
		store(f.t, f.alice, filler(f.r, 5+f.r.IntN(40)))
	}
	recallIDs(f.t, f.alice, filler(f.r, 4))
}

func (f *forgetEnv) call(name string, args map[string]any) *tools.Result {
	f.t.Helper()
	in, _ := json.Marshal(args)
	res, err := f.tools.Call(context.Background(), name, in)
	if err != nil || res.IsError {
		f.t.Fatalf("%s %s: %v %+v", name, in, err, res)
	}
	return res
}

func (f *forgetEnv) mustNotLeak(what string, tokens ...string) {
	f.t.Helper()
	if found := leaks(f.t, f.db.Path(), tokens...); len(found) > 0 {
		f.t.Errorf("after %s the forgotten text is still on disk: %s", what, strings.Join(found, "; "))
	}
}

// TestForgottenTextLeavesNoBytes forgets secrets every way Hippo offers
// and greps the files after each.
func TestForgottenTextLeavesNoBytes(t *testing.T) {
	ctx := context.Background()
	for seed := range uint64(envInt("HIPPO_FORGET_SEEDS", 1)) {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			t.Parallel()
			f := newForgetEnv(t, seed)

			// Sanity: a secret that is stored is found by the grep.
			kept := secretToken()
			f.storeSecret(kept, 12)
			if len(leaks(t, f.db.Path(), kept)) == 0 {
				t.Fatal("the grep does not see stored text: the test would prove nothing")
			}
			// ... and the full-text index holds its token, so the index is
			// among what the grep covers.
			if n := count(t, rawDB(t, f.db), `SELECT COUNT(*) FROM chunks_fts_data WHERE instr(block, CAST(? AS BLOB)) > 0`, kept); n == 0 {
				t.Fatal("the full-text index does not hold the stored token")
			}

			// forget_memory, short and long (overflow pages) secrets.
			for _, words := range []int{1, 12, 8000} {
				token := secretToken()
				c := f.storeSecret(token, words)
				f.churn(5)
				res := f.call("forget_memory", map[string]any{"description": c.Content, "threshold": 0.99})
				if !strings.Contains(res.Text, c.ID) {
					t.Fatalf("forget_memory did not delete %s: %s", c.ID, res.Text)
				}
				f.mustNotLeak(fmt.Sprintf("forget_memory of a %d-word secret", words), token)
			}

			// DeleteChunks: what `hippo delete --force` runs.
			token := secretToken()
			c := f.storeSecret(token, 20)
			f.churn(3)
			if _, _, err := f.db.DeleteChunks(ctx, "alice", []string{c.ID}); err != nil {
				t.Fatal(err)
			}
			f.mustNotLeak("DeleteChunks", token)

			// A deleted fact that had superseded another: the older one
			// comes back, the deleted text does not stay.
			old, newer := secretToken(), secretToken()
			vec := make([]float32, testDim)
			vec[0] = 1
			at := f.clock.Now()
			facts := []*hippo.Chunk{
				{ID: "F-OLD-" + old, Kind: hippo.KindFact, Content: "User lives in " + old, Embedding: vec,
					SupersededBy: "F-NEW-" + newer, SupersededAt: &at},
				{ID: "F-NEW-" + newer, Kind: hippo.KindFact, Content: "User lives in " + newer, Embedding: vec},
			}
			if err := f.db.InsertChunks(ctx, "alice", "", f.emb.Model(), facts); err != nil {
				t.Fatal(err)
			}
			f.churn(2)
			// PurgeSuperseded: what `hippo purge --force` runs. The ID
			// embeds the token: IDs stay in the change log, content must
			// not, so look for the content.
			purged, err := f.db.PurgeSuperseded(ctx, sqlite.PurgeFilter{AgentID: "alice"})
			if err != nil || len(purged) != 1 {
				t.Fatalf("purge = %v, %v", purged, err)
			}
			f.mustNotLeak("PurgeSuperseded", "lives in "+old)
			if _, _, err := f.db.DeleteChunks(ctx, "alice", []string{facts[1].ID}); err != nil {
				t.Fatal(err)
			}
			f.mustNotLeak("DeleteChunks of a fact", "lives in "+newer)

			// UpdateChunk: the old content of an edited chunk (without
			// metadata, which an edit keeps).
			token = secretToken()
			c = store(t, f.alice, filler(f.r, 10)+" "+token)
			f.churn(2)
			if _, err := f.alice.UpdateChunk(ctx, c.ID, "nothing to see here "+filler(f.r, 5)); err != nil {
				t.Fatal(err)
			}
			f.mustNotLeak("UpdateChunk", token)

			// Blocks: deleted, and a value replaced.
			token = secretToken()
			f.call("append_memory_block", map[string]any{"key": "human", "text": "PIN " + token})
			f.churn(2)
			f.call("delete_memory_block", map[string]any{"key": "human"})
			f.mustNotLeak("delete_memory_block", token)
			token = secretToken()
			f.call("append_memory_block", map[string]any{"key": "persona", "text": "Terse. Secret " + token + " ends."})
			f.churn(2)
			f.call("replace_memory_block", map[string]any{"key": "persona", "old_text": token, "new_text": "(removed)"})
			f.mustNotLeak("replace_memory_block", token)
			token = secretToken()
			if _, err := f.alice.SetBlock(ctx, "objectives", "Find "+token); err != nil {
				t.Fatal(err)
			}
			f.churn(2)
			if _, err := f.alice.SetBlock(ctx, "objectives", "Nothing secret."); err != nil {
				t.Fatal(err)
			}
			f.mustNotLeak("SetBlock over a value", token)

			// The kept secret and the filler are intact, and so is the file.
			if len(leaks(t, f.db.Path(), kept)) == 0 {
				t.Error("a secret that was not forgotten is gone")
			}
			checkIntegrity(t, f.db)
		})
	}
}

// TestForgetWithReaderOpen forgets while another connection holds a read
// snapshot, as another process reading the database would: the
// checkpoint waits for the reader, then leaves nothing behind.
func TestForgetWithReaderOpen(t *testing.T) {
	ctx := context.Background()
	f := newForgetEnv(t, 42)
	token := secretToken()
	c := f.storeSecret(token, 12)

	// Another connection reads, in a transaction that outlives the delete
	// by 300 ms.
	other := rawDB(t, f.db)
	tx, err := other.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := tx.QueryRow(`SELECT COUNT(*) FROM chunks`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	go func() {
		time.Sleep(300 * time.Millisecond)
		tx.Rollback()
	}()
	if _, _, err := f.db.DeleteChunks(ctx, "alice", []string{c.ID}); err != nil {
		t.Fatal(err)
	}
	f.mustNotLeak("a delete during another connection's read", token)
}

// checkIntegrity runs PRAGMA integrity_check on db's file.
func checkIntegrity(t testing.TB, db *sqlite.DB) {
	t.Helper()
	var res string
	if err := rawDB(t, db).QueryRow(`PRAGMA integrity_check`).Scan(&res); err != nil || res != "ok" {
		t.Errorf("integrity_check = %q, %v", res, err)
	}
}

// envInt reads a positive integer setting, def when unset: the full runs
// of the tests here take more rounds.
func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

// givenFacts extracts the facts it was given for a text.
type givenFacts map[string][]string

func (g givenFacts) ExtractFacts(_ context.Context, text string) ([]hippo.Fact, []hippo.LLMCall, error) {
	var out []hippo.Fact
	for _, c := range g[text] {
		out = append(out, hippo.Fact{Content: c, Intensity: 0.7})
	}
	return out, nil, nil
}

// TestForgottenSourceLeavesNoBytes: the text facts were extracted from is
// kept once as their input and once as a memory, however many facts it
// gave; forgetting one of its facts forgets the text too, which leaves no
// byte on disk, and the source given with it goes with the last fact.
func TestForgottenSourceLeavesNoBytes(t *testing.T) {
	ctx := context.Background()
	f := newForgetEnv(t, 7)
	inText, inSource := secretToken(), secretToken()
	text := "Over lunch I said " + inText + " twice: I live in Lisbon and I keep bees."
	facts := []string{"User lives in Lisbon " + filler(f.r, 3), "User keeps bees " + filler(f.r, 3)}
	m := f.memory("alice", func(o *sqlite.MemoryOptions) { o.Extractor = givenFacts{text: facts} })
	res, err := m.Remember(ctx, hippo.RememberInput{Text: text, Source: "chat://" + inSource})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Facts) != 2 || res.Facts[0].ChunkID == res.Facts[1].ChunkID {
		t.Fatalf("remember: %+v", res.Facts)
	}
	if n := count(t, rawDB(t, f.db), `SELECT COUNT(*) FROM chunk_inputs WHERE agent_id = 'alice'`); n != 1 {
		t.Fatalf("%d inputs kept for two facts of one text, want 1", n)
	}
	f.churn(3)
	if len(leaks(t, f.db.Path(), inText, inSource)) != 2 {
		t.Fatal("the grep does not see the stored input and source: the test would prove nothing")
	}
	forget := func(content string, deleted int) {
		t.Helper()
		r, err := m.Forget(ctx, hippo.ForgetInput{Description: content, Threshold: 0.99})
		if err != nil || len(r.Deleted) != deleted {
			t.Fatalf("forget %q = %+v, %v", content, r, err)
		}
	}
	forget(facts[0], 2) // the fact and the kept text, which said it too
	f.mustNotLeak("forgetting a fact of a kept text", inText)
	if len(leaks(t, f.db.Path(), inSource)) == 0 {
		t.Fatal("the source went while a fact still names it")
	}
	f.churn(2)
	forget(facts[1], 1)
	f.mustNotLeak("forgetting the last fact of a text", inText, inSource)
	if n := count(t, rawDB(t, f.db), `SELECT COUNT(*) FROM chunk_inputs`); n != 0 {
		t.Errorf("%d inputs left", n)
	}
	checkIntegrity(t, f.db)
}
