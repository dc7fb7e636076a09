package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/engine"
	"github.com/hippo-mem/hippo/internal/timestamp"
	"github.com/hippo-mem/hippo/vector"
)

// Tx is one agent's chunks, blocks and inputs in a store transaction:
// the engine.Tx and engine.AdminTx statements both stores run alike.
// Agent "" is every agent's (an admin transaction).
type Tx struct {
	Q     Querier
	Agent string
}

// ofAgent is the condition on the agent, with its arguments after args.
func (t Tx) ofAgent(args ...any) (string, []any) {
	if t.Agent == "" {
		return "", args
	}
	return ` AND agent_id = ?`, append(args, t.Agent)
}

// Chunk implements engine.ChunkReader: ENOTFOUND when there is none.
func (t Tx) Chunk(ctx context.Context, id string) (*hippo.Chunk, error) {
	cond, args := t.ofAgent(id)
	c, err := engine.ScanChunk(t.Q.QueryRow(ctx, `SELECT `+engine.ChunkColumns+` FROM chunks WHERE id = ?`+cond, args...).Scan)
	if errors.Is(err, ErrNoRows) {
		return nil, hippo.Errorf(hippo.ENOTFOUND, "chunk %s not found", id)
	}
	return c, err
}

// Predecessor implements engine.ChunkReader.
func (t Tx) Predecessor(ctx context.Context, id string) (string, error) {
	var prev string
	_, err := scanOne(t.Q.QueryRow(ctx, `SELECT id FROM chunks WHERE superseded_by = ? AND agent_id = ?
		AND kind = 'fact' ORDER BY created_at DESC LIMIT 1`, id, t.Agent), &prev)
	return prev, err
}

// SaveStrength implements engine.ChunkWriter.
func (t Tx) SaveStrength(ctx context.Context, c *hippo.Chunk) error {
	_, err := t.Q.Exec(ctx, `UPDATE chunks SET running_intensity = ?, encounter_count = ?,
		access_count = ?, last_accessed_at = ? WHERE id = ? AND agent_id = ?`,
		c.RunningIntensity, c.EncounterCount, c.AccessCount, timestamp.Format(c.LastAccessedAt), c.ID, t.Agent)
	return err
}

// IsLive implements engine.FactWriter.
func (t Tx) IsLive(ctx context.Context, id string) (bool, error) {
	var live bool
	_, err := scanOne(t.Q.QueryRow(ctx, `SELECT superseded_by IS NULL FROM chunks WHERE id = ? AND agent_id = ?`, id, t.Agent), &live)
	return live, err
}

// Insert implements engine.FactWriter: ECONFLICT when the chunk's ID or,
// for a memory, its content in its scope is taken.
func (t Tx) Insert(ctx context.Context, c *hippo.Chunk) error {
	if c.ID == "" {
		c.ID = engine.NewChunkID(c.CreatedAt)
	}
	n, err := t.Q.Exec(ctx, insertChunks(1), ChunkArgs(c)...)
	if err != nil {
		return fmt.Errorf("insert chunk: %w", err)
	}
	if n == 0 {
		return &hippo.Error{Code: hippo.ECONFLICT, Message: fmt.Sprintf("chunk %s: a chunk with this ID, or a memory with this content in scope %q, already exists", c.ID, c.Scope)}
	}
	return nil
}

// InsertMany implements engine.Tx in one statement.
func (t Tx) InsertMany(ctx context.Context, cs []*hippo.Chunk) error {
	args := make([]any, 0, len(cs)*20)
	for _, c := range cs {
		args = append(args, ChunkArgs(c)...)
	}
	n, err := t.Q.Exec(ctx, insertChunks(len(cs)), args...)
	if err != nil {
		return fmt.Errorf("insert chunks: %w", err)
	}
	if n != int64(len(cs)) {
		return &hippo.Error{Code: hippo.ECONFLICT, Message: "a chunk with one of these IDs, or a memory with one of these contents, already exists"}
	}
	return nil
}

// insertChunks inserts n chunks, skipping those whose ID or, for a
// memory, content in its scope is taken (a unique violation would abort
// a PostgreSQL transaction).
func insertChunks(n int) string {
	row := "(?" + strings.Repeat(", ?", 22) + ")"
	return `INSERT INTO chunks (` + engine.ChunkColumns + `) VALUES ` + row + strings.Repeat(", "+row, n-1) + ` ON CONFLICT DO NOTHING`
}

// ChunkArgs are c's values in the order of engine.ChunkColumns.
func ChunkArgs(c *hippo.Chunk) []any {
	var supAt any
	if c.SupersededAt != nil {
		supAt = timestamp.Format(*c.SupersededAt)
	}
	var prov hippo.Provenance
	if c.Provenance != nil {
		prov = *c.Provenance
	}
	return []any{c.ID, c.AgentID, c.Scope, string(c.Kind), c.Content, nullIfEmpty(c.ContentHash),
		vector.Encode(c.Embedding), nullIfEmpty(string(c.Metadata)),
		c.RunningIntensity, c.EncounterCount, c.AccessCount, timestamp.Format(c.LastAccessedAt),
		nullIfEmpty(c.SupersededBy), supAt, timestamp.Format(c.CreatedAt),
		nullIfEmpty(c.SuspiciousReason), nullIfEmpty(prov.Origin), nullIfEmpty(prov.Caller),
		nullIfEmpty(prov.Source), nullIfEmpty(prov.InputHash), nullIfEmpty(prov.Extractor), partsArg(c.Parts), nullIfEmpty(c.ContextOf)}
}

// partsArg is a chunk's parts as stored: NULL for none.
func partsArg(parts []float32) any {
	if len(parts) == 0 {
		return nil
	}
	return vector.Encode(parts)
}

// Supersede implements engine.FactWriter.
func (t Tx) Supersede(ctx context.Context, id, by string, at time.Time) (string, bool, error) {
	var content string
	ok, err := scanOne(t.Q.QueryRow(ctx, `UPDATE chunks SET superseded_by = ?, superseded_at = ?
		WHERE id = ? AND agent_id = ? AND superseded_by IS NULL RETURNING content`,
		by, timestamp.Format(at), id, t.Agent), &content)
	return content, ok, err
}

// Supersedes implements engine.Tx.
func (t Tx) Supersedes(ctx context.Context, id string) (bool, error) {
	var ok bool
	err := t.Q.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM chunks WHERE superseded_by = ? AND agent_id = ?)`, id, t.Agent).Scan(&ok)
	return ok, err
}

// SetSuspicious implements engine.Tx: ENOTFOUND when the chunk is not
// the agent's.
func (t Tx) SetSuspicious(ctx context.Context, id, reason string) error {
	n, err := t.Q.Exec(ctx, `UPDATE chunks SET suspicious = ? WHERE id = ? AND agent_id = ?`, nullIfEmpty(reason), id, t.Agent)
	if err != nil {
		return fmt.Errorf("flag chunk %s: %w", id, err)
	}
	if n == 0 {
		return hippo.Errorf(hippo.ENOTFOUND, "chunk %s not found", id)
	}
	return nil
}

// SetMetadata implements engine.Tx.
func (t Tx) SetMetadata(ctx context.Context, id, metadata string) error {
	if _, err := t.Q.Exec(ctx, `UPDATE chunks SET metadata = ? WHERE id = ? AND agent_id = ?`, nullIfEmpty(metadata), id, t.Agent); err != nil {
		return fmt.Errorf("update metadata: %w", err)
	}
	return nil
}

// SameFact implements engine.Tx: the oldest live fact of the scope with
// this content, nil when there is none.
func (t Tx) SameFact(ctx context.Context, scope, hash string) (*hippo.Chunk, error) {
	c, err := engine.ScanChunk(t.Q.QueryRow(ctx, `SELECT `+engine.ChunkColumns+` FROM chunks
		WHERE agent_id = ? AND kind = 'fact' AND scope = ? AND content_hash = ? AND superseded_by IS NULL
		ORDER BY created_at, id LIMIT 1`, t.Agent, scope, hash).Scan)
	if errors.Is(err, ErrNoRows) {
		return nil, nil
	}
	return c, err
}

// PutInput implements engine.Tx: kept once per agent and hash.
func (t Tx) PutInput(ctx context.Context, hash, text string, at time.Time) error {
	if _, err := t.Q.Exec(ctx, `INSERT INTO chunk_inputs (agent_id, hash, text, created_at)
		VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING`, t.Agent, hash, text, timestamp.Format(at)); err != nil {
		return fmt.Errorf("keep input: %w", err)
	}
	return nil
}

// Enqueue implements engine.Tx.
func (t Tx) Enqueue(ctx context.Context, p engine.PendingText) (int64, error) {
	var id int64
	if _, err := scanOne(t.Q.QueryRow(ctx, `INSERT INTO remember_pending (agent_id, scope, text, text_hash, source, caller, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id`, t.Agent, p.Scope, p.Text, p.Hash, nullIfEmpty(p.Source), nullIfEmpty(p.Caller),
		timestamp.Format(p.At)), &id); err != nil {
		return 0, fmt.Errorf("queue text: %w", err)
	}
	return id, nil
}

// PendingTexts implements engine.Tx.
func (t Tx) PendingTexts(ctx context.Context, limit int) ([]engine.PendingText, error) {
	rows, err := t.Q.Query(ctx, `SELECT id, scope, text, text_hash, COALESCE(source, ''), COALESCE(caller, ''), created_at
		FROM remember_pending WHERE agent_id = ? ORDER BY id LIMIT ?`, t.Agent, limit)
	var out []engine.PendingText
	err = engine.ReadRows(rows, err, func() error {
		var p engine.PendingText
		var at string
		if err := rows.Scan(&p.ID, &p.Scope, &p.Text, &p.Hash, &p.Source, &p.Caller, &at); err != nil {
			return err
		}
		var err error
		p.At, err = timestamp.Parse(at)
		out = append(out, p)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("read queued texts: %w", err)
	}
	return out, nil
}

// DonePending implements engine.Tx.
func (t Tx) DonePending(ctx context.Context, id int64) (bool, error) {
	n, err := t.Q.Exec(ctx, `DELETE FROM remember_pending WHERE id = ? AND agent_id = ?`, id, t.Agent)
	if err != nil {
		return false, fmt.Errorf("unqueue text: %w", err)
	}
	return n > 0, nil
}

// DropPending implements engine.Tx.
func (t Tx) DropPending(ctx context.Context, hash string) error {
	if _, err := t.Q.Exec(ctx, `DELETE FROM remember_pending WHERE agent_id = ? AND text_hash = ?`, t.Agent, hash); err != nil {
		return fmt.Errorf("forget queued text: %w", err)
	}
	return nil
}

// DropInput implements engine.Tx.
func (t Tx) DropInput(ctx context.Context, hash string) error {
	if _, err := t.Q.Exec(ctx, `UPDATE chunks SET input_hash = NULL WHERE agent_id = ? AND input_hash = ?`, t.Agent, hash); err != nil {
		return fmt.Errorf("forget input: %w", err)
	}
	if _, err := t.Q.Exec(ctx, `DELETE FROM chunk_inputs WHERE agent_id = ? AND hash = ?`, t.Agent, hash); err != nil {
		return fmt.Errorf("forget input: %w", err)
	}
	return nil
}

// Input implements engine.Tx.
func (t Tx) Input(ctx context.Context, hash string) (string, bool, error) {
	var text string
	ok, err := scanOne(t.Q.QueryRow(ctx, `SELECT text FROM chunk_inputs WHERE agent_id = ? AND hash = ?`, t.Agent, hash), &text)
	if err != nil {
		return "", false, fmt.Errorf("read input: %w", err)
	}
	return text, ok, nil
}

// GetBlock implements engine.Tx: nil when missing.
func (t Tx) GetBlock(ctx context.Context, scope, key string) (*hippo.Block, error) {
	var b hippo.Block
	var updated string
	ok, err := scanOne(t.Q.QueryRow(ctx, `SELECT agent_id, scope, key, value, description, updated_at FROM memory_blocks
		WHERE agent_id = ? AND scope = ? AND key = ?`, t.Agent, scope, key),
		&b.AgentID, &b.Scope, &b.Key, &b.Value, &b.Description, &updated)
	if err != nil || !ok {
		return nil, err
	}
	if b.UpdatedAt, err = timestamp.Parse(updated); err != nil {
		return nil, fmt.Errorf("block %q: %w", key, err)
	}
	return &b, nil
}

// PutBlock implements engine.Tx.
func (t Tx) PutBlock(ctx context.Context, scope, key, value string, at time.Time) error {
	if _, err := t.Q.Exec(ctx, `INSERT INTO memory_blocks (agent_id, scope, key, value, updated_at)
		VALUES (?, ?, ?, ?, ?) ON CONFLICT (agent_id, scope, key)
		DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
		t.Agent, scope, key, value, timestamp.Format(at)); err != nil {
		return fmt.Errorf("write block %q: %w", key, err)
	}
	return nil
}

// DescribeBlock implements engine.Tx.
func (t Tx) DescribeBlock(ctx context.Context, scope, key, description string, at time.Time) error {
	if _, err := t.Q.Exec(ctx, `INSERT INTO memory_blocks (agent_id, scope, key, value, description, updated_at)
		VALUES (?, ?, ?, '', ?, ?) ON CONFLICT (agent_id, scope, key)
		DO UPDATE SET description = excluded.description, updated_at = excluded.updated_at`,
		t.Agent, scope, key, description, timestamp.Format(at)); err != nil {
		return fmt.Errorf("describe block %q: %w", key, err)
	}
	return nil
}

// DeleteBlock implements engine.Tx.
func (t Tx) DeleteBlock(ctx context.Context, scope, key string) (bool, error) {
	n, err := t.Q.Exec(ctx, `DELETE FROM memory_blocks WHERE agent_id = ? AND scope = ? AND key = ?`, t.Agent, scope, key)
	if err != nil {
		return false, fmt.Errorf("delete block %q: %w", key, err)
	}
	return n > 0, nil
}

// DeleteChunk implements engine.ChunkDeleter.
func (t Tx) DeleteChunk(ctx context.Context, agentID, id string) (string, error) {
	cond, args := Tx{Agent: agentID}.ofAgent(id)
	var owner string
	_, err := scanOne(t.Q.QueryRow(ctx, `DELETE FROM chunks WHERE id = ?`+cond+` RETURNING agent_id`, args...), &owner)
	return owner, err
}

// Unsupersede implements engine.ChunkDeleter.
func (t Tx) Unsupersede(ctx context.Context, owner, id string) ([]string, error) {
	return engine.ReadIDs(t.Q.Query(ctx, `UPDATE chunks SET superseded_by = NULL, superseded_at = NULL
		WHERE superseded_by = ? AND agent_id = ? RETURNING id`, id, owner))
}

// Listed implements engine.AdminTx.
func (t Tx) Listed(ctx context.Context, agentID, id string) (*hippo.Chunk, error) {
	cond, args := Tx{Agent: agentID}.ofAgent(id)
	cs, err := engine.ReadChunks(t.Q.Query(ctx, `SELECT `+withoutVector+` FROM chunks WHERE id = ?`+cond, args...))
	if err != nil || len(cs) == 0 {
		return nil, err
	}
	return cs[0], nil
}

// withoutVector is engine.ChunkColumns with a NULL embedding.
var withoutVector = engine.ChunkColumnsAs("NULL", "NULL")

// SupersededBy implements engine.AdminTx.
func (t Tx) SupersededBy(ctx context.Context, owner, id string) ([]string, error) {
	return engine.ReadIDs(t.Q.Query(ctx, `SELECT id FROM chunks WHERE superseded_by = ? AND agent_id = ? ORDER BY id`, id, owner))
}

// Repoint implements engine.AdminTx.
func (t Tx) Repoint(ctx context.Context, owner, id, next string) error {
	_, err := t.Q.Exec(ctx, `UPDATE chunks SET superseded_by = ? WHERE superseded_by = ? AND agent_id = ?`, next, id, owner)
	return err
}

// SetContent replaces the agent's chunk's content, hash and vector
// (engine.Tx's, but for the store's own report of a taken content:
// ContentTaken).
func (t Tx) SetContent(ctx context.Context, id, content, hash string, vec, parts []float32) error {
	_, err := t.Q.Exec(ctx, `UPDATE chunks SET content = ?, content_hash = ?, embedding = ?, parts = ?, context_of = NULL
		WHERE id = ? AND agent_id = ?`, content, hash, vector.Encode(vec), partsArg(parts), id, t.Agent)
	return err
}

// ContentTaken is the ECONFLICT of a memory's content already held in
// scope.
func ContentTaken(scope string) error {
	return hippo.Errorf(hippo.ECONFLICT, "a memory with this content already exists in scope %q", scope)
}

// ByID maps chunks by ID.
func ByID(cs []*hippo.Chunk, err error) (map[string]*hippo.Chunk, error) {
	if err != nil {
		return nil, err
	}
	byID := make(map[string]*hippo.Chunk, len(cs))
	for _, c := range cs {
		byID[c.ID] = c
	}
	return byID, nil
}
