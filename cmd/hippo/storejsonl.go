package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/hippo-mem/hippo"
	"github.com/schollz/progressbar/v3"
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
	Line      int    `json:"line"`
	ID        string `json:"id,omitempty"`
	Duplicate bool   `json:"duplicate"`
	Error     string `json:"error,omitempty"`
}

// storeJSONL stores the memories of a JSON Lines file ("-": standard
// input), hippo.MaxStoreBatch lines a call. A line that is not an item, or
// that the store refuses, fails alone; the command then exits 1 once the
// rest is stored.
func (a *app) storeJSONL(ctx context.Context, m hippo.MemoryService, name string) error {
	var r io.Reader = a.stdin
	var size int64 = -1
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return hippo.Errorf(hippo.EINVALID, "cannot read %s: %v", name, err)
		}
		defer f.Close()
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			size = fi.Size()
		}
		r = f
	}
	bar := a.progress(size, "storing", size >= 0)
	s := &jsonlStore{m: m}
	if err := s.read(ctx, r, name, bar); err != nil {
		return err
	}
	if err := s.flush(ctx); err != nil {
		return err
	}
	if bar != nil {
		bar.Finish()
	}
	// Lines that were not items are reported as read, the others with
	// their batch: in line order again.
	slices.SortFunc(s.out, func(x, y jsonlResult) int { return x.Line - y.Line })
	view := struct {
		Stored       int           `json:"stored"`
		Strengthened int           `json:"strengthened"`
		Failed       int           `json:"failed"`
		Lines        []jsonlResult `json:"lines"`
	}{s.stored, s.repeated, s.failed, s.out}
	if err := a.emit(view, s.write); err != nil {
		return err
	}
	if s.failed > 0 {
		return hippo.Errorf(hippo.EINVALID, "%d of %d lines failed (listed above); the others are stored", s.failed, len(s.out))
	}
	return nil
}

// jsonlStore stores the items of a JSON Lines file a batch at a time and
// keeps what became of each line.
type jsonlStore struct {
	m                        hippo.MemoryService
	items                    []hippo.StoreInput // the batch
	lines                    []int              // the line of each of its items
	out                      []jsonlResult
	stored, repeated, failed int
}

// read reads the lines of r, the file name, storing a batch whenever it is
// full.
func (s *jsonlStore) read(ctx context.Context, r io.Reader, name string, bar *progressbar.ProgressBar) error {
	sc := bufio.NewScanner(r)
	// A line holds at most a memory's 50,000 characters (4 bytes each,
	// escaped) and its metadata.
	sc.Buffer(nil, 1<<20)
	n, read := 0, int64(0)
	for sc.Scan() {
		n++
		read += int64(len(sc.Bytes())) + 1
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		it, err := decodeJSONLItem(line)
		if err != nil {
			s.out = append(s.out, jsonlResult{Line: n, Error: err.Error()})
			s.failed++
			continue
		}
		s.items, s.lines = append(s.items, it), append(s.lines, n)
		if len(s.items) == hippo.MaxStoreBatch {
			if err := s.flush(ctx); err != nil {
				return err
			}
			setBar(bar, read, int64(n))
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			err = fmt.Errorf("line %d is longer than 1 MiB", n+1)
		}
		if bar != nil {
			bar.Exit()
		}
		return hippo.Errorf(hippo.EINVALID, "cannot read %s: %v (the lines before it are stored)", name, err)
	}
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
		r := jsonlResult{Line: s.lines[i], Duplicate: it.Duplicate}
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
	for _, r := range s.out {
		if r.Error != "" {
			if _, err := fmt.Fprintf(w, "line %d: %s\n", r.Line, r.Error); err != nil {
				return err
			}
		}
	}
	_, err := fmt.Fprintf(w, "Stored %s, strengthened %s already known, %d failed.\n",
		plural(s.stored, "new memory", "new memories"), plural(s.repeated, "memory", "memories"), s.failed)
	return err
}

// decodeJSONLItem reads one line as an item, refusing unknown fields.
func decodeJSONLItem(line []byte) (hippo.StoreInput, error) {
	var it jsonlItem
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&it); err != nil {
		return hippo.StoreInput{}, fmt.Errorf("not a JSON object of content, metadata, intensity and source: %v", err)
	}
	if dec.More() {
		return hippo.StoreInput{}, fmt.Errorf("more than one JSON value on the line")
	}
	return hippo.StoreInput{Content: it.Content, Metadata: it.Metadata, Intensity: it.Intensity, Source: it.Source}, nil
}

// setBar moves bar to bytes read of a file, or to lines read of a stream.
func setBar(bar *progressbar.ProgressBar, bytes, lines int64) {
	if bar == nil {
		return
	}
	if bar.GetMax64() >= 0 {
		bar.Set64(bytes)
	} else {
		bar.Set64(lines)
	}
}
