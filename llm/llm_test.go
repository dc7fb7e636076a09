package llm

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/hippo-mem/hippo"
)

// fakeLLM records every call and answers with reply, or err.
type fakeLLM struct {
	reply string
	err   error
	usage *hippo.LLMCall // reported by every call

	mu    sync.Mutex
	calls []fakeCall
}

type fakeCall struct {
	system   string
	messages []hippo.Message
}

func (f *fakeLLM) Complete(ctx context.Context, system string, messages []hippo.Message) (string, *hippo.LLMCall, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, fakeCall{system: system, messages: messages})
	if f.err != nil {
		return "", nil, f.err
	}
	return f.reply, f.usage, nil
}

// TestLLMCallsReported: the extractor and the classifier return the usage
// their call reported, marked with what it was for; none when the LLM
// reported none.
func TestLLMCallsReported(t *testing.T) {
	ctx := context.Background()
	usage := &hippo.LLMCall{Model: "m", PromptTokens: 12, CompletionTokens: 3}
	_, calls, err := NewExtractor(&fakeLLM{reply: `[{"fact":"User likes Go","intensity":0.5}]`, usage: usage}).ExtractFacts(ctx, "I like Go")
	if want := (hippo.LLMCall{Purpose: "extract", Model: "m", PromptTokens: 12, CompletionTokens: 3}); err != nil || len(calls) != 1 || calls[0] != want {
		t.Errorf("extract: calls %+v, %v; want [%+v]", calls, err, want)
	}
	_, calls, err = NewClassifier(&fakeLLM{reply: `["DISTINCT"]`, usage: usage}).ClassifyFacts(ctx, []hippo.FactPair{{New: "a", Existing: "b"}})
	if want := (hippo.LLMCall{Purpose: "classify", Model: "m", PromptTokens: 12, CompletionTokens: 3}); err != nil || len(calls) != 1 || calls[0] != want {
		t.Errorf("classify: calls %+v, %v; want [%+v]", calls, err, want)
	}
	if _, calls, err := NewExtractor(&fakeLLM{reply: `[]`}).ExtractFacts(ctx, "I like Go"); err != nil || calls != nil {
		t.Errorf("no usage reported: calls %+v, %v; want none", calls, err)
	}
}

// fact is a hippo.Fact literal for tables.
func fact(content string, intensity float64) hippo.Fact {
	return hippo.Fact{Content: content, Intensity: intensity}
}

func TestExtractFactsSeedExample(t *testing.T) {
	const text = "I NEVER want to use Redux again, it was a nightmare. Oh and I tried that new café on Sukhumvit."
	client := &fakeLLM{reply: `[{"fact":"User strongly dislikes Redux","intensity":0.85},{"fact":"User tried a café on Sukhumvit","intensity":0.15}]`}
	facts, _, err := NewExtractor(client).ExtractFacts(context.Background(), text)
	if err != nil {
		t.Fatal(err)
	}
	want := []hippo.Fact{
		{Content: "User strongly dislikes Redux", Intensity: 0.85},
		{Content: "User tried a café on Sukhumvit", Intensity: 0.15},
	}
	if !reflect.DeepEqual(facts, want) {
		t.Errorf("facts = %+v, want %+v", facts, want)
	}
	if len(client.calls) != 1 {
		t.Fatalf("calls = %d, want 1", len(client.calls))
	}
	call := client.calls[0]
	if len(call.messages) != 1 || call.messages[0].Role != "user" || call.messages[0].Content != text {
		t.Errorf("messages = %+v, want one user message holding the text", call.messages)
	}
	for _, s := range []string{
		// Calibration bands.
		"0.1–0.2", "0.3–0.5", "0.6–0.8", "0.85–1.0",
		"Casual aside", "mild opinion", "Strong conviction", "identity-level",
		// Intensity signals.
		"Emotional charge", "Consequence language", "Absolute language",
		"Time/effort investment", "Identity statements", "Explicit importance",
		"Repetition/elaboration", "Contradiction of prior position",
		// Form of the facts and of the reply.
		"third-person", "One fact per item", "No inferences",
		`{"facts":[{"fact":"...","intensity":0.0}]}`, "At most 50 facts",
	} {
		if !strings.Contains(call.system, s) {
			t.Errorf("system prompt lacks %q", s)
		}
	}
	if strings.Contains(call.system, "{{") || strings.Contains(call.system, "<no value>") {
		t.Error("system prompt holds template residue")
	}
}

func TestExtractFactsErrors(t *testing.T) {
	boom := errors.New("boom")
	tests := []struct {
		name     string
		client   *fakeLLM
		text     string
		wantCode string
		wantIs   error
		wantMsg  string
		calls    int
	}{
		{name: "llm error", client: &fakeLLM{err: boom}, text: "I love Go", wantCode: hippo.EINTERNAL, wantIs: boom, wantMsg: "extraction failed", calls: 1},
		{name: "unparseable reply", client: &fakeLLM{reply: "Sorry, I cannot help with that."}, text: "I love Go", wantCode: hippo.EINTERNAL, wantMsg: "could not be parsed", calls: 1},
		{name: "blank text", client: &fakeLLM{err: boom}, text: " \n\t", calls: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			facts, _, err := NewExtractor(tt.client).ExtractFacts(context.Background(), tt.text)
			if got := hippo.ErrorCode(err); got != tt.wantCode {
				t.Errorf("code = %q, want %q (err %v)", got, tt.wantCode, err)
			}
			if tt.wantIs != nil && !errors.Is(err, tt.wantIs) {
				t.Errorf("err = %v, does not wrap %v", err, tt.wantIs)
			}
			if err != nil && !strings.Contains(err.Error(), tt.wantMsg) {
				t.Errorf("err = %q, want it to mention %q", err, tt.wantMsg)
			}
			if err == nil && facts == nil {
				t.Error("facts = nil, want an empty slice")
			}
			if len(tt.client.calls) != tt.calls {
				t.Errorf("calls = %d, want %d", len(tt.client.calls), tt.calls)
			}
		})
	}
}

func TestParseFacts(t *testing.T) {
	tests := []struct {
		name    string
		reply   string
		want    []hippo.Fact
		wantErr bool
	}{
		{
			name:  "bare array",
			reply: `[{"fact":"User likes Go","intensity":0.4}]`,
			want:  []hippo.Fact{fact("User likes Go", 0.4)},
		},
		{
			name:  "facts wrapper",
			reply: `{"facts":[{"fact":"User likes Go","intensity":0.4},{"fact":"User lives in Berlin","intensity":0.3}]}`,
			want:  []hippo.Fact{fact("User likes Go", 0.4), fact("User lives in Berlin", 0.3)},
		},
		{
			name:  "code fence",
			reply: "```json\n{\"facts\":[{\"fact\":\"User likes Go\",\"intensity\":0.4}]}\n```",
			want:  []hippo.Fact{fact("User likes Go", 0.4)},
		},
		{
			name:  "a former state named",
			reply: `{"facts":[{"fact":"User lives in Berlin","intensity":0.6,"replaces":" User lives in Paris "},{"fact":"User likes Go","intensity":0.4,"replaces":7}]}`,
			want:  []hippo.Fact{{Content: "User lives in Berlin", Intensity: 0.6, Replaces: "User lives in Paris"}, fact("User likes Go", 0.4)},
		},
		{
			name:  "bare code fence",
			reply: "```\n[{\"fact\":\"User likes Go\",\"intensity\":0.4}]\n```\n",
			want:  []hippo.Fact{fact("User likes Go", 0.4)},
		},
		{
			name:  "array in prose",
			reply: "Here are the facts I found:\n[{\"fact\":\"User likes Go\",\"intensity\":0.4}]\nLet me know if you need more.",
			want:  []hippo.Fact{fact("User likes Go", 0.4)},
		},
		{
			name:  "object in prose after bracketed prose",
			reply: `Sure [see below], here {you go}: {"facts":[{"fact":"User likes Go","intensity":0.4}]} Done.`,
			want:  []hippo.Fact{fact("User likes Go", 0.4)},
		},
		{
			name:  "brackets and quotes inside strings",
			reply: `Result: [{"fact":"User writes \"[x]\" and {y} in notes ]}","intensity":0.2}] trailing ] }`,
			want:  []hippo.Fact{fact(`User writes "[x]" and {y} in notes ]}`, 0.2)},
		},
		{
			name:  "prose numbers in brackets before the reply",
			reply: "I found [2] facts:\n[{\"fact\":\"User likes Go\",\"intensity\":0.4}]",
			want:  []hippo.Fact{fact("User likes Go", 0.4)},
		},
		{
			name:  "nested under another key",
			reply: `{"result":{"extracted":[{"fact":"User likes Go","intensity":0.4}]}}`,
			want:  []hippo.Fact{fact("User likes Go", 0.4)},
		},
		{
			name:  "items key",
			reply: `{"items":[{"fact":"User likes Go","intensity":0.4}]}`,
			want:  []hippo.Fact{fact("User likes Go", 0.4)},
		},
		{
			name:  "single fact object",
			reply: `{"fact":"User likes Go","intensity":0.4}`,
			want:  []hippo.Fact{fact("User likes Go", 0.4)},
		},
		{
			name: "alternative key names",
			reply: `[{"content":"User likes Go","importance":0.4},
				{"text":"User lives in Berlin","strength":0.3},
				{"statement":"User has a dog","intensity":0.2}]`,
			want: []hippo.Fact{fact("User likes Go", 0.4), fact("User lives in Berlin", 0.3), fact("User has a dog", 0.2)},
		},
		{
			name:  "keys in another case",
			reply: `{"Facts":[{"Fact":"User likes Go","Intensity":0.4}]}`,
			want:  []hippo.Fact{fact("User likes Go", 0.4)},
		},
		{
			name:  "intensity as string",
			reply: `[{"fact":"User likes Go","intensity":"0.7"},{"fact":"User likes Rust","intensity":" 0.25 "},{"fact":"User likes Zig","intensity":"85%"}]`,
			want:  []hippo.Fact{fact("User likes Go", 0.7), fact("User likes Rust", 0.25), fact("User likes Zig", 0.85)},
		},
		{
			name: "clamping and defaults",
			reply: `[{"fact":"A","intensity":1.7},{"fact":"B","intensity":-0.2},{"fact":"C"},
				{"fact":"D","intensity":"NaN"},{"fact":"E","intensity":"high"},{"fact":"F","intensity":null},
				{"fact":"G","intensity":"Inf"},{"fact":"H","intensity":0},{"fact":"I","intensity":1}]`,
			want: []hippo.Fact{fact("A", 1), fact("B", 0), fact("C", 0.5), fact("D", 0.5), fact("E", 0.5), fact("F", 0.5), fact("G", 1), fact("H", 0), fact("I", 1)},
		},
		{
			name: "malformed entries dropped",
			reply: `[{"fact":"User likes Go","intensity":0.4},{"intensity":0.9},{"fact":"","intensity":0.9},
				{"fact":"   ","intensity":0.9},{"fact":42},{"fact":["x"]},{"fact":null},"User likes Rust",7,null,[],
				{"fact":"User lives in Berlin","intensity":0.3}]`,
			want: []hippo.Fact{fact("User likes Go", 0.4), fact("User lives in Berlin", 0.3)},
		},
		{
			name:  "whitespace trimmed",
			reply: `[{"fact":"  User likes Go \n","intensity":0.4}]`,
			want:  []hippo.Fact{fact("User likes Go", 0.4)},
		},
		{
			name:  "duplicates dropped case-insensitively, first kept",
			reply: `[{"fact":"User likes Go","intensity":0.4},{"fact":"user likes go","intensity":0.9},{"fact":" USER LIKES GO ","intensity":0.1}]`,
			want:  []hippo.Fact{fact("User likes Go", 0.4)},
		},
		{name: "empty facts", reply: `{"facts":[]}`, want: []hippo.Fact{}},
		{name: "empty array", reply: `[]`, want: []hippo.Fact{}},
		{name: "null facts", reply: `{"facts":null}`, want: []hippo.Fact{}},
		{name: "json without facts", reply: `{"note":"nothing to extract"}`, want: []hippo.Fact{}},
		{name: "only malformed entries", reply: `[{"intensity":0.5}]`, want: []hippo.Fact{}},
		{name: "no json", reply: "There are no facts in this text.", wantErr: true},
		{name: "empty reply", reply: "", wantErr: true},
		// Cut off at max_tokens: the entries before the cut are not
		// taken for the whole reply.
		{name: "truncated array", reply: `[{"fact":"User likes Go","intensity":0.4},{"fact":"User li`, wantErr: true},
		{name: "truncated object", reply: "```json\n" + `{"facts":[{"fact":"User likes Go","intensity":0.4},{"fact":"User likes Rust","inten`, wantErr: true},
		{name: "unbalanced json", reply: `[{"fact":"User likes Go","intensity":0.4`, wantErr: true},
		{
			name:  "an unclosed bracket after the facts",
			reply: `[{"fact":"User likes Go","intensity":0.4}] and {`,
			want:  []hippo.Fact{fact("User likes Go", 0.4)},
		},
		{name: "broken brackets only", reply: `[oops] {nope}`, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseFacts(tt.reply)
			if tt.wantErr {
				if err == nil {
					t.Fatalf("parseFacts = %+v, want an error", got)
				}
				if code := hippo.ErrorCode(err); code != hippo.EINTERNAL {
					t.Errorf("code = %q, want %q", code, hippo.EINTERNAL)
				}
				if !strings.Contains(err.Error(), "extraction reply could not be parsed") || !errors.Is(err, hippo.ErrUnreadableReply) {
					t.Errorf("err = %q, want it to wrap hippo.ErrUnreadableReply", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("parseFacts =\n  %+v\nwant\n  %+v", got, tt.want)
			}
		})
	}
}

func TestParseFactsCap(t *testing.T) {
	var b strings.Builder
	b.WriteString("[")
	for i := range maxFacts + 10 {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"fact":"User fact %d","intensity":0.5}`, i)
	}
	b.WriteString("]")
	got, err := parseFacts(b.String())
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != maxFacts {
		t.Fatalf("len = %d, want %d", len(got), maxFacts)
	}
	if got[maxFacts-1].Content != fmt.Sprintf("User fact %d", maxFacts-1) {
		t.Errorf("last fact = %q, want the first %d kept", got[maxFacts-1].Content, maxFacts)
	}
}

func TestClassifyFacts(t *testing.T) {
	pairs := []hippo.FactPair{
		{New: "User lives in Bangkok", Existing: "User lives in Berlin"},
		{New: "User hates using Redux", Existing: "User strongly dislikes Redux"},
		{New: "User likes Rust", Existing: "User likes\nGo"},
	}
	client := &fakeLLM{reply: `{"verdicts":[{"pair":1,"verdict":"SUPERSEDES"},{"pair":2,"verdict":"DUPLICATE"},{"pair":3,"verdict":"DISTINCT"}]}`}
	got, _, err := NewClassifier(client).ClassifyFacts(context.Background(), pairs)
	if err != nil {
		t.Fatal(err)
	}
	want := []hippo.Verdict{hippo.Supersedes, hippo.Duplicate, hippo.Distinct}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("verdicts = %v, want %v", got, want)
	}
	if len(client.calls) != 1 {
		t.Fatalf("calls = %d, want 1 for %d pairs", len(client.calls), len(pairs))
	}
	call := client.calls[0]
	for _, s := range []string{"DUPLICATE", "SUPERSEDES", "DISTINCT", "User lives in Berlin", "User lives in Bangkok", `{"verdicts":[{"pair":1,"verdict":"SUPERSEDES"}`} {
		if !strings.Contains(call.system, s) {
			t.Errorf("system prompt lacks %q", s)
		}
	}
	if len(call.messages) != 1 || call.messages[0].Role != "user" {
		t.Fatalf("messages = %+v, want one user message", call.messages)
	}
	user := call.messages[0].Content
	for _, s := range []string{
		"3 pairs",
		"1. EXISTING: User lives in Berlin\n   NEW: User lives in Bangkok",
		"2. EXISTING: User strongly dislikes Redux\n   NEW: User hates using Redux",
		"3. EXISTING: User likes Go\n   NEW: User likes Rust",
	} {
		if !strings.Contains(user, s) {
			t.Errorf("user message lacks %q:\n%s", s, user)
		}
	}
}

func TestClassifyFactsNoPairs(t *testing.T) {
	client := &fakeLLM{err: errors.New("must not be called")}
	got, _, err := NewClassifier(client).ClassifyFacts(context.Background(), nil)
	if err != nil || got == nil || len(got) != 0 {
		t.Errorf("ClassifyFacts(nil) = %v, %v; want empty, nil", got, err)
	}
	if len(client.calls) != 0 {
		t.Errorf("calls = %d, want 0", len(client.calls))
	}
}

func TestClassifyFactsLLMError(t *testing.T) {
	boom := errors.New("boom")
	client := &fakeLLM{err: boom}
	_, _, err := NewClassifier(client).ClassifyFacts(context.Background(), []hippo.FactPair{{New: "a", Existing: "b"}})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want it to wrap %v", err, boom)
	}
	if !strings.Contains(err.Error(), "classification failed") {
		t.Errorf("err = %q, want it to say classification failed", err)
	}
}

// TestClassifyFactsUnreadable: a reply with no verdict is an error the
// engine can tell (it keeps the pairs distinct); one verdict is enough.
func TestClassifyFactsUnreadable(t *testing.T) {
	pairs := []hippo.FactPair{{New: "a", Existing: "b"}, {New: "c", Existing: "d"}}
	for _, reply := range []string{"I am not sure.", "", `[]`, `{"verdicts":[{"pair":1,"verdict":"DUPLI`} {
		_, _, err := NewClassifier(&fakeLLM{reply: reply}).ClassifyFacts(context.Background(), pairs)
		if !errors.Is(err, hippo.ErrUnreadableReply) || hippo.ErrorCode(err) != hippo.EINTERNAL {
			t.Errorf("reply %q: err = %v, want an EINTERNAL error wrapping hippo.ErrUnreadableReply", reply, err)
		}
	}
	got, _, err := NewClassifier(&fakeLLM{reply: "1: SUPERSEDES"}).ClassifyFacts(context.Background(), pairs)
	if err != nil || !reflect.DeepEqual(got, []hippo.Verdict{hippo.Supersedes, hippo.Distinct}) {
		t.Errorf("one verdict: %v, %v; want [SUPERSEDES DISTINCT], nil", got, err)
	}
}

func TestParseVerdicts(t *testing.T) {
	const (
		dup = hippo.Duplicate
		sup = hippo.Supersedes
		dis = hippo.Distinct
	)
	tests := []struct {
		name  string
		reply string
		n     int
		want  []hippo.Verdict
	}{
		{
			name:  "verdicts wrapper",
			reply: `{"verdicts":[{"pair":1,"verdict":"SUPERSEDES"},{"pair":2,"verdict":"DUPLICATE"}]}`,
			n:     2, want: []hippo.Verdict{sup, dup},
		},
		{
			name:  "code fence",
			reply: "```json\n{\"verdicts\":[{\"pair\":1,\"verdict\":\"DUPLICATE\"}]}\n```",
			n:     1, want: []hippo.Verdict{dup},
		},
		{
			name:  "prose around json",
			reply: "Here you go [as asked]:\n{\"verdicts\":[{\"pair\":2,\"verdict\":\"SUPERSEDES\"}]}\nHope that helps!",
			n:     2, want: []hippo.Verdict{dis, sup},
		},
		{
			name:  "bare array of strings in order",
			reply: `["DUPLICATE","supersedes","Distinct"]`,
			n:     3, want: []hippo.Verdict{dup, sup, dis},
		},
		{
			name:  "array of objects keyed by pair, out of order",
			reply: `[{"pair":3,"verdict":"duplicate"},{"pair":1,"verdict":"Supersedes"}]`,
			n:     3, want: []hippo.Verdict{sup, dis, dup},
		},
		{
			name:  "pair as string and alternative keys",
			reply: `[{"index":"2","classification":"SUPERSEDES"},{"id":"Pair 1","label":"DUPLICATE"}]`,
			n:     2, want: []hippo.Verdict{dup, sup},
		},
		{
			name:  "objects without pair numbers in order",
			reply: `{"results":[{"verdict":"DUPLICATE"},{"verdict":"SUPERSEDES"}]}`,
			n:     2, want: []hippo.Verdict{dup, sup},
		},
		{
			name:  "map of pair numbers",
			reply: `{"1":"SUPERSEDES","2":"duplicate"}`,
			n:     2, want: []hippo.Verdict{sup, dup},
		},
		{
			name:  "single object",
			reply: `{"pair":1,"verdict":"SUPERSEDES"}`,
			n:     1, want: []hippo.Verdict{sup},
		},
		{
			name:  "strings with numbers",
			reply: `["1: DUPLICATE","2: SUPERSEDES"]`,
			n:     2, want: []hippo.Verdict{dup, sup},
		},
		{
			name:  "plain-text lines",
			reply: "1: DUPLICATE\n2. supersedes\nPair 3 - Distinct\n4) verdict: SUPERSEDES",
			n:     4, want: []hippo.Verdict{dup, sup, dis, sup},
		},
		{
			name:  "markdown list",
			reply: "Verdicts:\n- **1**: DUPLICATE — same information\n- **2**: SUPERSEDES — new city\n",
			n:     2, want: []hippo.Verdict{dup, sup},
		},
		{
			name:  "bare word lines in order",
			reply: "SUPERSEDES\nDUPLICATE\n",
			n:     2, want: []hippo.Verdict{sup, dup},
		},
		{
			name:  "single bare word",
			reply: "supersedes.",
			n:     1, want: []hippo.Verdict{sup},
		},
		{
			name:  "missing verdicts are distinct",
			reply: `{"verdicts":[{"pair":2,"verdict":"DUPLICATE"}]}`,
			n:     3, want: []hippo.Verdict{dis, dup, dis},
		},
		{
			name:  "unknown words are distinct",
			reply: `{"verdicts":[{"pair":1,"verdict":"SUPERSEDES"},{"pair":2,"verdict":"CONTRADICTS"},{"pair":3,"verdict":""}]}`,
			n:     3, want: []hippo.Verdict{sup, dis, dis},
		},
		{
			name:  "out-of-range and repeated pairs ignored",
			reply: `[{"pair":0,"verdict":"DUPLICATE"},{"pair":1,"verdict":"SUPERSEDES"},{"pair":1,"verdict":"DUPLICATE"},{"pair":9,"verdict":"DUPLICATE"},{"pair":1.5,"verdict":"DUPLICATE"}]`,
			n:     2, want: []hippo.Verdict{sup, dis},
		},
		{
			name:  "extra verdicts ignored",
			reply: `["DUPLICATE","DUPLICATE","DUPLICATE"]`,
			n:     1, want: []hippo.Verdict{dup},
		},
		{
			name:  "prose mentioning a verdict is not a verdict",
			reply: "The new fact does not duplicate the old one.",
			n:     1, want: []hippo.Verdict{dis},
		},
		{
			name:  "unparseable reply",
			reply: "I am not sure what you mean.",
			n:     3, want: []hippo.Verdict{dis, dis, dis},
		},
		{
			name:  "empty reply",
			reply: "",
			n:     2, want: []hippo.Verdict{dis, dis},
		},
		{
			name:  "zero pairs",
			reply: `["DUPLICATE"]`,
			n:     0, want: []hippo.Verdict{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, read := parseVerdicts(tt.reply, tt.n)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("parseVerdicts(%q, %d) = %v, want %v", tt.reply, tt.n, got, tt.want)
			}
			if unread := slices.Contains([]string{"unparseable reply", "empty reply", "prose mentioning a verdict is not a verdict"}, tt.name); read == unread {
				t.Errorf("parseVerdicts(%q, %d) read a verdict: %v, want %v", tt.reply, tt.n, read, !unread)
			}
		})
	}
}

func FuzzParseFacts(f *testing.F) {
	for _, s := range []string{
		`[{"fact":"User strongly dislikes Redux","intensity":0.85},{"fact":"User tried a café on Sukhumvit","intensity":0.15}]`,
		"```json\n{\"facts\":[{\"content\":\"User likes Go\",\"importance\":\"0.4\"}]}\n```",
		`Sure [x]: {"facts":[{"text":"a \"]}\" b","strength":7}]} ]`,
		`[[[[{"fact":`,
		"no json here",
		"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, reply string) {
		facts, err := parseFacts(reply)
		if err != nil {
			if hippo.ErrorCode(err) != hippo.EINTERNAL {
				t.Fatalf("code = %q", hippo.ErrorCode(err))
			}
			return
		}
		if facts == nil || len(facts) > maxFacts {
			t.Fatalf("len = %d (nil %v)", len(facts), facts == nil)
		}
		seen := make(map[string]bool)
		for _, got := range facts {
			if got.Content == "" || got.Content != strings.TrimSpace(got.Content) {
				t.Fatalf("content %q not trimmed or empty", got.Content)
			}
			if math.IsNaN(got.Intensity) || got.Intensity < 0 || got.Intensity > 1 {
				t.Fatalf("intensity %v out of [0,1]", got.Intensity)
			}
			key := strings.ToLower(got.Content)
			if seen[key] {
				t.Fatalf("duplicate fact %q", got.Content)
			}
			seen[key] = true
		}
	})
}

func FuzzParseVerdicts(f *testing.F) {
	for _, s := range []struct {
		reply string
		n     uint8
	}{
		{`{"verdicts":[{"pair":1,"verdict":"SUPERSEDES"},{"pair":2,"verdict":"DISTINCT"}]}`, 2},
		{`["duplicate","SUPERSEDES"]`, 3},
		{"1: DUPLICATE\n2. supersedes", 2},
		{`{"1":"DUPLICATE","pair 2":"SUPERSEDES"}`, 2},
		{`[{"pair":-1e400,"verdict":"DUPLICATE"}]`, 1},
		{"nothing", 0},
	} {
		f.Add(s.reply, s.n)
	}
	f.Fuzz(func(t *testing.T, reply string, n uint8) {
		got, _ := parseVerdicts(reply, int(n))
		if len(got) != int(n) {
			t.Fatalf("len = %d, want %d", len(got), n)
		}
		for i, v := range got {
			if v != hippo.Duplicate && v != hippo.Supersedes && v != hippo.Distinct {
				t.Fatalf("verdict %d = %q", i, v)
			}
		}
	})
}

// TestExtractFactsAfter: a follow-up's request holds the message before it
// as context, labelled as the prompt names it; without one, the text
// alone as before.
func TestExtractFactsAfter(t *testing.T) {
	client := &fakeLLM{reply: `{"facts":[{"fact":"User's son has hay fever","intensity":0.4}]}`}
	facts, _, err := NewExtractor(client).ExtractFactsAfter(context.Background(), "My son is 8.", "He has hay fever.")
	if err != nil || len(facts) != 1 || facts[0].Content != "User's son has hay fever" {
		t.Fatalf("facts = %+v, %v", facts, err)
	}
	want := "Previous message (context only):\nMy son is 8.\n\nMessage:\nHe has hay fever."
	if m := client.calls[0].messages; len(m) != 1 || m[0].Content != want {
		t.Errorf("messages = %+v, want one holding %q", m, want)
	}
	for _, label := range []string{previousLabel, messageLabel} {
		if !strings.Contains(client.calls[0].system, strings.TrimSuffix(label, "\n")) {
			t.Errorf("system prompt does not name %q", label)
		}
	}
	if _, _, err := NewExtractor(client).ExtractFactsAfter(context.Background(), " ", "He has hay fever."); err != nil || client.calls[1].messages[0].Content != "He has hay fever." {
		t.Errorf("blank previous: messages = %+v, %v; want the text alone", client.calls[1].messages, err)
	}
}
