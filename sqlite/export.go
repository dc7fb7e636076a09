package sqlite

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/engine"
)

// Hippo's export format is one JSON object:
//
//	{"format":"hippo-export","version":1,
//	 "embedding_model":{"model":"...","dimension":384},
//	 "blocks":[{"agent_id","scope","key","value","description","updated_at"}, ...],
//	 "chunks":[{"id","agent_id","scope","kind","content","content_hash",
//	            "embedding_base64","metadata","running_intensity",
//	            "encounter_count","access_count","last_accessed_at",
//	            "superseded_by","superseded_at","created_at"}, ...]}
//
// Values are the stored ones, in a form no backend owns: NULL as null, the
// embedding as the base64 of its little-endian float32 vector, metadata as
// its JSON text, every timestamp in engine.ExportTimeLayout (RFC 3339, UTC,
// microseconds). Records are one per line, chunks ordered by ID, so exports of equal
// databases are byte-identical. embedding_model is null when the database
// has no model lock.
const (
	ExportFormat  = "hippo-export"
	ExportVersion = 1
)

// FormatTypeScript names the version-1 export of the TypeScript Hippo CLI,
// which Import also reads: {"version":1,"agentId":"...","blocks":[{"key",
// "scope","updatedAt","value"}],"chunks":[{"id","kind","content",
// "content_hash","embedding_base64","metadata",...}]}. It records no
// embedding model.
const FormatTypeScript = "typescript-v1"

// ExportOptions is hippo.ExportOptions.
type ExportOptions = hippo.ExportOptions

// ExportSummary is hippo.ExportSummary.
type ExportSummary = hippo.ExportSummary

type exportBlock struct {
	AgentID     string `json:"agent_id"`
	Scope       string `json:"scope"`
	Key         string `json:"key"`
	Value       string `json:"value"`
	Description string `json:"description"`
	UpdatedAt   string `json:"updated_at"`
}

type exportChunk struct {
	ID               string  `json:"id"`
	AgentID          string  `json:"agent_id"`
	Scope            string  `json:"scope"`
	Kind             string  `json:"kind"`
	Content          string  `json:"content"`
	ContentHash      *string `json:"content_hash"`
	Embedding        []byte  `json:"embedding_base64"`
	Metadata         *string `json:"metadata"`
	RunningIntensity float64 `json:"running_intensity"`
	EncounterCount   int64   `json:"encounter_count"`
	AccessCount      int64   `json:"access_count"`
	LastAccessedAt   string  `json:"last_accessed_at"`
	SupersededBy     *string `json:"superseded_by"`
	SupersededAt     *string `json:"superseded_at"`
	CreatedAt        string  `json:"created_at"`
}

// Export writes blocks and chunks to w in Hippo's export format, from one
// read snapshot. Rows are encoded as the query streams them, so memory use
// does not grow with the database.
func (db *DB) Export(ctx context.Context, w io.Writer, opts ExportOptions) (*ExportSummary, error) {
	tx, err := db.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	lock, err := db.readLock(ctx, tx)
	if err != nil {
		return nil, err
	}

	var where []string
	var args []any
	if opts.AgentID != "" {
		where = append(where, "agent_id = ?")
		args = append(args, opts.AgentID)
	}
	if opts.Scope != nil {
		where = append(where, "scope = ?")
		args = append(args, *opts.Scope)
	}
	cond := ""
	if len(where) > 0 {
		cond = " WHERE " + strings.Join(where, " AND ")
	}

	out := &exportWriter{w: bufio.NewWriterSize(w, 64<<10)}
	out.enc = json.NewEncoder(&out.buf)
	out.enc.SetEscapeHTML(false)
	model, err := json.Marshal(lock)
	if err != nil {
		return nil, err
	}
	out.raw(`{"format":"` + ExportFormat + `","version":1,"embedding_model":` + string(model) + ",\n\"blocks\":[")

	sum := &ExportSummary{}
	rows, err := tx.QueryContext(ctx, `SELECT agent_id, scope, key, value, description, updated_at FROM memory_blocks`+
		cond+` ORDER BY agent_id, scope, key`, args...)
	if err != nil {
		return nil, fmt.Errorf("export blocks: %w", err)
	}
	for rows.Next() {
		var b exportBlock
		if err := rows.Scan(&b.AgentID, &b.Scope, &b.Key, &b.Value, &b.Description, &b.UpdatedAt); err != nil {
			rows.Close()
			return nil, fmt.Errorf("export blocks: %w", err)
		}
		if b.UpdatedAt, err = exportTime(b.UpdatedAt); err != nil {
			rows.Close()
			return nil, fmt.Errorf("export block %q: %w", b.Key, err)
		}
		out.record(sum.Blocks, b)
		sum.Blocks++
	}
	if err := closeRows(rows); err != nil {
		return nil, fmt.Errorf("export blocks: %w", err)
	}
	out.raw("\n],\n\"chunks\":[")

	rows, err = tx.QueryContext(ctx, `SELECT id, agent_id, scope, kind, content, content_hash, embedding,
		metadata, running_intensity, encounter_count, access_count, last_accessed_at, superseded_by,
		superseded_at, created_at FROM chunks`+cond+` ORDER BY id`, args...)
	if err != nil {
		return nil, fmt.Errorf("export chunks: %w", err)
	}
	for rows.Next() {
		var c exportChunk
		if err := rows.Scan(&c.ID, &c.AgentID, &c.Scope, &c.Kind, &c.Content, &c.ContentHash, &c.Embedding,
			&c.Metadata, &c.RunningIntensity, &c.EncounterCount, &c.AccessCount, &c.LastAccessedAt,
			&c.SupersededBy, &c.SupersededAt, &c.CreatedAt); err != nil {
			rows.Close()
			return nil, fmt.Errorf("export chunks: %w", err)
		}
		if err := c.neutralTimes(); err != nil {
			rows.Close()
			return nil, fmt.Errorf("export chunk %s: %w", c.ID, err)
		}
		out.record(sum.Chunks, c)
		if out.err != nil {
			rows.Close()
			return nil, out.err
		}
		sum.Chunks++
		if opts.Progress != nil {
			opts.Progress(sum.Chunks)
		}
	}
	if err := closeRows(rows); err != nil {
		return nil, fmt.Errorf("export chunks: %w", err)
	}
	out.raw("\n]}\n")
	if out.err == nil {
		out.err = out.w.Flush()
	}
	if out.err != nil {
		return nil, fmt.Errorf("write export: %w", out.err)
	}
	return sum, nil
}

// neutralTimes rewrites the chunk's stored timestamps in the export's form.
func (c *exportChunk) neutralTimes() error {
	var err error
	for _, t := range []*string{&c.LastAccessedAt, &c.CreatedAt, c.SupersededAt} {
		if t != nil && err == nil {
			*t, err = exportTime(*t)
		}
	}
	return err
}

// exportTime is a stored timestamp, in any form Import reads, in
// engine.ExportTimeLayout.
func exportTime(stored string) (string, error) {
	t, err := importTime(stored, time.Time{})
	if err != nil {
		return "", err
	}
	return engine.ExportTime(t), nil
}

func closeRows(rows *sql.Rows) error {
	err := rows.Err()
	if cerr := rows.Close(); err == nil {
		err = cerr
	}
	return err
}

// exportWriter writes records one per line, remembering the first error.
type exportWriter struct {
	w   *bufio.Writer
	buf bytes.Buffer
	enc *json.Encoder
	err error
}

func (e *exportWriter) raw(s string) {
	if e.err == nil {
		_, e.err = e.w.WriteString(s)
	}
}

// record writes the i-th element of an array.
func (e *exportWriter) record(i int, v any) {
	if e.err != nil {
		return
	}
	e.buf.Reset()
	if e.err = e.enc.Encode(v); e.err != nil {
		return
	}
	if i == 0 {
		e.raw("\n")
	} else {
		e.raw(",\n")
	}
	if e.err == nil {
		_, e.err = e.w.Write(bytes.TrimSuffix(e.buf.Bytes(), []byte("\n")))
	}
}

const embeddingArg = 6
