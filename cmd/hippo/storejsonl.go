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
	sc := bufio.NewScanner(r)
	// A line holds at most a memory's 50,000 characters (4 bytes each,
	// escaped) and its metadata.
	sc.Buffer(nil, 1<<20)
	var (
		out              []jsonlResult
		items            []hippo.StoreInput
		lines            []int
		stored, repeated int
		failed           int
	)
	flush := func() error {
		if len(items) == 0 {
			return nil
		}
		res, err := m.StoreMemories(ctx, items)
		if err != nil {
			return fmt.Errorf("lines %d-%d: %w", lines[0], lines[len(lines)-1], err)
		}
		for i, it := range res.Items {
			r := jsonlResult{Line: lines[i], Duplicate: it.Duplicate}
			switch {
			case it.Err != nil:
				r.Error = hippo.ErrorMessage(it.Err)
				failed++
			case it.Duplicate:
				r.ID = it.Chunk.ID
				repeated++
			default:
				r.ID = it.Chunk.ID
				stored++
			}
			out = append(out, r)
		}
		items, lines = items[:0], lines[:0]
		return nil
	}
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
			out = append(out, jsonlResult{Line: n, Error: err.Error()})
			failed++
			continue
		}
		items, lines = append(items, it), append(lines, n)
		if len(items) == hippo.MaxStoreBatch {
			if err := flush(); err != nil {
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
	if err := flush(); err != nil {
		return err
	}
	if bar != nil {
		bar.Finish()
	}
	// Lines that were not items are reported as read, the others with
	// their batch: in line order again.
	slices.SortFunc(out, func(x, y jsonlResult) int { return x.Line - y.Line })
	view := struct {
		Stored       int           `json:"stored"`
		Strengthened int           `json:"strengthened"`
		Failed       int           `json:"failed"`
		Lines        []jsonlResult `json:"lines"`
	}{stored, repeated, failed, out}
	if err := a.emit(view, func(w io.Writer) error {
		for _, r := range out {
			if r.Error != "" {
				if _, err := fmt.Fprintf(w, "line %d: %s\n", r.Line, r.Error); err != nil {
					return err
				}
			}
		}
		_, err := fmt.Fprintf(w, "Stored %s, strengthened %s already known, %d failed.\n",
			plural(stored, "new memory", "new memories"), plural(repeated, "memory", "memories"), failed)
		return err
	}); err != nil {
		return err
	}
	if failed > 0 {
		return hippo.Errorf(hippo.EINVALID, "%d of %d lines failed (listed above); the others are stored", failed, len(out))
	}
	return nil
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
