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

// maxPercent bounds the GOGC that Keep sets, for a heap of almost
// nothing.
const maxPercent = 10000

// liveMetric is the heap the last collection found live.
const liveMetric = "/gc/heap/live:bytes"

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

// Percent is the GOGC that lets a heap of live bytes grow by floor before
// the next collection, and never less than the default 100.
func Percent(live, floor uint64) int {
	if live == 0 {
		return maxPercent
	}
	p := floor * 100 / live
	switch {
	case p < 100:
		return 100
	case p > maxPercent:
		return maxPercent
	}
	return int(p)
}

// tune sets GOGC for the live heap of the last collection.
func tune() {
	mu.Lock()
	defer mu.Unlock()
	if floor == 0 {
		debug.SetGCPercent(100)
		return
	}
	s := []metrics.Sample{{Name: liveMetric}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return // a runtime without the metric: GOGC as it is
	}
	debug.SetGCPercent(Percent(s[0].Value.Uint64(), floor))
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
