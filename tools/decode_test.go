package tools_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/tools"
)

// BenchmarkDecode measures reading a call's arguments: each call is
// stopped by its resolver, once the input is decoded.
//
//	go test -run '^$' -bench Decode ./tools/
func BenchmarkDecode(b *testing.B) {
	set := tools.NewResolved(func(context.Context) (hippo.MemoryService, error) {
		return nil, hippo.Errorf(hippo.EINVALID, "stop")
	}, tools.Options{})
	for _, c := range []struct{ name, tool, input string }{
		{"key", "recall_memory_block", `{"key":"persona"}`},
		{"recall", "recall_memories", `{"query":"where does the user live and work these days","limit":10,"kind":"fact","tags":["home","work"],"since":"2025-01-01","as_of":"2026-03-01","min_relevance":0.3,"alpha":0.5}`},
		{"store4k", "store_memory", `{"content":"` + strings.Repeat("lorem ipsum dolor sit amet ", 150) + `","metadata":{"tags":["a","b"],"category":"decision"},"source":"msg-1"}`},
	} {
		b.Run(c.name, func(b *testing.B) {
			input := json.RawMessage(c.input)
			b.ReportAllocs()
			for b.Loop() {
				res, err := set.Call(context.Background(), c.tool, input)
				if err != nil || res.Text != "stop" {
					b.Fatal(err, res)
				}
			}
		})
	}
}
