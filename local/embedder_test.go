package local

import (
	"context"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
)

func TestWords(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{"I'm a backend person", []string{"i", "am", "a", "backend", "person"}},
		{"I don't do frontend", []string{"i", "do", "not", "do", "frontend"}},
		{"Can't, won't, ain't", []string{"can", "not", "will", "not", "is", "not"}},
		{"they're, we've, you'll, I'd", []string{"they", "are", "we", "have", "you", "will", "i", "would"}},
		{"User’s wife’s name", []string{"user", "wife", "name"}},
		{"the users' cars", []string{"the", "users", "cars"}},
		{"Tried that new CAFÉ on Sukhumvit!", []string{"tried", "that", "new", "cafe", "on", "sukhumvit"}},
		{"3.5 kg, 12,000 euros; 10am", []string{"3.5", "kg", "12,000", "euros", "10am"}},
		{"state-of-the-art rock'n'roll", []string{"state-of-the-art", "rock'n'roll"}},
		{"end. Start", []string{"end", "start"}},
		{"!!! ... ???", nil},
	}
	for _, tt := range tests {
		if got := words(tt.text); !slices.Equal(got, tt.want) {
			t.Errorf("words(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

func TestEmbedUnitVectors(t *testing.T) {
	texts := []string{
		"User never wants to use Redux again",
		"", " ", "zxqv", "12345", "!!!", "🙂", "a", "I", "the", "Привет, мир",
		"kubernetes golang typescript", strings.Repeat("memory ", 5000),
	}
	vecs, err := NewEmbedder().Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if len(vecs) != len(texts) {
		t.Fatalf("got %d vectors for %d texts", len(vecs), len(texts))
	}
	for i, v := range vecs {
		if len(v) != Dimension {
			t.Errorf("%q: length %d, want %d", texts[i], len(v), Dimension)
		}
		var sq float64
		for _, x := range v {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				t.Fatalf("%q: non-finite component", texts[i])
			}
			sq += float64(x) * float64(x)
		}
		if math.Abs(sq-1) > 1e-4 {
			t.Errorf("%q: squared norm %v, want 1", texts[i], sq)
		}
	}
}

func TestEmbedDeterministicAndBatchIndependent(t *testing.T) {
	e := NewEmbedder()
	ctx := context.Background()
	texts := []string{"User lives in Berlin", "zxqv 12345", "!!!"}
	batch, err := e.Embed(ctx, texts)
	if err != nil {
		t.Fatal(err)
	}
	for i, text := range texts {
		one, err := e.Embed(ctx, []string{text})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(one[0], batch[i]) {
			t.Errorf("%q embeds differently alone and in a batch", text)
		}
	}
	// Appending to one vector must not overwrite the next.
	_ = append(batch[0], 42)
	if again, _ := e.Embed(ctx, texts[1:2]); !slices.Equal(again[0], batch[1]) {
		t.Error("appending to a returned vector changed its neighbour")
	}
}

func TestEmbedSimilarity(t *testing.T) {
	tests := []struct {
		a, near, far string
	}{
		{"User lives in Berlin", "User's home is in Berlin", "User likes pizza"},
		{"User lives in Berlin", "User lives in Bangkok", "User prefers tabs over spaces"},
		{"I'm a backend person", "User is a backend developer", "User's wife is called Ana"},
		{"User hates Redux", "REDUX IS A NIGHTMARE", "User tried a new café"},
		{"User is 34 years old", "User is 35 years old", "User has a dog"},
		{"User uses kubernetes", "User's team runs kubernetes clusters", "User drinks green tea"},
	}
	e := NewEmbedder()
	for _, tt := range tests {
		v, err := e.Embed(context.Background(), []string{tt.a, tt.near, tt.far})
		if err != nil {
			t.Fatal(err)
		}
		near, far := cosine(v[0], v[1]), cosine(v[0], v[2])
		if near <= far {
			t.Errorf("%q: %q at %.2f is not closer than %q at %.2f", tt.a, tt.near, near, tt.far, far)
		}
	}
}

// TestUpdatesInBand checks that updates in the manner of seed 000 reach
// the classifier: neither auto-new nor auto-duplicate.
func TestUpdatesInBand(t *testing.T) {
	tests := [][2]string{
		{"User lives in Berlin", "User moved to Bangkok"},
		{"User lives in Berlin", "User lives in Bangkok"},
		{"User works at Google", "User now works at Stripe"},
		{"User is 34 years old", "User is 35 years old"},
		{"User has two kids", "User has three kids"},
		{"User likes Redux", "User hates Redux"},
	}
	e := NewEmbedder()
	dup, new, _ := e.Thresholds()
	for _, tt := range tests {
		v, err := e.Embed(context.Background(), tt[:])
		if err != nil {
			t.Fatal(err)
		}
		if s := cosine(v[0], v[1]); s < new || s > dup {
			t.Errorf("%q → %q: similarity %.3f outside the band %.2f–%.2f", tt[0], tt[1], s, new, dup)
		}
	}
}

// TestSeedScenario runs issue 4's example at the vector level: the facts
// of seed 000's text are recalled by their topics and "Redux" forgets the
// Redux fact alone.
func TestSeedScenario(t *testing.T) {
	ctx := context.Background()
	facts, _, err := NewExtractor().ExtractFacts(ctx,
		"I NEVER want to use Redux again, it was a nightmare. Oh and I tried that new café on Sukhumvit.")
	if err != nil || len(facts) != 2 {
		t.Fatalf("extract: %v, %+v", err, facts)
	}
	e := NewEmbedder()
	stored, err := e.Embed(ctx, []string{facts[0].Content, facts[1].Content})
	if err != nil {
		t.Fatal(err)
	}
	redux, cafe := stored[0], stored[1]
	queries := []struct {
		query string
		want  []float32
	}{
		{"coffee shop in Bangkok", cafe},
		{"what does the user think of Redux", redux},
	}
	for _, q := range queries {
		v, _ := e.Embed(ctx, []string{q.query})
		other := redux
		if slices.Equal(q.want, redux) {
			other = cafe
		}
		if cosine(v[0], q.want) <= cosine(v[0], other) {
			t.Errorf("%q does not recall the right fact first: %.2f vs %.2f", q.query, cosine(v[0], q.want), cosine(v[0], other))
		}
	}
	_, _, forget := e.Thresholds()
	v, _ := e.Embed(ctx, []string{"Redux"})
	if s := cosine(v[0], redux); s < forget {
		t.Errorf("forget \"Redux\": Redux fact at %.2f, below the threshold %.2f", s, forget)
	}
	if s := cosine(v[0], cafe); s >= forget {
		t.Errorf("forget \"Redux\": café fact at %.2f, above the threshold %.2f", s, forget)
	}
}

func TestEmbedderDescription(t *testing.T) {
	e := NewEmbedder()
	if e.Model() != "hippo-glove-sif-100d-v1" || e.Dimension() != 100 {
		t.Errorf("Model %q, Dimension %d", e.Model(), e.Dimension())
	}
	dup, new, forget := e.Thresholds()
	if !(0 < new && new < dup && dup < 1 && 0 < forget && forget < 1) {
		t.Errorf("thresholds duplicate %v, new %v, forget %v out of order", dup, new, forget)
	}
}

func TestEmbedCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := NewEmbedder().Embed(ctx, []string{"x"}); err == nil {
		t.Error("Embed with a canceled context succeeded")
	}
}

func TestEmbedConcurrent(t *testing.T) {
	var wg sync.WaitGroup
	want, _ := NewEmbedder().Embed(context.Background(), []string{"User lives in Berlin"})
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, err := NewEmbedder().Embed(context.Background(), []string{"User lives in Berlin"})
			if err != nil || !slices.Equal(got[0], want[0]) {
				t.Error("concurrent Embed differs")
			}
		}()
	}
	wg.Wait()
}

func TestArtifact(t *testing.T) {
	if n := len(gloveBin); n > 12_000_000 {
		t.Errorf("glove.bin is %d bytes, want ≤ 12 MB", n)
	}
	v, err := loadVocab()
	if err != nil {
		t.Fatal(err)
	}
	if v.dim != Dimension || len(v.index) != 100_000 {
		t.Errorf("glove.bin: %d dims, %d words; want %d, 100000", v.dim, len(v.index), Dimension)
	}
	// Most frequent first: "the" leads.
	if i := v.lookup([]byte("the")); i != 0 {
		t.Errorf(`"the" at rank %d, want 0`, i)
	}
	for _, bad := range []string{"", "HGLOVE01", gloveBin[:len(gloveBin)/2], "XXXXXXXX" + gloveBin[8:]} {
		if _, err := parseVocab(bad); err == nil {
			t.Errorf("parseVocab of %d corrupt bytes succeeded", len(bad))
		}
	}
}

// BenchmarkEmbedSentence is the cost of embedding one fact-sized sentence.
func BenchmarkEmbedSentence(b *testing.B) {
	e := NewEmbedder()
	ctx := context.Background()
	texts := []string{"User never wants to use Redux again, it was a nightmare"}
	if _, err := e.Embed(ctx, texts); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		e.Embed(ctx, texts)
	}
}

// BenchmarkEmbedSentenceOOV embeds a sentence of words outside the
// vocabulary, the slow path of hashed n-grams.
func BenchmarkEmbedSentenceOOV(b *testing.B) {
	e := NewEmbedder()
	ctx := context.Background()
	texts := []string{"User deploys kubernetes operators with golang and terraform 1.9"}
	if _, err := e.Embed(ctx, texts); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		e.Embed(ctx, texts)
	}
}

// BenchmarkLoad is the one-time cost of parsing the embedded vectors.
func BenchmarkLoad(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := parseVocab(gloveBin); err != nil {
			b.Fatal(err)
		}
	}
}
