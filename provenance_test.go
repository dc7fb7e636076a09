package hippo_test

import (
	"testing"

	"github.com/hippo-mem/hippo"
)

func TestProvenanceStated(t *testing.T) {
	tests := []struct{ extractor, want string }{
		{"", ""},
		{hippo.ExtractorCaller, "given by the caller"},
		{hippo.ExtractorOffline, "extracted offline"},
		{hippo.ExtractorLLM, "extracted by an LLM"},
		{"rules_v2", "extracted by rules_v2"}, // a name an import brought
	}
	for _, tt := range tests {
		p := &hippo.Provenance{Origin: hippo.OriginRememberFacts, Extractor: tt.extractor}
		if got := p.Stated(); got != tt.want {
			t.Errorf("Stated() with extractor %q = %q, want %q", tt.extractor, got, tt.want)
		}
	}
}
