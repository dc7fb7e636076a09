package hippo

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// Fold makes text compare without case or accents, as the text filter of
// the listings (ChunkFilter.Text) compares: compatibility decomposition
// (so "ﬁ" is "fi" and "é" is "e" plus an accent), accents dropped, then
// lower case. "Café" and "CAFE" both fold to "cafe". A store folds its
// column the same way.
func Fold(s string) string {
	if isLowerASCII(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range norm.NFKD.String(s) {
		if unicode.Is(unicode.Mn, r) {
			continue
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

func isLowerASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 0x80 || ('A' <= c && c <= 'Z') {
			return false
		}
	}
	return true
}
