package gcfloor_test

import (
	"runtime"
	"runtime/metrics"
	"testing"

	"github.com/hippo-mem/hippo/internal/gcfloor"
)

func TestPercent(t *testing.T) {
	for _, tt := range []struct {
		live, floor uint64
		want        int
	}{
		{live: 8 << 20, floor: 64 << 20, want: 800},
		{live: 64 << 20, floor: 64 << 20, want: 100},
		{live: 1 << 30, floor: 64 << 20, want: 100},
		{live: 1 << 10, floor: 64 << 20, want: 10000},
		{live: 0, floor: 64 << 20, want: 10000},
	} {
		if got := gcfloor.Percent(tt.live, tt.floor); got != tt.want {
			t.Errorf("Percent(%d, %d) = %d, want %d", tt.live, tt.floor, got, tt.want)
		}
	}
}

// TestKeep: with a floor far above this test's heap GOGC is raised, and
// stays raised across collections; Keep(0) puts back 100; an operator's
// GOGC is left alone.
func TestKeep(t *testing.T) {
	t.Setenv("GOGC", "")
	gcfloor.Keep(1 << 30)
	defer gcfloor.Keep(0)
	if got := gogc(); got <= 100 {
		t.Fatalf("GOGC = %d with a floor of 1 GiB, want more than 100", got)
	}
	for range 3 {
		runtime.GC()
	}
	if got := gogc(); got <= 100 {
		t.Errorf("GOGC = %d after collections, want more than 100", got)
	}
	gcfloor.Keep(0)
	if got := gogc(); got != 100 {
		t.Errorf("GOGC = %d after Keep(0), want 100", got)
	}
	t.Setenv("GOGC", "50")
	gcfloor.Keep(1 << 30)
	if got := gogc(); got != 100 {
		t.Errorf("GOGC = %d with GOGC set in the environment, want it left at 100", got)
	}
}

// gogc is the collector's GOGC.
func gogc() int {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	return int(s[0].Value.Uint64())
}
