package gemm

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// parallelMACs is the least work (multiply-adds) worth handing to another
// goroutine: waking one costs a few microseconds, this much work ~10 µs.
const parallelMACs = 1 << 20

// maxWorkers caps the goroutines one Mul uses; memory bandwidth, not
// cores, bounds it well before that.
const maxWorkers = 32

// workers is how many goroutines Mul of m rows should use.
func (w *Weights) workers(m int) int {
	macs := m * w.n * w.k
	if macs < 2*parallelMACs {
		return 1
	}
	return min(runtime.GOMAXPROCS(0), w.np, macs/parallelMACs, maxWorkers)
}

// job is a range of panels for a worker. Jobs are recycled through free
// so that Mul allocates nothing in steady state (a sync.Pool would do, but
// under the race detector it drops items on purpose).
type job struct {
	w            *Weights
	dst, a, bias []float32
	m, q0, q1    int
	done         chan struct{}
}

var (
	free    = make(chan *job, 2*maxWorkers)
	jobs    = make(chan *job, 2*maxWorkers)
	started atomic.Int32
	startMu sync.Mutex
)

// ensureWorkers starts long-lived workers until there are at least n: a
// go statement per call would allocate.
func ensureWorkers(n int) {
	if int(started.Load()) >= n {
		return
	}
	startMu.Lock()
	for int(started.Load()) < n {
		started.Add(1)
		go func() {
			for j := range jobs {
				j.w.mulPanels(j.dst, j.a, j.m, j.bias, j.q0, j.q1)
				j.done <- struct{}{}
			}
		}()
	}
	startMu.Unlock()
}

// mulParallel splits the panels evenly over nw goroutines, the caller
// taking the first share.
func (w *Weights) mulParallel(dst, a []float32, m int, bias []float32, nw int) {
	ensureWorkers(nw - 1)
	var js [maxWorkers]*job
	for i := 1; i < nw; i++ {
		var j *job
		select {
		case j = <-free:
		default:
			j = &job{done: make(chan struct{}, 1)}
		}
		j.w, j.dst, j.a, j.bias, j.m = w, dst, a, bias, m
		j.q0, j.q1 = i*w.np/nw, (i+1)*w.np/nw
		js[i] = j
		jobs <- j
	}
	w.mulPanels(dst, a, m, bias, 0, w.np/nw)
	for i := 1; i < nw; i++ {
		j := js[i]
		<-j.done
		j.w, j.dst, j.a, j.bias = nil, nil, nil, nil
		select {
		case free <- j:
		default:
		}
	}
}
