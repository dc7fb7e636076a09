package hippo_test

import (
	"math"
	"testing"

	"github.com/hippo-mem/hippo"
)

func TestCheckVector(t *testing.T) {
	if err := hippo.CheckVector([]float32{1, 2}); err != nil {
		t.Error(err)
	}
	for _, bad := range [][]float32{nil, {float32(math.NaN())}, {1, float32(math.Inf(1))}, {0, 0, 0}, {1e-30, 1e-30}, {3e38, 3e38}} {
		if hippo.CheckVector(bad) == nil {
			t.Errorf("CheckVector(%v): want error", bad)
		}
	}
}
