package hippo_test

import (
	"errors"
	"testing"

	"github.com/hippo-mem/hippo"
)

// TestModelLockCheck checks the model lock both stores enforce: another
// model or dimension is ECONFLICT, a dimension of 0 checks the model
// only, and a query against a database with no recorded lock passes.
func TestModelLockCheck(t *testing.T) {
	lock := hippo.ModelLock{Model: "m", Dimension: 384}
	for _, tc := range []struct {
		model    string
		dim      int
		conflict bool
	}{
		{"m", 384, false},
		{"m", 0, false},
		{"m", 1536, true},
		{"other", 384, true},
		{"other", 0, true},
	} {
		err := lock.Check(tc.model, tc.dim)
		var e *hippo.Error
		if got := errors.As(err, &e) && e.Code == hippo.ECONFLICT; got != tc.conflict {
			t.Errorf("Check(%q, %d) = %v, want conflict %v", tc.model, tc.dim, err, tc.conflict)
		}
	}
	for _, tc := range []struct {
		query      *hippo.ModelLock
		model, dim string
		conflict   bool
	}{
		{nil, "m", "384", false},
		{&lock, "", "", false},
		{&lock, "m", "384", false},
		{&lock, "m", "1536", true},
		{&lock, "other", "384", true},
	} {
		if err := hippo.CheckRecorded(tc.query, tc.model, tc.dim); (err != nil) != tc.conflict {
			t.Errorf("CheckRecorded(%v, %q, %q) = %v, want conflict %v", tc.query, tc.model, tc.dim, err, tc.conflict)
		}
	}
}
