package minilm

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestTokenizer checks token IDs against the model's vocabulary; each ID
// was looked up in tokenizer.json (the token is in the comment).
func TestTokenizer(t *testing.T) {
	m := testModel(t)
	tests := []struct {
		text string
		want []int32
	}{
		{"hello world", []int32{101, 7592, 2088, 102}},                                // hello world
		{"Hello, World!", []int32{101, 7592, 1010, 2088, 999, 102}},                   // hello , world !
		{"unaffable", []int32{101, 14477, 20961, 3468, 102}},                          // una ##ffa ##ble
		{"Café naïve RÉSUMÉ", []int32{101, 7668, 15743, 13746, 102}},                  // cafe naive resume
		{"東京タワー", []int32{101, 1879, 1755, 1709, 30262, 30265, 102}},                  // 東 京 タ ##ワ ##ー
		{"don't", []int32{101, 2123, 1005, 1056, 102}},                                // don ' t
		{"$3.50 (USD)", []int32{101, 1002, 1017, 1012, 2753, 1006, 13751, 1007, 102}}, // $ 3 . 50 ( usd )
		{"tab\there\nnewline", []int32{101, 21628, 2182, 2047, 4179, 102}},            // tab here new ##line
		{"a\x00b\u200bc", []int32{101, 5925, 102}},                                    // abc: NUL and U+200B dropped
		{"ßtraße", []int32{101, 1096, 6494, 17499, 102}},                              // ß ##tra ##ße
		{"e-mail: jane@example.com", []int32{101, 1041, 1011, 5653, 1024, 4869, 1030, 2742, 1012, 4012, 102}},
		{"🙂 emoji", []int32{101, 100, 7861, 29147, 2072, 102}},               // [UNK] em ##oj ##i
		{"ab🙂", []int32{101, 100, 102}},                                      // one word, unspellable
		{"\u00a0nbsp\u00a0space", []int32{101, 1050, 5910, 2361, 2686, 102}}, // n ##bs ##p space
		{"supercalifragilisticexpialidocious", []int32{101, 3565, 9289, 10128, 29181, 24411, 4588, 10288, 19312, 21273, 10085, 6313, 102}},
		{"", []int32{101, 102}},
		{" \t\n ", []int32{101, 102}},
		{strings.Repeat("a", 100), nil}, // checked below: spelled
		{strings.Repeat("a", 101), []int32{101, 100, 102}},
	}
	for _, tt := range tests {
		got := m.tok.Encode(tt.text)
		if tt.want == nil {
			if len(got) < 3 || slices.Contains(got, m.tok.UNK()) {
				t.Errorf("Encode(%.20q…) = %v, want it spelled", tt.text, got)
			}
			continue
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("Encode(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
}

// TestTokenizerArbitrary feeds random bytes and runes: every ID must be in
// the vocabulary and the pieces must sit between [CLS] and [SEP].
func TestTokenizerArbitrary(t *testing.T) {
	m := testModel(t)
	r := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		var b strings.Builder
		for range r.IntN(40) {
			switch r.IntN(3) {
			case 0:
				b.WriteByte(byte(r.IntN(256))) // possibly invalid UTF-8
			case 1:
				b.WriteRune(rune(r.IntN(0x3000)))
			default:
				b.WriteRune(rune(r.IntN(0x110000)))
			}
		}
		ids := m.tok.Encode(b.String())
		if ids[0] != m.tok.CLS() || ids[len(ids)-1] != m.tok.SEP() {
			t.Fatalf("Encode(%q) = %v: not framed by [CLS] and [SEP]", b.String(), ids)
		}
		for _, id := range ids {
			if id < 0 || int(id) >= len(m.wordScale) {
				t.Fatalf("Encode(%q): ID %d out of range", b.String(), id)
			}
		}
	}
}
