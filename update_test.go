package hippo_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/hippo-mem/hippo"
)

func TestParseReinforcement(t *testing.T) {
	for in, want := range map[string]hippo.Reinforcement{"": hippo.ReinforceUp, "up": hippo.ReinforceUp,
		"down": hippo.ReinforceDown, "none": hippo.ReinforceNone, "upvote": "", "UP": ""} {
		got, err := hippo.ParseReinforcement(in)
		if got != want || (want == "") != (hippo.ErrorCode(err) == hippo.EINVALID) {
			t.Errorf("ParseReinforcement(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

func TestEditMetadata(t *testing.T) {
	at := time.Date(2025, 5, 1, 10, 0, 0, 0, time.UTC)
	v1 := &hippo.MemoryVersion{Content: "first", Until: at}
	tests := []struct {
		name string
		meta string
		set  map[string]any
		prev *hippo.MemoryVersion
		want string
	}{
		{"set on none", ``, map[string]any{"tags": []string{"a"}}, nil, `{"tags":["a"]}`},
		{"replace and keep others", `{"source":"x","tags":["a"]}`, map[string]any{"tags": []string{"b", "c"}, "category": "d"}, nil,
			`{"category":"d","source":"x","tags":["b","c"]}`},
		{"remove", `{"category":"d","tags":["a"]}`, map[string]any{"category": nil, "tags": nil}, nil, ``},
		{"null metadata", `null`, map[string]any{"context": []string{"s"}}, nil, `{"context":["s"]}`},
		{"first version", `{"source":"x"}`, nil, v1, `{"history":[{"content":"first","until":"2025-05-01T10:00:00Z"}],"source":"x"}`},
		{"second version", `{"history":[{"content":"first","until":"2025-05-01T10:00:00Z"}]}`, nil,
			&hippo.MemoryVersion{Content: "second", Until: at.Add(time.Hour)},
			`{"history":[{"content":"first","until":"2025-05-01T10:00:00Z"},{"content":"second","until":"2025-05-01T11:00:00Z"}]}`},
		{"foreign history replaced", `{"history":"mine"}`, nil, v1, `{"history":[{"content":"first","until":"2025-05-01T10:00:00Z"}]}`},
	}
	for _, tt := range tests {
		got, err := hippo.EditMetadata(json.RawMessage(tt.meta), tt.set, tt.prev)
		if err != nil || got != tt.want {
			t.Errorf("%s: EditMetadata = %s, %v; want %s", tt.name, got, err, tt.want)
		}
	}
	if _, err := hippo.EditMetadata(json.RawMessage(`[1]`), map[string]any{"tags": nil}, nil); hippo.ErrorCode(err) != hippo.EINVALID {
		t.Errorf("metadata not an object: %v", err)
	}
	big := strings.Repeat("x", hippo.MaxMetadataBytes)
	if _, err := hippo.EditMetadata(nil, map[string]any{"category": big}, nil); hippo.ErrorCode(err) != hippo.EINVALID {
		t.Errorf("metadata too large: %v", err)
	}
}

// TestMemoryVersionsBound keeps the last MaxMemoryVersions versions, and
// drops the oldest ones that do not fit in MaxMetadataBytes.
func TestMemoryVersionsBound(t *testing.T) {
	at := time.Date(2025, 5, 1, 10, 0, 0, 0, time.UTC)
	var meta json.RawMessage
	for i := range 15 {
		s, err := hippo.EditMetadata(meta, nil, &hippo.MemoryVersion{Content: strings.Repeat("v", i+1), Until: at.Add(time.Duration(i) * time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		meta = json.RawMessage(s)
	}
	vs := hippo.MemoryVersions(meta)
	if len(vs) != hippo.MaxMemoryVersions || len(vs[0].Content) != 6 || len(vs[len(vs)-1].Content) != 15 {
		t.Fatalf("versions kept: %d, first %q, last %q", len(vs), vs[0].Content, vs[len(vs)-1].Content)
	}
	long := strings.Repeat("y", hippo.MaxMetadataBytes/3)
	meta = nil
	for i := range 4 {
		s, err := hippo.EditMetadata(meta, map[string]any{"source": "notes"}, &hippo.MemoryVersion{Content: long, Until: at.Add(time.Duration(i) * time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		if len(s) > hippo.MaxMetadataBytes {
			t.Fatalf("metadata of %d bytes", len(s))
		}
		meta = json.RawMessage(s)
	}
	if vs := hippo.MemoryVersions(meta); len(vs) != 2 || !vs[1].Until.Equal(at.Add(3*time.Hour)) {
		t.Errorf("long versions kept: %d, want the last 2", len(vs))
	}
	// A version too long to keep at all leaves none.
	s, err := hippo.EditMetadata(nil, nil, &hippo.MemoryVersion{Content: strings.Repeat("z", hippo.MaxMetadataBytes), Until: at})
	if err != nil || s != "" {
		t.Errorf("a version too long: %q, %v", s, err)
	}
}
