package sqlite

import (
	"database/sql/driver"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
	sqlitedrv "modernc.org/sqlite"
)

// foldFunc is the SQL function that folds text for ChunkFilter.Text:
// fold(content) contains fold(text).
const foldFunc = "hippo_fold"

func init() {
	sqlitedrv.MustRegisterDeterministicScalarFunction(foldFunc, 1,
		func(_ *sqlitedrv.FunctionContext, args []driver.Value) (driver.Value, error) {
			switch v := args[0].(type) {
			case string:
				return fold(v), nil
			case []byte:
				return fold(string(v)), nil
			}
			return args[0], nil // NULL stays NULL
		})
}

// fold makes text compare without case or accents: compatibility
// decomposition (so "ﬁ" is "fi" and "é" is "e" plus an accent), accents
// dropped, then lower case. "Café" and "CAFE" both fold to "cafe".
func fold(s string) string {
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
