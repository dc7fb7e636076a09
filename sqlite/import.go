package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/vector"
)

// ImportOptions is hippo.ImportOptions.
type ImportOptions = hippo.ImportOptions

// BlockRef is hippo.BlockRef.
type BlockRef = hippo.BlockRef

// ImportResult is hippo.ImportResult.
type ImportResult = hippo.ImportResult

// importBlock reads a block of either format.
type importBlock struct {
	AgentID     string  `json:"agent_id"`
	Scope       *string `json:"scope"`
	Key         string  `json:"key"`
	Value       *string `json:"value"`
	Description string  `json:"description"`
	UpdatedAt   string  `json:"updated_at"`
	UpdatedAtTS string  `json:"updatedAt"`
}

// importChunk reads a chunk of either format.
type importChunk struct {
	ID               string          `json:"id"`
	AgentID          string          `json:"agent_id"`
	Scope            *string         `json:"scope"`
	Kind             string          `json:"kind"`
	Content          *string         `json:"content"`
	ContentHash      *string         `json:"content_hash"`
	Embedding        []byte          `json:"embedding_base64"`
	Metadata         json.RawMessage `json:"metadata"`
	RunningIntensity *float64        `json:"running_intensity"`
	EncounterCount   *int64          `json:"encounter_count"`
	AccessCount      *int64          `json:"access_count"`
	LastAccessedAt   *string         `json:"last_accessed_at"`
	SupersededBy     *string         `json:"superseded_by"`
	SupersededAt     *string         `json:"superseded_at"`
	CreatedAt        *string         `json:"created_at"`
}

// Import reads an export of either format from r and inserts it in one
// transaction: everything or, on any error, nothing. The file is decoded
// token by token, one record at a time. Chunks must match the database's
// embedding model lock; a database without one is locked to the file's.
func (db *DB) Import(ctx context.Context, r io.Reader, opts ImportOptions) (*ImportResult, error) {
	if opts.AgentID != "" {
		if err := hippo.ValidateAgentID(opts.AgentID); err != nil {
			return nil, err
		}
	}
	tx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	im := &importer{db: db, tx: tx, opts: opts, now: db.now(), agents: map[string]bool{},
		res: &ImportResult{DuplicateIDs: []string{}, DuplicateContent: []string{}, DuplicateBlocks: []BlockRef{}}}
	if im.insertChunk, err = tx.PrepareContext(ctx, `INSERT INTO chunks (`+chunkColumns+`)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`); err != nil {
		return nil, err
	}
	defer im.insertChunk.Close()
	if im.bulk, err = startBulkLog(ctx, tx); err != nil {
		return nil, err
	}
	if im.insertBlock, err = tx.PrepareContext(ctx, `INSERT INTO memory_blocks
		(agent_id, scope, key, value, description, updated_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`); err != nil {
		return nil, err
	}
	defer im.insertBlock.Close()

	if err := im.read(ctx, json.NewDecoder(r)); err != nil {
		return nil, err
	}
	if err := im.flush(ctx); err != nil {
		return nil, err
	}
	if err := im.finish(ctx); err != nil {
		return nil, err
	}
	if err := im.bulk.finish(ctx); err != nil {
		return nil, err
	}
	if err := tx.Commit(); err != nil {
		return nil, err
	}
	// A bulk import logs a change per chunk: trim the log now rather
	// than after the next thousand recalls.
	_ = db.pruneChanges(ctx, changeLogKeep)
	return im.res, nil
}

type importer struct {
	db                       *DB
	tx                       *sql.Tx
	opts                     ImportOptions
	now                      time.Time
	insertChunk, insertBlock *sql.Stmt
	bulk                     *bulkLog

	format       string     // "format" field, if seen
	version      int        // "version" field, 0 until seen
	fileAgent    string     // TypeScript "agentId"
	usedFallback bool       // a record took opts.AgentID
	fileModel    *ModelLock // "embedding_model" field, if seen and not null
	modelSeen    bool
	dim          int        // dimension of the first chunk
	checked      *ModelLock // the lock the chunks were checked against
	reembed      bool       // the chunks are embedded with opts.Reembed
	pending      []pendingChunk
	chunksSeen   int
	agents       map[string]bool
	res          *ImportResult
}

// read walks the top-level object, streaming the blocks and chunks arrays.
func (im *importer) read(ctx context.Context, dec *json.Decoder) error {
	if err := expectDelim(dec, '{'); err != nil {
		return notExport(err)
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return notExport(err)
		}
		key, _ := tok.(string)
		switch key {
		case "format":
			if err := dec.Decode(&im.format); err != nil {
				return notExport(err)
			}
			if im.format != ExportFormat {
				return hippo.Errorf(hippo.EINVALID, "unknown export format %q (want %q)", im.format, ExportFormat)
			}
		case "version":
			if err := dec.Decode(&im.version); err != nil {
				return notExport(err)
			}
			if im.version != 1 {
				return hippo.Errorf(hippo.EINVALID, "unsupported export version %d (this Hippo reads version 1)", im.version)
			}
		case "agentId":
			if err := dec.Decode(&im.fileAgent); err != nil {
				return notExport(err)
			}
			if err := hippo.ValidateAgentID(im.fileAgent); err != nil {
				return err
			}
			if im.usedFallback && im.fileAgent != im.opts.AgentID {
				return hippo.Errorf(hippo.EINVALID, "the file's agentId %q comes after records already given agent %q",
					im.fileAgent, im.opts.AgentID)
			}
		case "embedding_model":
			if err := dec.Decode(&im.fileModel); err != nil {
				return notExport(err)
			}
			im.modelSeen = true
			if im.fileModel != nil && im.fileModel.Model == "" {
				return hippo.Errorf(hippo.EINVALID, "embedding_model.model must not be empty")
			}
		case "blocks":
			err = decodeArray(dec, "blocks", func() error {
				var b importBlock
				if err := dec.Decode(&b); err != nil {
					return badElement("blocks", err)
				}
				return im.block(ctx, b)
			})
		case "chunks":
			err = decodeArray(dec, "chunks", func() error {
				var c importChunk
				if err := dec.Decode(&c); err != nil {
					return badElement("chunks", err)
				}
				return im.chunk(ctx, c)
			})
		default: // unknown fields are ignored, for files from newer versions
			var skip json.RawMessage
			err = notExport(dec.Decode(&skip))
		}
		if err != nil {
			return err
		}
	}
	if err := expectDelim(dec, '}'); err != nil {
		return notExport(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return hippo.Errorf(hippo.EINVALID, "import: unexpected data after the export object")
	}
	return nil
}

// finish checks what only the whole file tells and fills in the result.
func (im *importer) finish(ctx context.Context) error {
	if im.version == 0 {
		return hippo.Errorf(hippo.EINVALID, "not a Hippo export: no \"version\" field")
	}
	im.res.Format = ExportFormat
	if im.format == "" {
		im.res.Format = FormatTypeScript
	}
	if im.chunksSeen > 0 {
		if err := im.checkModel(ctx); err != nil {
			return err
		}
		if im.fileModel != nil && !im.reembed && im.checked.Model != im.fileModel.Model {
			return hippo.Errorf(hippo.EINVALID, "the file names embedding model %q after chunks checked against %q",
				im.fileModel.Model, im.checked.Model)
		}
	}
	// The lock checked (and maybe recorded) in this transaction, else the
	// database's.
	im.res.EmbeddingModel = im.checked
	if im.checked == nil {
		lock, err := im.db.readLock(ctx, im.tx)
		if err != nil {
			return err
		}
		im.res.EmbeddingModel = lock
	}
	im.res.Agents = make([]string, 0, len(im.agents))
	for a := range im.agents {
		im.res.Agents = append(im.res.Agents, a)
	}
	sort.Strings(im.res.Agents)
	im.res.Duplicates = len(im.res.DuplicateIDs) + len(im.res.DuplicateContent) + len(im.res.DuplicateBlocks)
	return nil
}

// checkModel checks the chunks' model and dimension against the database's
// lock once, recording the lock when there is none.
func (im *importer) checkModel(ctx context.Context) error {
	if im.checked != nil || im.reembed {
		return nil
	}
	model := im.opts.Model
	if im.fileModel != nil {
		if model != "" && model != im.fileModel.Model {
			return hippo.Errorf(hippo.EINVALID, "the file was exported with embedding model %q, not %q", im.fileModel.Model, model)
		}
		if im.fileModel.Dimension != im.dim {
			return hippo.Errorf(hippo.EINVALID, "the file declares %d dimensions but its chunks have %d", im.fileModel.Dimension, im.dim)
		}
		model = im.fileModel.Model
	}
	lock, err := im.db.readLock(ctx, im.tx)
	if err != nil {
		return err
	}
	if e := im.opts.Reembed; e != nil {
		got := ModelLock{Model: e.Model(), Dimension: e.Dimension()}
		want := got
		if lock != nil {
			want = *lock
		}
		// Vectors of the wanted model go in as they are.
		if model != want.Model || want.Dimension > 0 && want.Dimension != im.dim {
			if lock != nil && (got.Model != lock.Model || got.Dimension > 0 && got.Dimension != lock.Dimension) {
				return hippo.Errorf(hippo.ECONFLICT, "cannot re-embed the file with %s: this database is locked to %s; "+
					"configure that model, or re-embed the database first", got, *lock)
			}
			im.reembed = true
			return nil
		}
	}
	switch {
	case lock != nil && model == "":
		// A file naming no model goes into a locked database when the
		// dimensions agree: the caller vouches for the model.
		model = lock.Model
		if lock.Dimension != im.dim {
			return modelMismatch(*lock, ModelLock{Dimension: im.dim})
		}
	case lock != nil:
		if lock.Model != model || lock.Dimension != im.dim {
			return modelMismatch(*lock, ModelLock{Model: model, Dimension: im.dim})
		}
	case model == "":
		return hippo.Errorf(hippo.EINVALID, "the file does not name its embedding model and the database has none: "+
			"give the model that made its %d-dimension vectors (--model), or re-embed them (--reembed)", im.dim)
	default:
		if err := im.db.lockModelTx(ctx, im.tx, model, im.dim); err != nil {
			return err
		}
	}
	im.checked = &ModelLock{Model: model, Dimension: im.dim}
	return nil
}

func modelMismatch(lock, got ModelLock) error {
	what := fmt.Sprintf("%d-dimension vectors", got.Dimension)
	if got.Model != "" {
		what = got.String()
	}
	return hippo.Errorf(hippo.ECONFLICT, "embedding model mismatch: this database is locked to %s, the file holds %s; "+
		"import into a database of that model, or re-embed the file's chunks (--reembed)", lock, what)
}

// agent resolves a record's agent: its own, the file's, or the option's.
func (im *importer) agent(own string) (string, error) {
	a := own
	if a == "" {
		a = im.fileAgent
	}
	if a == "" && im.opts.AgentID != "" {
		a = im.opts.AgentID
		im.usedFallback = true
	}
	if a == "" {
		return "", hippo.Errorf(hippo.EINVALID, "a record names no agent and the file's agentId is missing or comes after it: give one (--agent)")
	}
	if err := hippo.ValidateAgentID(a); err != nil {
		return "", err
	}
	im.agents[a] = true
	return a, nil
}

func (im *importer) block(ctx context.Context, b importBlock) error {
	agent, err := im.agent(b.AgentID)
	if err != nil {
		return err
	}
	scope := deref(b.Scope)
	if err := hippo.ValidateScope(scope); err != nil {
		return err
	}
	if err := hippo.ValidateBlockKey(b.Key); err != nil {
		return err
	}
	if b.Value == nil {
		return hippo.Errorf(hippo.EINVALID, "block %q has no value", b.Key)
	}
	updated := b.UpdatedAt
	if updated == "" {
		updated = b.UpdatedAtTS
	}
	at, err := importTime(updated, im.now)
	if err != nil {
		return hippo.Errorf(hippo.EINVALID, "block %q: %v", b.Key, err)
	}
	if err := hippo.ValidateDescription(b.Description); err != nil {
		return hippo.Errorf(hippo.EINVALID, "block %q: %v", b.Key, err)
	}
	res, err := im.insertBlock.ExecContext(ctx, agent, scope, b.Key, *b.Value, b.Description, formatTime(at))
	if err != nil {
		return fmt.Errorf("import block %q: %w", b.Key, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		im.res.DuplicateBlocks = append(im.res.DuplicateBlocks, BlockRef{AgentID: agent, Scope: scope, Key: b.Key})
		return nil
	}
	im.res.Blocks++
	return nil
}

func (im *importer) chunk(ctx context.Context, in importChunk) error {
	im.chunksSeen++
	if strings.TrimSpace(in.ID) == "" {
		return hippo.Errorf(hippo.EINVALID, "chunk #%d has no id", im.chunksSeen)
	}
	bad := func(format string, args ...any) error {
		return hippo.Errorf(hippo.EINVALID, "chunk %s: %s", in.ID, fmt.Sprintf(format, args...))
	}
	agent, err := im.agent(in.AgentID)
	if err != nil {
		return err
	}
	scope := deref(in.Scope)
	if err := hippo.ValidateScope(scope); err != nil {
		return bad("%v", err)
	}
	kind := hippo.Kind(in.Kind)
	if !kind.Valid() {
		return bad("kind must be %q or %q, got %q", hippo.KindFact, hippo.KindMemory, in.Kind)
	}
	if in.Content == nil {
		return bad("no content")
	}
	hash := deref(in.ContentHash)
	if kind == hippo.KindMemory {
		// Derived from the content, and what dedup keys on: a file's
		// own value (another algorithm, another case) is not kept.
		hash = ContentHash(*in.Content)
	}
	if err := im.checkEmbedding(ctx, in.Embedding, bad); err != nil {
		return err
	}
	values, err := im.values(in, bad)
	if err != nil {
		return err
	}
	args := append([]any{in.ID, agent, scope, string(kind), *in.Content, nullIfEmpty(hash), in.Embedding}, values...)
	if !im.reembed {
		_, err := im.insert(ctx, in.ID, args)
		return err
	}
	return im.queue(ctx, in.ID, *in.Content, kind, agent, scope, hash, args)
}

// checkEmbedding checks a record's embedding: valid, of the first
// record's dimension, and, with the first record, of the model lock's.
func (im *importer) checkEmbedding(ctx context.Context, embedding []byte, bad func(string, ...any) error) error {
	vec, err := vector.Decode(nil, embedding)
	if err == nil {
		err = hippo.CheckVector(vec)
	}
	if err != nil {
		return bad("embedding: %v", err)
	}
	if im.dim == 0 {
		im.dim = len(vec)
		// Check the model before inserting anything, unless the file may
		// still name it further on (it is checked again at the end). A
		// re-embedding import decides now: a model named later cannot
		// spare the embedding any more.
		if im.modelSeen || im.format == "" || im.opts.Reembed != nil {
			return im.checkModel(ctx)
		}
	} else if len(vec) != im.dim {
		return bad("embedding has %d dimensions, the first chunk %d", len(vec), im.dim)
	}
	return nil
}

// values checks a record's metadata, strength and times and returns them
// as the chunks columns after embedding: metadata, running_intensity,
// encounter_count, access_count, last_accessed_at, superseded_by,
// superseded_at, created_at.
func (im *importer) values(in importChunk, bad func(string, ...any) error) ([]any, error) {
	meta, err := importMetadata(in.Metadata)
	if err != nil {
		return nil, bad("%v", err)
	}
	intensity := im.db.cfg.DefaultIntensity
	if in.RunningIntensity != nil {
		intensity = *in.RunningIntensity
	}
	if !(intensity >= 0 && intensity <= 1) {
		return nil, bad("running_intensity %v is outside [0, 1]", intensity)
	}
	encounters, access := int64(1), int64(0)
	if in.EncounterCount != nil {
		encounters = *in.EncounterCount
	}
	if in.AccessCount != nil {
		access = *in.AccessCount
	}
	if encounters < 0 || access < 0 {
		return nil, bad("negative encounter_count or access_count")
	}
	created, err := importTime(deref(in.CreatedAt), im.now)
	if err != nil {
		return nil, bad("created_at: %v", err)
	}
	last, err := importTime(deref(in.LastAccessedAt), created)
	if err != nil {
		return nil, bad("last_accessed_at: %v", err)
	}
	var supAt any
	if s := deref(in.SupersededAt); s != "" {
		t, err := importTime(s, time.Time{})
		if err != nil {
			return nil, bad("superseded_at: %v", err)
		}
		supAt = formatTime(t)
	}
	return []any{meta, intensity, encounters, access, formatTime(last),
		nullIfEmpty(deref(in.SupersededBy)), supAt, formatTime(created)}, nil
}

// queue keeps a record for re-embedding, unless its ID or, for a memory,
// its content is taken already: no embedding is paid for a record that
// would be skipped.
func (im *importer) queue(ctx context.Context, id, content string, kind hippo.Kind, agent, scope, hash string, args []any) error {
	var dupID, dupContent bool
	if err := im.tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM chunks WHERE id = ?),
		EXISTS (SELECT 1 FROM chunks WHERE `+sameMemory+`)`,
		id, agent, scope, hash, hash).Scan(&dupID, &dupContent); err != nil {
		return err
	}
	switch {
	case dupID:
		im.res.DuplicateIDs = append(im.res.DuplicateIDs, id)
	case dupContent && kind == hippo.KindMemory:
		im.res.DuplicateContent = append(im.res.DuplicateContent, id)
	default:
		im.pending = append(im.pending, pendingChunk{id: id, content: content, args: args})
		if len(im.pending) >= DefaultReembedBatch {
			return im.flush(ctx)
		}
	}
	return nil
}

// pendingChunk is a chunk waiting for its new embedding: args are the
// insert's, the embedding at embeddingArg.
type pendingChunk struct {
	id, content string
	args        []any
}

// flush embeds the pending chunks with one call and inserts them. The
// first flush records the embedder's model as the lock of a database with
// none, or checks it against the lock.
func (im *importer) flush(ctx context.Context) error {
	if len(im.pending) == 0 {
		return nil
	}
	e := im.opts.Reembed
	texts := make([]string, len(im.pending))
	for i, p := range im.pending {
		texts[i] = p.content
	}
	dim := 0
	if im.checked != nil {
		dim = im.checked.Dimension
	}
	vecs, err := hippo.Embed(ctx, e, texts, dim)
	if err != nil {
		return err
	}
	if im.checked == nil {
		if err := im.db.lockModelTx(ctx, im.tx, e.Model(), len(vecs[0])); err != nil {
			return err
		}
		im.checked = &ModelLock{Model: e.Model(), Dimension: len(vecs[0])}
	}
	for i, p := range im.pending {
		p.args[embeddingArg] = vector.Encode(vecs[i])
		inserted, err := im.insert(ctx, p.id, p.args)
		if err != nil {
			return err
		}
		if inserted {
			im.res.Reembedded++
		}
	}
	im.pending = im.pending[:0]
	return nil
}

// insert inserts a chunk, or records why it was skipped.
func (im *importer) insert(ctx context.Context, id string, args []any) (bool, error) {
	res, err := im.insertChunk.ExecContext(ctx, args...)
	if err != nil {
		return false, fmt.Errorf("import chunk %s: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n > 0 {
		im.res.Chunks++
		return true, im.bulk.added(ctx)
	}
	var exists int
	if err := im.tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM chunks WHERE id = ?`, id).Scan(&exists); err != nil {
		return false, err
	}
	if exists > 0 {
		im.res.DuplicateIDs = append(im.res.DuplicateIDs, id)
	} else {
		im.res.DuplicateContent = append(im.res.DuplicateContent, id)
	}
	return false, nil
}

// importMetadata accepts metadata as null, a JSON object, or a string
// holding one (how the TypeScript export writes the column), and returns
// the text to store (nil for none).
func importMetadata(raw json.RawMessage) (any, error) {
	s := strings.TrimSpace(string(raw))
	if s == "" || s == "null" {
		return nil, nil
	}
	if s[0] == '"' {
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, err
		}
		if s == "" {
			return nil, nil
		}
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal([]byte(s), &obj); err != nil || obj == nil {
		return nil, fmt.Errorf("metadata must be a JSON object")
	}
	return s, nil
}

// importTime parses an exported timestamp; "" means def. Besides Hippo's
// own layout it reads RFC 3339 and SQLite's "YYYY-MM-DD HH:MM:SS".
func importTime(s string, def time.Time) (time.Time, error) {
	if s == "" {
		if def.IsZero() {
			return time.Time{}, fmt.Errorf("missing timestamp")
		}
		return def, nil
	}
	if t, err := parseTime(s); err == nil {
		return t, nil
	}
	for _, layout := range []string{"2006-01-02 15:04:05.999999999", "2006-01-02T15:04:05.999999999"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("bad timestamp %q", s)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func expectDelim(dec *json.Decoder, want json.Delim) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != want {
		return fmt.Errorf("expected %q, got %v", want, tok)
	}
	return nil
}

// decodeArray calls each for every element of the array (or null) next in
// dec.
func decodeArray(dec *json.Decoder, name string, each func() error) error {
	tok, err := dec.Token()
	if err != nil {
		return notExport(err)
	}
	if tok == nil {
		return nil
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return hippo.Errorf(hippo.EINVALID, "import: %q must be an array", name)
	}
	for dec.More() {
		if err := each(); err != nil {
			return err
		}
	}
	_, err = dec.Token() // ']'
	return notExport(err)
}

func badElement(array string, err error) error {
	return hippo.Errorf(hippo.EINVALID, "not a valid Hippo export: bad element in %q: %v", array, err)
}

func notExport(err error) error {
	if err == nil {
		return nil
	}
	return hippo.Errorf(hippo.EINVALID, "not a valid Hippo export: %v", err)
}
