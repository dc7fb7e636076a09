package engine

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/hippo-mem/hippo"
)

// exportTimeLayout is the form of every timestamp in an export file: RFC
// 3339 in UTC with microseconds, fixed width, whatever form a store keeps
// its times in. Import reads it and the older forms (RFC 3339 with any
// precision, SQLite's "2006-01-02 15:04:05").
const exportTimeLayout = "2006-01-02T15:04:05.000000Z"

// exportTime rewrites a store's timestamp, in any form importTime reads,
// in exportTimeLayout.
func exportTime(stored *string) error {
	if stored == nil {
		return nil
	}
	t, err := importTime(*stored, time.Time{})
	if err != nil {
		return err
	}
	*stored = t.UTC().Format(exportTimeLayout)
	return nil
}

// Hippo's export format is one JSON object:
//
//	{"format":"hippo-export","version":1,["decay_model":"ebbinghaus",]
//	 "embedding_model":{"model":"...","dimension":384},
//	 "blocks":[{"agent_id","scope","key","value","description","updated_at"}, ...],
//	 "chunks":[{"id","agent_id","scope","kind","content","content_hash",
//	            "embedding_base64","metadata","running_intensity",
//	            "encounter_count","access_count","last_accessed_at",
//	            "superseded_by","superseded_at","created_at",
//	            "suspicious","origin","caller","source","input_hash",
//	            "extractor"[,"parts_base64"]}, ...],
//	 "inputs":[{"agent_id","hash","text","created_at"}, ...]}
//
// Values are the stored ones, in a form no backend owns: NULL as null, the
// embedding as the base64 of its little-endian float32 vector, metadata as
// its JSON text, every timestamp in exportTimeLayout (RFC 3339, UTC,
// microseconds). Records are one per line, chunks ordered by ID, so
// exports of equal stores are byte-identical. embedding_model is null when
// the store has no model lock. decay_model is the store's decay model,
// written only when it is not hippo.DecayHippo: a file without one was
// written under the seed's model, as every file was before there was a
// choice. Import refuses a file of another model than the store's.
//
// parts_base64, written only for a memory that has parts
// (hippo.Chunk.Parts), is their vectors back to back as the embedding's.
//
// A chunk's provenance (hippo.Provenance) is origin, caller, source,
// input_hash and extractor, null when unknown; suspicious is the trust flag's reason, ""
// when the chunk is not flagged (or a person trusted it). inputs, after
// the chunks, are the texts facts were extracted from, once per agent and
// hash (the SHA-256 of text), ordered by agent and hash: those the
// exported chunks refer to. Files without these fields (older exports,
// the TypeScript Hippo's) import as before, their chunks' provenance
// "import". An import checks every chunk's content as any write does and
// keeps the file's flag as well: it never clears one.
const (
	ExportFormat  = "hippo-export"
	ExportVersion = 1
)

// ExportBlock is a block as an export records it.
type ExportBlock struct {
	AgentID     string `json:"agent_id"`
	Scope       string `json:"scope"`
	Key         string `json:"key"`
	Value       string `json:"value"`
	Description string `json:"description"`
	UpdatedAt   string `json:"updated_at"` // as stored; written in exportTimeLayout
}

// ExportChunk is a chunk as an export records it; nil pointers are NULLs.
// A store hands timestamps as stored, Export writes them in
// exportTimeLayout; Embedding is the stored little-endian float32 vector.
type ExportChunk struct {
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
	// Suspicious is the trust flag's reason, "" for none.
	Suspicious string  `json:"suspicious"`
	Origin     *string `json:"origin"`
	Caller     *string `json:"caller"`
	Source     *string `json:"source"`
	InputHash  *string `json:"input_hash"`
	Extractor  *string `json:"extractor"`
	// Parts are the stored parts (hippo.Chunk.Parts), nil for none.
	Parts []byte `json:"parts_base64,omitempty"`
	// ContextOf is hippo.Chunk.ContextOf: the memory the last part was
	// read after.
	ContextOf *string `json:"context_of"`
}

// ExportInput is a text facts were extracted from, as an export records
// it: Hash is its hex SHA-256, CreatedAt as stored (written in
// exportTimeLayout).
type ExportInput struct {
	AgentID   string `json:"agent_id"`
	Hash      string `json:"hash"`
	Text      string `json:"text"`
	CreatedAt string `json:"created_at"`
}

// ExportRows is one read snapshot of a store, as Export reads it. Errors
// returned by fn are returned as they are.
type ExportRows interface {
	// ModelLock is the model lock, nil when there is none.
	ModelLock(ctx context.Context) (*hippo.ModelLock, error)
	// DecayModel is the store's decay model.
	DecayModel(ctx context.Context) (hippo.DecayModel, error)
	// Blocks hands fn the blocks opts selects (AgentID, Scope), ordered by
	// agent, scope and key.
	Blocks(ctx context.Context, opts hippo.ExportOptions, fn func(*ExportBlock) error) error
	// Chunks hands fn the chunks opts selects, ordered by ID.
	Chunks(ctx context.Context, opts hippo.ExportOptions, fn func(*ExportChunk) error) error
	// Inputs hands fn the inputs the chunks opts selects refer to,
	// ordered by agent and hash.
	Inputs(ctx context.Context, opts hippo.ExportOptions, fn func(*ExportInput) error) error
}

// ExportStore runs fn in one read snapshot.
type ExportStore interface {
	ExportView(ctx context.Context, fn func(ExportRows) error) error
}

// Export writes blocks and chunks to w in Hippo's export format, from one
// read snapshot of s. Records are encoded as the store streams them, so
// memory use does not grow with the store.
func Export(ctx context.Context, s ExportStore, w io.Writer, opts hippo.ExportOptions) (*hippo.ExportSummary, error) {
	var sum *hippo.ExportSummary
	err := s.ExportView(ctx, func(rows ExportRows) error {
		var err error
		sum, err = export(ctx, rows, w, opts)
		return err
	})
	if err != nil {
		return nil, err
	}
	return sum, nil
}

func export(ctx context.Context, rows ExportRows, w io.Writer, opts hippo.ExportOptions) (*hippo.ExportSummary, error) {
	lock, err := rows.ModelLock(ctx)
	if err != nil {
		return nil, err
	}
	out := &exportWriter{w: bufio.NewWriterSize(w, 64<<10)}
	out.enc = json.NewEncoder(&out.buf)
	out.enc.SetEscapeHTML(false)
	model, err := json.Marshal(lock)
	if err != nil {
		return nil, err
	}
	decay, err := rows.DecayModel(ctx)
	if err != nil {
		return nil, err
	}
	head := `{"format":"` + ExportFormat + `","version":1,`
	if decay != "" && decay != hippo.DecayHippo {
		head += `"decay_model":"` + string(decay) + `",`
	}
	out.raw(head + `"embedding_model":` + string(model) + ",\n\"blocks\":[")

	sum := &hippo.ExportSummary{}
	err = rows.Blocks(ctx, opts, func(b *ExportBlock) error {
		if err := exportTime(&b.UpdatedAt); err != nil {
			return fmt.Errorf("export block %q: %w", b.Key, err)
		}
		out.record(sum.Blocks, b)
		sum.Blocks++
		return nil
	})
	if err != nil {
		return nil, err
	}
	out.raw("\n],\n\"chunks\":[")
	err = rows.Chunks(ctx, opts, func(c *ExportChunk) error {
		for _, t := range []*string{&c.LastAccessedAt, &c.CreatedAt, c.SupersededAt} {
			if err := exportTime(t); err != nil {
				return fmt.Errorf("export chunk %s: %w", c.ID, err)
			}
		}
		out.record(sum.Chunks, c)
		if out.err != nil {
			return out.err
		}
		sum.Chunks++
		if opts.Progress != nil {
			opts.Progress(sum.Chunks)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out.raw("\n],\n\"inputs\":[")
	err = rows.Inputs(ctx, opts, func(in *ExportInput) error {
		if err := exportTime(&in.CreatedAt); err != nil {
			return fmt.Errorf("export input %s: %w", in.Hash, err)
		}
		out.record(sum.Inputs, in)
		sum.Inputs++
		return out.err
	})
	if err != nil {
		return nil, err
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
