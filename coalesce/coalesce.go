// Package coalesce shares one embedding request among concurrent callers.
//
// A server that embeds each tool call on its own sends one request per
// call: eight clients storing memories at once make eight requests of one
// text each, where one request of eight texts costs about the same. An
// Embedder wraps another and, when calls arrive within Window of each
// other, sends their texts together in one Embed call of the wrapped
// embedder (up to MaxBatch texts), then hands each caller its own vectors.
//
// Errors stay with the calls they concern: when a shared request fails,
// each call's texts are sent again on their own, so a text the provider
// refuses fails its own call and no other. A caller whose context ends
// stops waiting; the shared request goes on for the others.
package coalesce

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/hippo-mem/hippo"
)

// Defaults of Options.
const (
	// DefaultWindow is how long the first call of a batch waits for others.
	DefaultWindow = 2 * time.Millisecond
	// DefaultMaxBatch is the most texts one shared request carries: well
	// inside OpenAI's 2,048 inputs, and a batch the offline embedder runs
	// in one forward pass.
	DefaultMaxBatch = 256
)

// Options configure an Embedder. Zero values take the defaults.
type Options struct {
	// Window is how long a batch stays open for more calls after its first
	// (at most 1 s). A call that fills the batch to MaxBatch sends it at
	// once.
	Window time.Duration
	// MaxBatch is the most texts one request carries. A call with more
	// texts than that is sent on its own.
	MaxBatch int
}

// Stats count what an Embedder did.
type Stats struct {
	Calls    int64 // Embed calls answered (successfully or not)
	Requests int64 // calls of the wrapped embedder, retries included
	Texts    int64 // texts sent, retries included
	Retries  int64 // calls sent again on their own after a shared request failed
}

// Embedder coalesces concurrent Embed calls into shared requests to the
// embedder it wraps. It passes the wrapped embedder's model, dimension,
// thresholds, hybrid weight and relevance levels through, so a database
// sees the same embedder with or without it. Safe for concurrent use.
type Embedder struct {
	hippo.Wrapped // model, dimension and calibration of the wrapped embedder
	inner         hippo.Embedder
	window        time.Duration
	maxBatch      int

	mu    sync.Mutex
	open  *batch // collecting calls, nil when none is
	stats Stats
}

// batch is the calls of one shared request. Its context ends once every
// one of its calls has stopped waiting (or the request is done): a shared
// request serves all its callers, and no single caller's context may end
// it, but work none of them waits for must not go on.
type batch struct {
	calls   []*call
	texts   int
	timer   *time.Timer
	ctx     context.Context
	cancel  context.CancelFunc
	waiting int // calls still waiting, under Embedder.mu
}

// call is one Embed call waiting for its vectors.
type call struct {
	texts []string
	vecs  [][]float32
	err   error
	done  chan struct{}
}

// New wraps e. It returns an error naming the option that is out of range.
func New(e hippo.Embedder, opts Options) (*Embedder, error) {
	if e == nil {
		return nil, errors.New("coalesce: no embedder to wrap")
	}
	if opts.Window == 0 {
		opts.Window = DefaultWindow
	}
	if opts.MaxBatch == 0 {
		opts.MaxBatch = DefaultMaxBatch
	}
	if opts.Window < 0 || opts.Window > time.Second {
		return nil, fmt.Errorf("coalesce: window must be between 0 and 1s, got %v", opts.Window)
	}
	if opts.MaxBatch < 1 {
		return nil, fmt.Errorf("coalesce: max batch must be at least 1, got %d", opts.MaxBatch)
	}
	return &Embedder{Wrapped: hippo.Wrapped{Embedder: e}, inner: e, window: opts.Window, maxBatch: opts.MaxBatch}, nil
}

// Unwrap returns the wrapped embedder.
func (b *Embedder) Unwrap() hippo.Embedder { return b.inner }

// Stats returns the counts so far.
func (b *Embedder) Stats() Stats {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.stats
}

// Embed returns one vector per text, in order, like the wrapped embedder,
// sending texts together with those of concurrent calls.
func (b *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if len(texts) == 0 {
		return b.inner.Embed(ctx, texts)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	c := &call{texts: texts, done: make(chan struct{})}
	if len(texts) >= b.maxBatch || b.window == 0 {
		b.run(ctx, []*call{c})
		return c.vecs, c.err
	}
	b.mu.Lock()
	if b.open != nil && b.open.texts+len(texts) > b.maxBatch {
		full := b.open
		b.open = nil
		full.timer.Stop()
		go b.send(full)
	}
	if b.open == nil {
		nb := &batch{}
		nb.ctx, nb.cancel = context.WithCancel(context.Background())
		nb.timer = time.AfterFunc(b.window, func() { b.flush(nb) })
		b.open = nb
	}
	bt := b.open
	bt.calls = append(bt.calls, c)
	bt.texts += len(texts)
	bt.waiting++
	if bt.texts >= b.maxBatch {
		b.open = nil
		bt.timer.Stop()
		go b.send(bt)
	}
	b.mu.Unlock()
	select {
	case <-c.done:
		return c.vecs, c.err
	case <-ctx.Done():
		b.mu.Lock()
		if bt.waiting--; bt.waiting == 0 {
			// Nobody waits for it any more: an open batch is dropped
			// before it is sent (a later call starts a new one), a sent
			// one stopped.
			if b.open == bt {
				b.open = nil
				bt.timer.Stop()
			}
			bt.cancel()
		}
		b.mu.Unlock()
		return nil, ctx.Err()
	}
}

// send runs bt's request under its context.
func (b *Embedder) send(bt *batch) {
	defer bt.cancel()
	b.run(bt.ctx, bt.calls)
}

// flush sends bt when its window ends, unless it was sent already.
func (b *Embedder) flush(bt *batch) {
	b.mu.Lock()
	if b.open != bt {
		b.mu.Unlock()
		return
	}
	b.open = nil
	b.mu.Unlock()
	b.send(bt)
}

// run sends the texts of calls in one request and hands out the vectors;
// when the request fails and it held more than one call, each call is sent
// again on its own, so that an error reaches only the call it concerns.
// A shared request runs under its batch's context: it does not end with
// any one caller's context, as it serves the others too, only once none of
// them waits.
func (b *Embedder) run(ctx context.Context, calls []*call) {
	var texts []string
	for _, c := range calls {
		texts = append(texts, c.texts...)
	}
	vecs, err := b.inner.Embed(ctx, texts)
	if err == nil && len(vecs) != len(texts) {
		err = fmt.Errorf("embedder returned %d vectors for %d texts", len(vecs), len(texts))
	}
	b.mu.Lock()
	b.stats.Requests++
	b.stats.Texts += int64(len(texts))
	if err != nil && len(calls) > 1 && ctx.Err() == nil {
		b.stats.Retries += int64(len(calls))
	}
	b.mu.Unlock()
	if err != nil && len(calls) > 1 && ctx.Err() == nil {
		for _, c := range calls {
			b.run(ctx, []*call{c})
		}
		return
	}
	at := 0
	for _, c := range calls {
		if err != nil {
			c.err = err
		} else {
			c.vecs = vecs[at : at+len(c.texts) : at+len(c.texts)]
			at += len(c.texts)
		}
		b.mu.Lock()
		b.stats.Calls++
		b.mu.Unlock()
		close(c.done)
	}
}
