package gcfloor_test

import (
	"runtime"
	"runtime/metrics"
	"testing"

	"github.com/hippo-mem/hippo/internal/gcfloor"
)

func TestPercent(t *testing.T) {
	for _, tt := range []struct {
		base, floor uint64
		want        int
	}{
		{base: 8 << 20, floor: 64 << 20, want: 800},
		{base: 64 << 20, floor: 64 << 20, want: 100},
		{base: 1 << 30, floor: 64 << 20, want: 100},
		{base: 1 << 20, floor: 64 << 20, want: 1600},
		{base: 0, floor: 64 << 20, want: 1600},
		{base: 1 << 20, floor: 1 << 20, want: 100},
	} {
		if got := gcfloor.Percent(tt.base, tt.floor); got != tt.want {
			t.Errorf("Percent(%d, %d) = %d, want %d", tt.base, tt.floor, got, tt.want)
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
	// The heap may grow by the floor, not by the floor's percentage of
	// the stacks and globals besides.
	const floor = 64 << 20
	runtime.GC()
	gcfloor.Keep(floor)
	if goal, live := read("/gc/heap/goal:bytes"), read("/gc/heap/live:bytes"); goal > live+floor+1<<20 {
		t.Errorf("heap goal %d with %d live and a floor of %d, want at most their sum", goal, live, floor)
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
func gogc() int { return int(read("/gc/gogc:percent")) }

// read is the runtime metric name.
func read(name string) uint64 {
	s := []metrics.Sample{{Name: name}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}
