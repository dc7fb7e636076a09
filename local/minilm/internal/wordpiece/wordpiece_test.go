package wordpiece

import (
	"slices"
	"testing"
)

func TestNormalize(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Hello World", "hello world"},
		{"tab\tand\r\nnewline", "tab and  newline"},
		{"Café Crème", "cafe creme"},
		{"ÀÉÎÕÜ ñ ç", "aeiou n c"},
		{"a\x00b\x7fc\u200bd\ufffde", "abcde"},
		{"東京", " 東  京 "},
		{"x\u00a0y\u2003z", "x y z"},
		{"Ελληνικά", "ελληνικα"},
	}
	for _, tt := range tests {
		if got := Normalize(tt.in); got != tt.want {
			t.Errorf("Normalize(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestWords(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"Hello, world!", []string{"hello", ",", "world", "!"}},
		{"don't stop", []string{"don", "'", "t", "stop"}},
		{"a+b=c $5 ^~|`", []string{"a", "+", "b", "=", "c", "$", "5", "^", "~", "|", "`"}},
		{"«quoted» — dash…", []string{"«", "quoted", "»", "—", "dash", "…"}},
		{"  spaced   out  ", []string{"spaced", "out"}},
		{"中文字", []string{"中", "文", "字"}},
		{"", nil},
	}
	for _, tt := range tests {
		if got := Words(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("Words(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestWindows checks the long-text rule: one window up to MaxPieces, then
// the fewest windows of MaxPieces that overlap by at least Overlap and
// cover every piece.
func TestWindows(t *testing.T) {
	for _, n := range []int{0, 1, MaxPieces} {
		if got := Windows(n); !slices.Equal(got, [][2]int{{0, n}}) {
			t.Errorf("Windows(%d) = %v, want one window", n, got)
		}
	}
	if got, want := Windows(MaxPieces+1), [][2]int{{0, MaxPieces}, {1, MaxPieces + 1}}; !slices.Equal(got, want) {
		t.Errorf("Windows(%d) = %v, want %v", MaxPieces+1, got, want)
	}
	for n := MaxPieces + 1; n < 5000; n += 7 {
		w := Windows(n)
		if w[0][0] != 0 || w[len(w)-1][1] != n {
			t.Fatalf("Windows(%d) = %v does not span 0 to %d", n, w, n)
		}
		for i, s := range w {
			if s[1]-s[0] != MaxPieces {
				t.Fatalf("Windows(%d): window %v is not %d long", n, s, MaxPieces)
			}
			if i > 0 && w[i-1][1]-s[0] < Overlap {
				t.Fatalf("Windows(%d): windows %v and %v overlap by less than %d", n, w[i-1], s, Overlap)
			}
		}
		// One window fewer could not overlap enough.
		if k := len(w) - 1; k >= 2 && (k-1)*(MaxPieces-Overlap)+MaxPieces >= n {
			t.Fatalf("Windows(%d) uses %d windows, %d would do", n, len(w), k)
		}
	}
}
