package tools_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hippo-mem/hippo"
)

// TestStoreMemories: a batch stores each item as store_memory does, a
// repeat once; an invalid item (empty content, metadata that is not an
// object, an intensity out of range) fails alone, named by its index, and
// the rest are stored.
func TestStoreMemories(t *testing.T) {
	e := newEnv(t, false)
	e.ok("store_memory", `{"content":"We deploy on Fridays"}`)
	res, d := e.ok("store_memories", `{"items":[
		{"content":"The user's cat is called Miso","metadata":{"tags":["pets"]},"source":"msg-1"},
		{"content":"We deploy on Fridays"},
		{"content":"  "},
		{"content":"The user's cat is called Miso","intensity":0.9},
		{"content":"Lunch is at noon","metadata":"[1,2]"},
		{"content":"The office is in Lisbon","metadata":"{\"tags\":[\"work\"]}"},
		{"content":"Too strong","intensity":2}
	]}`)
	wantText(t, res, "Stored 2 new memories, strengthened 2 memories already known; 3 failed: items[2].content: must not be empty; items[4].metadata:", "items[6]")
	if d["stored"] != 2.0 || d["strengthened"] != 2.0 || d["failed"] != 3.0 {
		t.Errorf("counts: %v", d)
	}
	items := d["items"].([]any)
	if len(items) != 7 {
		t.Fatalf("%d items in the details, want 7", len(items))
	}
	for i, want := range []string{"new", "duplicate", "error", "duplicate", "error", "new", "error"} {
		it := items[i].(map[string]any)
		got := "new"
		switch {
		case it["error"] != nil:
			got = "error"
			if !strings.HasPrefix(it["error"].(string), fmt.Sprintf("items[%d]", i)) || it["id"] != nil {
				t.Errorf("item %d: %v", i, it)
			}
		case it["duplicate"] == true:
			got = "duplicate"
		}
		if got != want || it["index"] != float64(i) || (got != "error" && it["id"] == nil) {
			t.Errorf("item %d: %v, want %s", i, it, want)
		}
	}
	if items[0].(map[string]any)["id"] != items[3].(map[string]any)["id"] {
		t.Errorf("the repeat within the call is another memory: %v, %v", items[0], items[3])
	}
	got, _ := e.ok("recall_memories", `{"query":"what is the cat's name","limit":1}`)
	wantText(t, got, "Miso")

	// Refused whole: no items, too many, not a list.
	for _, input := range []string{`{"items":[]}`, `{"items":[` + strings.Repeat(`{"content":"x"},`, 1000) + `{"content":"x"}]}`,
		`{"items":{"content":"x"}}`, `{}`} {
		res, d := e.call("store_memories", input)
		if !res.IsError || d["error"] != hippo.EINVALID || !strings.Contains(res.Text, "items") {
			t.Errorf("%.60s: %s, want %s naming items", input, res.Text, hippo.EINVALID)
		}
	}
}
