package engine

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/internal/timestamp"
	"github.com/hippo-mem/hippo/vector"
)

// The row formats every SQL store shares: a chunk's columns, its
// timestamps as text, and the reading of result rows.

// ChunkColumns are the columns of a chunk row, in ScanChunk's order.
const ChunkColumns = `id, agent_id, scope, kind, content, content_hash, embedding, metadata,
	running_intensity, encounter_count, access_count, last_accessed_at,
	superseded_by, superseded_at, created_at,
	suspicious, origin, caller, source, input_hash, extractor, parts, context_of`

// ChunkColumnsAs is ChunkColumns with its vector columns read as the
// expressions given (such as NULL): for reads that have no use for
// vectors, which decoding every row's would waste.
func ChunkColumnsAs(embedding, parts string) string {
	return strings.Replace(strings.Replace(ChunkColumns, " embedding,", " "+embedding+",", 1), ", parts", ", "+parts, 1)
}

// Rows are a query's result rows, as *sql.Rows and pgx.Rows are.
type Rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}

// ScanChunk reads a row of ChunkColumns through scan (a row's or rows'
// Scan). Nullable text columns read as "", an empty or NULL embedding as
// none.
func ScanChunk(scan func(dest ...any) error) (*hippo.Chunk, error) {
	var (
		c                          hippo.Chunk
		kind, hash, meta           string
		supBy, supAt, last, create string
		blob, parts                []byte
		prov                       hippo.Provenance
	)
	err := scan(&c.ID, &c.AgentID, &c.Scope, &kind, &c.Content, Nullable(&hash), &blob, Nullable(&meta),
		&c.RunningIntensity, &c.EncounterCount, &c.AccessCount, &last,
		Nullable(&supBy), Nullable(&supAt), &create,
		Nullable(&c.SuspiciousReason), Nullable(&prov.Origin), Nullable(&prov.Caller), Nullable(&prov.Source), Nullable(&prov.InputHash),
		Nullable(&prov.Extractor), &parts, Nullable(&c.ContextOf))
	if err != nil {
		return nil, err
	}
	c.Suspicious = c.SuspiciousReason != ""
	if prov != (hippo.Provenance{}) {
		c.Provenance = &prov
	}
	c.Kind = hippo.Kind(kind)
	c.ContentHash = hash
	c.SupersededBy = supBy
	if meta != "" {
		c.Metadata = json.RawMessage(meta)
	}
	if c.Embedding, err = vector.Decode(nil, blob); err != nil {
		return nil, fmt.Errorf("chunk %s: %w", c.ID, err)
	}
	if len(parts) > 0 {
		if c.Parts, err = vector.Decode(nil, parts); err != nil {
			return nil, fmt.Errorf("chunk %s: %w", c.ID, err)
		}
	}
	if c.LastAccessedAt, err = timestamp.Parse(last); err != nil {
		return nil, fmt.Errorf("chunk %s: %w", c.ID, err)
	}
	if c.CreatedAt, err = timestamp.Parse(create); err != nil {
		return nil, fmt.Errorf("chunk %s: %w", c.ID, err)
	}
	if supAt != "" {
		t, err := timestamp.Parse(supAt)
		if err != nil {
			return nil, fmt.Errorf("chunk %s: %w", c.ID, err)
		}
		c.SupersededAt = &t
	}
	return &c, nil
}

// ReadChunks reads every row of ChunkColumns, without their embeddings,
// and closes rows; err is the query's, so that a store hands over its
// query's results whole.
func ReadChunks(rows Rows, err error) ([]*hippo.Chunk, error) {
	out := []*hippo.Chunk{}
	err = ReadRows(rows, err, func() error {
		c, err := ScanChunk(rows.Scan)
		if err != nil {
			return err
		}
		c.Embedding, c.Parts = nil, nil
		out = append(out, c)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list chunks: %w", err)
	}
	return out, nil
}

// ReadIDs reads every row's one text column and closes rows.
func ReadIDs(rows Rows, err error) ([]string, error) {
	var ids []string
	err = ReadRows(rows, err, func() error {
		var id string
		if err := rows.Scan(&id); err != nil {
			return err
		}
		ids = append(ids, id)
		return nil
	})
	return ids, err
}

// ReadRows calls row for every row until it fails, and closes rows; err
// is the query's, handed over whole.
func ReadRows(rows Rows, err error, row func() error) error {
	if err != nil {
		return err
	}
	defer closeRows(rows)
	for rows.Next() {
		if err := row(); err != nil {
			return err
		}
	}
	return rows.Err()
}

func closeRows(rows Rows) {
	switch r := rows.(type) {
	case interface{ Close() error }:
		r.Close()
	case interface{ Close() }:
		r.Close()
	}
}

// NullString scans a nullable text column into a string, "" for NULL
// (a sql.Scanner, which both drivers honour).
type NullString struct{ s *string }

// Nullable is a NullString scanning into s.
func Nullable(s *string) NullString { return NullString{s} }

// Scan implements sql.Scanner.
func (n NullString) Scan(v any) error {
	switch v := v.(type) {
	case nil:
		*n.s = ""
	case string:
		*n.s = v
	case []byte:
		*n.s = string(v)
	default:
		*n.s = fmt.Sprint(v)
	}
	return nil
}
