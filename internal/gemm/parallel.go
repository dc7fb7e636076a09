package gemm

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// parallelMACs is the least work (multiply-adds) worth handing to another
// goroutine: waking one costs a few microseconds, this much work ~10 µs.
const parallelMACs = 1 << 20

// maxWorkers caps the goroutines one Mul uses; memory bandwidth, not
// cores, bounds it well before that.
const maxWorkers = 32

// parallelism is SetParallelism's limit; 0 means GOMAXPROCS.
var parallelism atomic.Int32

// SetParallelism limits the goroutines one Mul uses to n (n ≤ 0: as many
// as GOMAXPROCS, the default) and returns the previous limit. A caller
// that already runs products side by side, or a machine whose other cores
// are busy (a helper the OS preempts mid-chunk makes its caller wait),
// may want 1.
func SetParallelism(n int) int {
	return int(parallelism.Swap(int32(max(0, min(n, maxWorkers)))))
}

// workers is how many goroutines Mul of m rows should use.
func (w *Weights) workers(m int) int {
	macs := m * w.n * w.k
	if macs < 2*parallelMACs {
		return 1
	}
	procs := runtime.GOMAXPROCS(0)
	if p := int(parallelism.Load()); p > 0 {
		procs = min(procs, p)
	}
	return min(procs, w.np, macs/parallelMACs, maxWorkers)
}

// task is one parallel Mul: its panels cut into chunks that the caller and
// the helpers it woke take in turn from next. The caller never waits for
// a helper that has not started (on a busy machine a woken goroutine may
// not run for milliseconds): it runs whatever chunks are left itself and
// waits only for chunks in progress. Tasks are recycled through free so
// Mul allocates nothing in steady state (a sync.Pool would do, but under
// the race detector it drops items on purpose); the last of the caller and
// helpers to let go of a task recycles it.
type task struct {
	w            *Weights
	dst, a, bias []float32
	m, nchunks   int
	next, done   atomic.Int32
	refs         atomic.Int32
	finished     chan struct{} // the helper that finishes the last chunk tells the caller
}

var (
	free    = make(chan *task, 2*maxWorkers)
	tasks   = make(chan *task, 2*maxWorkers)
	started atomic.Int32
	startMu sync.Mutex
)

// run takes chunks until none is left and reports whether it finished the
// last one.
func (t *task) run() (last bool) {
	for {
		c := int(t.next.Add(1)) - 1
		if c >= t.nchunks {
			return last
		}
		np := t.w.np
		t.w.mulPanels(t.dst, t.a, t.m, t.bias, c*np/t.nchunks, (c+1)*np/t.nchunks)
		if int(t.done.Add(1)) == t.nchunks {
			last = true
		}
	}
}

func (t *task) release() {
	if t.refs.Add(-1) == 0 {
		t.w, t.dst, t.a, t.bias = nil, nil, nil, nil
		select {
		case free <- t:
		default:
		}
	}
}

// spinTime is how long a helper keeps polling for the next task before it
// parks. Waking a parked goroutine's thread takes tens of microseconds in
// a VM, as long as a whole product for one sentence, while a model's
// products follow each other every 0.1–0.3 ms; BLAS libraries spin their
// threads for the same reason.
const spinTime = 200 * time.Microsecond

// helper runs tasks for the rest of the process.
func helper() {
	for {
		t := poll()
		if t == nil {
			t = <-tasks
		}
		if t.run() {
			t.finished <- struct{}{}
		}
		t.release()
	}
}

// poll waits up to spinTime for a task without parking, yielding the
// processor to any other goroutine while it does.
func poll() *task {
	start := time.Now()
	for i := 0; ; i++ {
		select {
		case t := <-tasks:
			return t
		default:
		}
		if i%16 == 15 && time.Since(start) > spinTime {
			return nil
		}
		runtime.Gosched()
	}
}

// ensureWorkers starts long-lived helpers until there are at least n: a
// go statement per call would allocate.
func ensureWorkers(n int) {
	if int(started.Load()) >= n {
		return
	}
	startMu.Lock()
	for int(started.Load()) < n {
		started.Add(1)
		go helper()
	}
	startMu.Unlock()
}

// mulParallel shares the panels, in chunks of a few, between the caller
// and up to nw-1 helpers.
func (w *Weights) mulParallel(dst, a []float32, m int, bias []float32, nw int) {
	ensureWorkers(nw - 1)
	var t *task
	select {
	case t = <-free:
	default:
		t = &task{finished: make(chan struct{}, 1)}
	}
	t.w, t.dst, t.a, t.bias, t.m = w, dst, a, bias, m
	t.nchunks = min(w.np, 4*nw)
	t.next.Store(0)
	t.done.Store(0)
	t.refs.Store(int32(nw))
	for i := 1; i < nw; i++ {
		select {
		case tasks <- t:
		default:
			t.refs.Add(-1)
		}
	}
	if !t.run() {
		<-t.finished
	}
	t.release()
}
