package hippo

import (
	"fmt"
	"strconv"
)

// ModelLock is the embedding model and dimension a database is bound to:
// vectors of different models are not comparable.
type ModelLock struct {
	Model     string `json:"model"`
	Dimension int    `json:"dimension"`
}

// Check refuses an embedder of another model or dimension than the lock's
// (a dim of 0 checks the model only): ECONFLICT, naming both and how to
// switch the database.
//
// Stores read the lock from the database every time, never from a copy
// kept in memory: Reembed, in this process or another, switches it, and a
// stale copy would refuse the new model or, worse, accept the old one.
func (l ModelLock) Check(model string, dim int) error {
	if l.Model != model || (dim > 0 && l.Dimension != dim) {
		got := ModelLock{Model: model, Dimension: dim}
		return Errorf(ECONFLICT,
			"embedding model mismatch: this database is locked to %s, but the embedder gives %s; "+
				"configure that model again, or switch the database with `hippo reembed --force` (re-embeds every chunk)", l, got)
	}
	return nil
}

func (l ModelLock) String() string {
	return fmt.Sprintf("%q (%d dimensions)", l.Model, l.Dimension)
}

// CheckRecorded checks query, the model a query was embedded with (nil:
// nothing to check), against the lock a database records as text: model
// ("" when none is recorded) and dim.
func CheckRecorded(query *ModelLock, model, dim string) error {
	if query == nil || model == "" {
		return nil
	}
	n, _ := strconv.Atoi(dim)
	return ModelLock{Model: model, Dimension: n}.Check(query.Model, query.Dimension)
}
