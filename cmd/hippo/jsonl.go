package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/hippo-mem/hippo"
	"github.com/schollz/progressbar/v3"
)

// What `hippo store --jsonl` and `hippo remember --jsonl` share: the file
// read a line at a time with a progress bar, a line decoded as an object,
// and the lines that failed listed by number.

// jsonlInput is a JSON Lines file, or standard input ("-"), being read.
type jsonlInput struct {
	name  string
	r     io.Reader
	file  *os.File // nil for standard input
	bar   *progressbar.ProgressBar
	line  int   // the number of the last line read
	bytes int64 // the bytes read up to its end
}

// openJSONL opens name for a command whose progress bar, on a terminal,
// says desc: of bytes for a file, of lines for a stream.
func (a *app) openJSONL(name, desc string) (*jsonlInput, error) {
	in := &jsonlInput{name: name, r: a.stdin}
	size := int64(-1)
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return nil, hippo.Errorf(hippo.EINVALID, "cannot read %s: %v", name, err)
		}
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			size = fi.Size()
		}
		in.r, in.file = f, f
	}
	in.bar = a.progress(size, desc, size >= 0)
	return in, nil
}

// each calls fn with each line that is not blank and its number, until fn
// fails. done says, for a line that cannot be read, what became of the
// lines before it ("stored").
func (in *jsonlInput) each(done string, fn func(n int, line []byte) error) error {
	sc := bufio.NewScanner(in.r)
	// A line holds at most a memory's 50,000 characters (4 bytes each,
	// escaped) and its metadata.
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		in.line++
		in.bytes += int64(len(sc.Bytes())) + 1
		if line := bytes.TrimSpace(sc.Bytes()); len(line) > 0 {
			if err := fn(in.line, line); err != nil {
				return err
			}
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			err = fmt.Errorf("line %d is longer than 1 MiB", in.line+1)
		}
		return hippo.Errorf(hippo.EINVALID, "cannot read %s: %v (the lines before it are %s)", in.name, err, done)
	}
	return nil
}

// progress moves the bar to the last line read.
func (in *jsonlInput) progress() {
	if in.bar == nil {
		return
	}
	if in.bar.GetMax64() >= 0 {
		in.bar.Set64(in.bytes)
	} else {
		in.bar.Set64(int64(in.line))
	}
}

// finish clears the bar of a file read to its end.
func (in *jsonlInput) finish() {
	if in.bar != nil {
		in.bar.Finish()
	}
}

// close closes the file and stops the bar where it is, when finish has
// not cleared it.
func (in *jsonlInput) close() {
	if in.bar != nil {
		in.bar.Exit()
	}
	if in.file != nil {
		in.file.Close()
	}
}

// decodeJSONLine decodes a line into v, an object of the fields listed
// (for the error), refusing unknown fields.
func decodeJSONLine(line []byte, v any, fields string) error {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		// A value of the wrong type is named by its JSON type, not by
		// the Go type it would have filled.
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &te) && te.Field == "":
			return fmt.Errorf("not a JSON object of %s: a JSON %s", fields, te.Value)
		case errors.As(err, &te):
			return fmt.Errorf("%s: got a JSON %s", te.Field, te.Value)
		}
		return fmt.Errorf("not a JSON object of %s: %v", fields, err)
	}
	if dec.More() {
		return errors.New("more than one JSON value on the line")
	}
	return nil
}

// jsonlLine starts the result of a line: its number and, when it failed,
// why.
type jsonlLine struct {
	Line  int    `json:"line"`
	Error string `json:"error,omitempty"`
}

func (l jsonlLine) lineResult() jsonlLine { return l }

// writeFailures lists the lines that failed, "line N: why", in the order
// of results, each of which embeds a jsonlLine.
func writeFailures[R interface{ lineResult() jsonlLine }](w io.Writer, results []R) error {
	for _, r := range results {
		if l := r.lineResult(); l.Error != "" {
			if _, err := fmt.Fprintf(w, "line %d: %s\n", l.Line, l.Error); err != nil {
				return err
			}
		}
	}
	return nil
}

// emitJSONL prints what became of the lines (view under --json, else
// write), then fails the command if any line failed; done says what
// became of the others ("stored").
func (a *app) emitJSONL(view any, write func(io.Writer) error, failed, lines int, done string) error {
	if err := a.emit(view, write); err != nil {
		return err
	}
	if failed > 0 {
		return hippo.Errorf(hippo.EINVALID, "%d of %d lines failed (listed above); the others are %s", failed, lines, done)
	}
	return nil
}
