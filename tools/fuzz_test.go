package tools_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/local"
	"github.com/hippo-mem/hippo/sqlite"
	"github.com/hippo-mem/hippo/tools"
)

// FuzzToolInput feeds arbitrary bytes, as the raw JSON arguments of every
// tool, to the real tools over a real database on the offline defaults.
// Whatever the input, a call must neither panic nor fail inside Hippo: it
// succeeds, or it is an expected failure (invalid, not found, conflict)
// with a readable message. Input that is not a JSON object, or is over
// MaxInputBytes, must fail; every call must answer within 10 s. The seeds run with the unit tests; the corpus
// in testdata/fuzz/FuzzToolInput holds more.
func FuzzToolInput(f *testing.F) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(f.TempDir(), "fuzz.db"), sqlite.Options{NoSync: true})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { db.Close() })
	mem, err := db.Memory(sqlite.MemoryOptions{AgentID: "fuzz", Embedder: local.NewEmbedder(),
		Extractor: local.NewExtractor(), Classifier: local.NewClassifier()})
	if err != nil {
		f.Fatal(err)
	}
	set := tools.New(mem, tools.Options{Config: mem.Config()})
	res, err := set.Call(ctx, "store_memory", json.RawMessage(`{"content":"We chose SQLite over PostgreSQL"}`))
	if err != nil || res.IsError {
		f.Fatal(err, res)
	}

	for i, input := range []string{
		``, `null`, `{}`, `[]`, `"x"`, `1e999`, `{"content":"x"}{"content":"y"}`, `{"content":null}`,
		`{"content":"I live in Berlin."}`, `{"content":"x","metadata":{"tags":["a"],"category":"c"}}`,
		`{"content":"x","metadata":"not an object"}`, `{"content":"x","metadata":[1]}`,
		`{"text":"I love Svelte and I hate Redux."}`, `{"text":"\u0000"}`, `{"text":"\ud800"}`,
		`{"query":"which database?","limit":5,"offset":1,"kind":"memory","tags":["a"],"min_score":0.1}`,
		`{"query":"x","limit":-1}`, `{"query":"x","limit":1e300}`, `{"query":"x","offset":-5}`,
		`{"query":"x","limit":9223372036854775807}`, `{"query":"x","min_strength":"NaN"}`,
		`{"query":"x","since":"2026-13-45"}`, `{"query":"x","as_of":"1970-01-01T00:00:00Z"}`,
		`{"description":"SQLite","threshold":0.000001}`, `{"description":"x","threshold":-1}`,
		`{"key":"persona","text":"I am terse."}`, `{"key":"","text":"x"}`, `{"key":"k\u0007","text":"x"}`,
		`{"key":"persona","old_text":"terse","new_text":""}`, `{"key":"persona","old_text":"","new_text":"x"}`,
		`{"query":"x","max_chars":-1}`, `{"query":"x","max_tokens":99999999999}`,
		`{"id":"01ARZ3NDEKTSV4RRFFQ69G5FAV"}`, `{"upvotes":["' OR 1=1 --"],"downvotes":[""]}`,
		`{"upvotes":[]}`, `{"agent_id":"someone-else","content":"x"}`, `{"content":"x","content":"y"}`,
		`{"query":"x",}`, `{"query" "x"}`, `{"query":"x"} x`, `{"q\u0075ery":"x"}`, `{"query":"x","tags":["a",]}`, `{"limit":05}`,
		`{"CONTENT":"x"}`, `{"content":"` + strings.Repeat("a", 60_000) + `"}`,
		"{\"content\":\"\xff\xfe\"}", `{"query":"\"unbalanced AND OR NEAR( * ^"}`,
	} {
		f.Add(uint8(i), []byte(input))
	}
	f.Fuzz(func(t *testing.T, which uint8, input []byte) {
		tool := set[int(which)%len(set)]
		// A call that runs away is a failure too: crash with the stacks.
		watchdog := time.AfterFunc(10*time.Second, func() {
			buf := make([]byte, 1<<20)
			panic(fmt.Sprintf("%s %q: no answer after 10 s\n%s", tool.Name, input, buf[:runtime.Stack(buf, true)]))
		})
		defer watchdog.Stop()
		res, err := tool.Handler(ctx, input)
		if err != nil {
			t.Fatalf("%s %q: internal error: %v", tool.Name, input, err)
		}
		if res == nil {
			t.Fatalf("%s %q: nil result", tool.Name, input)
		}
		if _, err := json.Marshal(res.Details); err != nil {
			t.Fatalf("%s %q: details do not marshal: %v", tool.Name, input, err)
		}
		if !utf8.ValidString(res.Text) || strings.TrimSpace(res.Text) == "" {
			t.Fatalf("%s %q: unreadable text %q", tool.Name, input, res.Text)
		}
		if res.IsError {
			d, ok := res.Details.(tools.ErrorDetails)
			if !ok || d.Message == "" {
				t.Fatalf("%s %q: error result with details %#v", tool.Name, input, res.Details)
			}
			switch d.Error {
			case hippo.EINVALID, hippo.ENOTFOUND, hippo.ECONFLICT:
			default:
				t.Fatalf("%s %q: error code %q", tool.Name, input, d.Error)
			}
			return
		}
		if len(input) > tools.MaxInputBytes {
			t.Fatalf("%s: %d bytes of input accepted", tool.Name, len(input))
		}
		data := bytes.TrimSpace(input)
		if len(data) > 0 && string(data) != "null" {
			var obj map[string]json.RawMessage
			if json.Unmarshal(data, &obj) != nil || obj == nil {
				t.Fatalf("%s %q: input that is not a JSON object accepted", tool.Name, input)
			}
		}
	})
}
