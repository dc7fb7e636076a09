// Package gcfloor keeps the Go collector from running on a small heap
// more often than a long-running server needs.
//
// Paced by GOGC alone, the collector runs each time the heap doubles what
// is live. A server whose live heap is a few megabytes then collects after
// every few megabytes of garbage, and each request of the MCP SDK leaves
// tens of kilobytes of it (a zeroed read buffer for every JSON message it
// decodes), which the server cannot change. Keep lets the heap grow by at
// least a floor before a collection: GOGC is raised while the live heap is
// under the floor and back to 100 once it is above. The soft memory limit
// still bounds the heap as before.
package gcfloor

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// minGoal is the runtime's least heap goal at GOGC 100; it scales with
// GOGC, so a GOGC past floor/minGoal would let the heap grow beyond the
// floor.
const minGoal = 4 << 20

// baseMetrics are what GOGC is a percentage of: the heap the last
// collection found live, and the stacks and globals it scanned.
var baseMetrics = []string{"/gc/heap/live:bytes", "/gc/scan/stack:bytes", "/gc/scan/globals:bytes"}

var (
	mu    sync.Mutex
	floor uint64 // 0: not kept
	armed bool   // a sentinel waits for the next collection
)

// Keep lets the heap grow by at least floor bytes beyond what is live
// before the collector runs, from now on; 0 stops that and restores GOGC
// 100. It leaves GOGC alone when the environment sets it: the operator's
// choice stands.
func Keep(bytes uint64) {
	if os.Getenv("GOGC") != "" {
		return
	}
	mu.Lock()
	floor = bytes
	arm := bytes > 0 && !armed
	armed = armed || arm
	mu.Unlock()
	tune()
	if arm {
		rearm()
	}
}

// Percent is the GOGC that lets the heap grow by floor before the next
// collection, and never less than the default 100: the collector lets it
// grow by GOGC percent of base, the live heap with the stacks and globals.
func Percent(base, floor uint64) int {
	p := floor * 100 / minGoal
	if base > 0 {
		p = min(p, floor*100/base)
	}
	return int(max(p, 100))
}

// tune sets GOGC for the live heap of the last collection.
func tune() {
	mu.Lock()
	defer mu.Unlock()
	if floor == 0 {
		debug.SetGCPercent(100)
		return
	}
	s := make([]metrics.Sample, len(baseMetrics))
	for i, name := range baseMetrics {
		s[i].Name = name
	}
	metrics.Read(s)
	var base uint64
	for _, v := range s {
		if v.Value.Kind() != metrics.KindUint64 {
			return // a runtime without the metric: GOGC as it is
		}
		base += v.Value.Uint64()
	}
	debug.SetGCPercent(Percent(base, floor))
}

// rearm leaves an object for the next collection to find unreachable; its
// cleanup, run after that collection, tunes GOGC for the heap it left and
// arms the next, until Keep(0).
func rearm() {
	sentinel := new([32]byte) // not a tiny allocation, which may share a block and outlive it
	runtime.AddCleanup(sentinel, func(struct{}) {
		mu.Lock()
		again := floor > 0
		armed = again
		mu.Unlock()
		if again {
			tune()
			rearm()
		}
	}, struct{}{})
}
