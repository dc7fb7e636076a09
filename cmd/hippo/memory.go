package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/hippo-mem/hippo"
)

// maxStdin bounds text read from standard input.
const maxStdin = 1 << 20

// openMemory opens the database (creating it only in createDB mode) and
// the memory of the agent given by --agent, with the configured embedder
// and fact models. --scope, when given, is both where writes go and the
// only scope searched; otherwise writes go to the global scope and every
// scope is searched.
func (a *app) openMemory(ctx context.Context, mode dbMode, withFacts bool) (database, hippo.AgentMemory, error) {
	agent, err := a.agentFlag()
	if err != nil {
		return nil, nil, err
	}
	scope, err := a.scopeFilter()
	if err != nil {
		return nil, nil, err
	}
	var opts hippo.MemoryOptions
	if withFacts {
		opts, err = a.memoryModels()
	} else {
		opts.Embedder, err = a.embedder()
	}
	if err != nil {
		return nil, nil, err
	}
	opts.AgentID, opts.Caller = agent, hippo.CallerCLI
	if scope != nil {
		opts.Scope, opts.RecallScopes = *scope, []string{*scope}
	}
	db, err := a.openDBFor(ctx, opts.Embedder, mode)
	if err != nil {
		return nil, nil, err
	}
	if opts.Embedder, err = a.embedderFor(ctx, db); err != nil {
		db.Close()
		return nil, nil, err
	}
	m, err := db.Service(opts)
	if err != nil {
		db.Close()
		return nil, nil, err
	}
	return db, m, nil
}

// useMemory opens the agent's memory as openMemory does, runs fn and
// closes the database.
func (a *app) useMemory(ctx context.Context, mode dbMode, withFacts bool, fn func(database, hippo.AgentMemory) error) error {
	db, m, err := a.openMemory(ctx, mode, withFacts)
	if err != nil {
		return err
	}
	defer db.Close()
	return fn(db, m)
}

// requiredText is textArg for a text that must not be empty or blank: an
// empty one is a usage error naming the argument.
func (a *app) requiredText(args []string, i int, name string) (string, error) {
	text, err := a.textArg(args, i, name)
	if err != nil {
		return "", err
	}
	if strings.TrimSpace(text) == "" {
		where := ""
		if args[i] == "-" {
			where = " (standard input was empty)"
		}
		return "", usageErrorf("<%s> must not be empty%s", name, where)
	}
	return text, nil
}

// textArg returns args[i], or standard input when it is "-".
func (a *app) textArg(args []string, i int, name string) (string, error) {
	if i >= len(args) {
		return "", usageErrorf("missing <%s>", name)
	}
	if args[i] != "-" {
		return args[i], nil
	}
	b, err := io.ReadAll(io.LimitReader(a.stdin, maxStdin+1))
	if err != nil {
		return "", fmt.Errorf("read %s from stdin: %w", name, err)
	}
	if len(b) > maxStdin {
		return "", hippo.Invalidf(name, "standard input is larger than %d bytes", maxStdin)
	}
	return strings.TrimRight(string(b), "\n"), nil
}

// recalledView is one recall result as the CLI prints it.
type recalledView struct {
	chunkView
	Score      float64 `json:"score"`
	Similarity float64 `json:"cosine"`
	BM25       float64 `json:"bm25"`
	Relevance  float64 `json:"relevance"`
	// CosineRelevance and BM25Relevance are the calibrated parts of
	// Relevance.
	CosineRelevance float64 `json:"cosine_relevance"`
	BM25Relevance   float64 `json:"bm25_relevance"`
	// LengthExcess is ln(bytes/pivot) for content past the length pivot:
	// both parts above are of the discounted cosine and BM25.
	LengthExcess float64 `json:"length_excess,omitempty"`
	Strength     float64 `json:"strength"`
	Recency      float64 `json:"recency"`
	// Weak: under the relevance floor, among the closest when too few
	// results pass it.
	Weak bool `json:"weak,omitempty"`
	// Corrects is the ID of a kept text below this result that states a
	// value it superseded.
	Corrects string `json:"corrects,omitempty"`
	// Updates is the ID of an older memory below this result, on the same
	// topic, that this one says changed.
	Updates string `json:"updates,omitempty"`
	// Part is the sentence (from 1) the memory was found by, or its part
	// read after the memory before it (engine.ContextPart); 0 for the
	// memory as a whole (hippo.Recalled.Part).
	Part int `json:"part,omitempty"`
}
