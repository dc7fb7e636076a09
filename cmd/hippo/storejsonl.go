package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"

	"github.com/hippo-mem/hippo"
)

// jsonlItem is one line of `hippo store --jsonl`: store_memory's fields.
type jsonlItem struct {
	Content   string          `json:"content"`
	Metadata  json.RawMessage `json:"metadata,omitempty"`
	Intensity *float64        `json:"intensity,omitempty"`
	Source    string          `json:"source,omitempty"`
}

// jsonlResult is what became of one line.
type jsonlResult struct {
	jsonlLine
	ID        string `json:"id,omitempty"`
	Duplicate bool   `json:"duplicate"`
}

// storeJSONL stores the memories of a JSON Lines file ("-": standard
// input), hippo.MaxStoreBatch lines a call. A line that is not an item, or
// that the store refuses, fails alone; the command then exits 1 once the
// rest is stored.
func (a *app) storeJSONL(ctx context.Context, m hippo.MemoryService, name string) error {
	in, err := a.openJSONL(name, "storing")
	if err != nil {
		return err
	}
	defer in.close()
	s := &jsonlStore{m: m, in: in}
	if err := in.each("stored", func(n int, line []byte) error { return s.add(ctx, n, line) }); err != nil {
		return err
	}
	if err := s.flush(ctx); err != nil {
		return err
	}
	in.finish()
	// Lines that were not items are reported as read, the others with
	// their batch: in line order again.
	slices.SortFunc(s.out, func(x, y jsonlResult) int { return x.Line - y.Line })
	view := struct {
		Stored       int           `json:"stored"`
		Strengthened int           `json:"strengthened"`
		Failed       int           `json:"failed"`
		Lines        []jsonlResult `json:"lines"`
	}{s.stored, s.repeated, s.failed, s.out}
	return a.emitJSONL(view, s.write, s.failed, len(s.out), "stored")
}

// jsonlStore stores the items of a JSON Lines file a batch at a time and
// keeps what became of each line.
type jsonlStore struct {
	m                        hippo.MemoryService
	in                       *jsonlInput
	items                    []hippo.StoreInput // the batch
	lines                    []int              // the line of each of its items
	out                      []jsonlResult
	stored, repeated, failed int
}

// add adds line n to the batch, storing the batch when it is full.
func (s *jsonlStore) add(ctx context.Context, n int, line []byte) error {
	var it jsonlItem
	if err := decodeJSONLine(line, &it, "content, metadata, intensity and source"); err != nil {
		s.out = append(s.out, jsonlResult{jsonlLine: jsonlLine{Line: n, Error: err.Error()}})
		s.failed++
		return nil
	}
	s.items = append(s.items, hippo.StoreInput{Content: it.Content, Metadata: it.Metadata, Intensity: it.Intensity, Source: it.Source})
	s.lines = append(s.lines, n)
	if len(s.items) < hippo.MaxStoreBatch {
		return nil
	}
	if err := s.flush(ctx); err != nil {
		return err
	}
	s.in.progress()
	return nil
}

// flush stores the batch, if any, and notes what became of each item.
func (s *jsonlStore) flush(ctx context.Context) error {
	if len(s.items) == 0 {
		return nil
	}
	res, err := s.m.StoreMemories(ctx, s.items)
	if err != nil {
		return fmt.Errorf("lines %d-%d: %w", s.lines[0], s.lines[len(s.lines)-1], err)
	}
	for i, it := range res.Items {
		r := jsonlResult{jsonlLine: jsonlLine{Line: s.lines[i]}, Duplicate: it.Duplicate}
		switch {
		case it.Err != nil:
			r.Error = hippo.ErrorMessage(it.Err)
			s.failed++
		case it.Duplicate:
			r.ID = it.Chunk.ID
			s.repeated++
		default:
			r.ID = it.Chunk.ID
			s.stored++
		}
		s.out = append(s.out, r)
	}
	s.items, s.lines = s.items[:0], s.lines[:0]
	return nil
}

// write lists the lines that failed and counts the rest.
func (s *jsonlStore) write(w io.Writer) error {
	if err := writeFailures(w, s.out); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "Stored %s, strengthened %s already known, %d failed.\n",
		plural(s.stored, "new memory", "new memories"), plural(s.repeated, "memory", "memories"), s.failed)
	return err
}
