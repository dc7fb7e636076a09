package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/vector"
)

// FormatTypeScript names the version-1 export of the TypeScript Hippo CLI,
// which Import also reads: {"version":1,"agentId":"...","blocks":[{"key",
// "scope","updatedAt","value"}],"chunks":[{"id","kind","content",
// "content_hash","embedding_base64","metadata",...}]}. It records no
// embedding model.
const FormatTypeScript = "typescript-v1"

// ImportStore is a store's side of an import: one write transaction and
// the defaults of records that leave a field out.
type ImportStore interface {
	// ImportNow is the time of records that name none.
	ImportNow() time.Time
	// Config is the store's configuration: the running intensity of
	// chunks that name none, and the limits records must keep, the tools'.
	Config() hippo.Config
	// ImportUpdate runs fn in one write transaction, committed when fn
	// returns nil: everything or nothing.
	ImportUpdate(ctx context.Context, fn func(ImportTx) error) error
	// AfterImport is called after a committed import (sqlite: the change
	// log trimmed).
	AfterImport(ctx context.Context)
}

// ImportTx is the write transaction of an import.
type ImportTx interface {
	// ModelLock is the model lock, nil when there is none.
	ModelLock(ctx context.Context) (*hippo.ModelLock, error)
	// DecayModel is the store's decay model.
	DecayModel(ctx context.Context) (hippo.DecayModel, error)
	// LockModel records lock when there is none, else checks it
	// (ECONFLICT).
	LockModel(ctx context.Context, lock hippo.ModelLock) error
	// InsertBlock inserts b unless its agent, scope and key are taken, and
	// reports whether it did.
	InsertBlock(ctx context.Context, b ImportedBlock) (bool, error)
	// InsertChunk inserts c unless its ID is taken or, for a memory, its
	// agent, scope and content hash are. It reports whether it inserted,
	// and if not whether the ID was taken.
	InsertChunk(ctx context.Context, c ImportedChunk) (inserted, dupID bool, err error)
	// InsertInput inserts an input text unless its agent and hash are
	// taken, and only when a chunk of the agent refers to it: it reports
	// whether it did.
	InsertInput(ctx context.Context, in ImportedInput) (bool, error)
	// DropLostContexts drops the context part and link of every
	// follow-up (hippo.Chunk.ContextOf) whose memory is not one of its
	// agent's, or has no text: the file held the follow-up but not what
	// it was read after.
	DropLostContexts(ctx context.Context) error
	// Taken reports whether a chunk has the ID, and whether a memory has
	// the agent, scope and content hash.
	Taken(ctx context.Context, id, agent, scope, hash string) (dupID, dupContent bool, err error)
}

// ImportedBlock is a checked block of an import file.
type ImportedBlock struct {
	AgentID, Scope, Key, Value, Description string
	UpdatedAt                               time.Time
}

// ImportedChunk is a checked chunk of an import file. Empty strings and
// zero times are absent (NULL) values.
type ImportedChunk struct {
	ID, AgentID, Scope string
	Kind               hippo.Kind
	Content            string
	ContentHash        string
	Embedding          []byte // vector.Encode'd
	Parts              []byte // vector.Encode'd parts (hippo.Chunk.Parts), nil for none
	ContextOf          string // hippo.Chunk.ContextOf
	Metadata           string // a JSON object, or ""
	RunningIntensity   float64
	EncounterCount     int64
	AccessCount        int64
	LastAccessedAt     time.Time
	SupersededBy       string
	SupersededAt       time.Time
	CreatedAt          time.Time
	// Suspicious is the trust flag's reason, "" for none.
	Suspicious string
	Provenance hippo.Provenance
}

// ImportedInput is a checked input text of an import file.
type ImportedInput struct {
	AgentID, Hash, Text string
	CreatedAt           time.Time
}

// importInput reads an input text of Hippo's format.
type importInput struct {
	AgentID   string  `json:"agent_id"`
	Hash      string  `json:"hash"`
	Text      *string `json:"text"`
	CreatedAt string  `json:"created_at"`
}

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
	// Suspicious is absent from older files and the TypeScript Hippo's.
	Suspicious *string `json:"suspicious"`
	Origin     *string `json:"origin"`
	Caller     *string `json:"caller"`
	Source     *string `json:"source"`
	InputHash  *string `json:"input_hash"`
	Extractor  *string `json:"extractor"`
	Parts      []byte  `json:"parts_base64"`
	ContextOf  *string `json:"context_of"`
}

// Import reads an export of either format (ExportFormat, FormatTypeScript)
// from r and inserts it in one transaction of s: everything or, on any
// error, nothing. The file is decoded token by token, one record at a
// time. Chunks must match the store's embedding model lock; a store
// without one is locked to the file's. With opts.Reembed, chunks of
// another model are embedded again, in batches, skipping those that would
// be duplicates.
func Import(ctx context.Context, s ImportStore, r io.Reader, opts hippo.ImportOptions) (*hippo.ImportResult, error) {
	if opts.AgentID != "" {
		if err := hippo.ValidateAgentID(opts.AgentID); err != nil {
			return nil, err
		}
	}
	var res *hippo.ImportResult
	err := s.ImportUpdate(ctx, func(tx ImportTx) error {
		cfg := s.Config()
		im := &importer{tx: tx, opts: opts, now: s.ImportNow(), intensity: cfg.DefaultIntensity, cfg: cfg, agents: map[string]bool{},
			res: &hippo.ImportResult{DuplicateIDs: []string{}, DuplicateContent: []string{}, DuplicateBlocks: []hippo.BlockRef{}}}
		if err := im.read(ctx, json.NewDecoder(r)); err != nil {
			return err
		}
		if err := im.flush(ctx); err != nil {
			return err
		}
		if err := im.finish(ctx); err != nil {
			return err
		}
		if err := tx.DropLostContexts(ctx); err != nil {
			return fmt.Errorf("import: drop the context parts of follow-ups whose memory is missing: %w", err)
		}
		res = im.res
		return nil
	})
	if err != nil {
		return nil, err
	}
	s.AfterImport(ctx)
	return res, nil
}

type importer struct {
	tx        ImportTx
	opts      hippo.ImportOptions
	now       time.Time
	intensity float64
	cfg       hippo.Config // its limits are the tools'

	format       string           // "format" field, if seen
	version      int              // "version" field, 0 until seen
	fileAgent    string           // TypeScript "agentId"
	usedFallback bool             // a record took opts.AgentID
	fileModel    *hippo.ModelLock // "embedding_model" field, if seen and not null
	fileDecay    hippo.DecayModel // "decay_model" field, "" (the seed's) when absent
	modelSeen    bool
	decayChecked bool
	dim          int              // dimension of the first chunk
	checked      *hippo.ModelLock // the lock the chunks were checked against
	reembed      bool             // the chunks are embedded with opts.Reembed
	pending      []ImportedChunk
	chunksSeen   int
	agents       map[string]bool
	res          *hippo.ImportResult
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
		case "format", "version", "agentId", "embedding_model", "decay_model":
			err = im.header(ctx, dec, key)
		case "blocks":
			if err := im.checkDecay(ctx); err != nil {
				return err
			}
			err = decodeArray(dec, "blocks", func() error {
				var b importBlock
				if err := dec.Decode(&b); err != nil {
					return badElement("blocks", err)
				}
				return im.block(ctx, b)
			})
		case "chunks":
			if err := im.checkDecay(ctx); err != nil {
				return err
			}
			err = decodeArray(dec, "chunks", func() error {
				var c importChunk
				if err := dec.Decode(&c); err != nil {
					return badElement("chunks", err)
				}
				return im.chunk(ctx, c)
			})
		case "inputs":
			err = decodeArray(dec, "inputs", func() error {
				var in importInput
				if err := dec.Decode(&in); err != nil {
					return badElement("inputs", err)
				}
				return im.input(ctx, in)
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

// header reads the top-level field key, one that describes the file
// rather than holds records, and checks it against the import so far.
func (im *importer) header(ctx context.Context, dec *json.Decoder, key string) error {
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
	case "decay_model":
		var name string
		if err := dec.Decode(&name); err != nil {
			return notExport(err)
		}
		m, err := hippo.ParseDecayModel(name)
		if err != nil {
			return hippo.Errorf(hippo.EINVALID, "the file names an unknown decay model %q", name)
		}
		im.fileDecay = m
		im.decayChecked = false // records before it were checked as the seed's: the transaction fails on a mismatch
		if err := im.checkDecay(ctx); err != nil {
			return err
		}
	}
	return nil
}

// checkDecay refuses a file written under another decay model than the
// store's: its strengths would mean something else here. A file without
// decay_model was written under the seed's model.
func (im *importer) checkDecay(ctx context.Context) error {
	if im.decayChecked {
		return nil
	}
	im.decayChecked = true
	have, err := im.tx.DecayModel(ctx)
	if err != nil {
		return err
	}
	file := im.fileDecay
	if file == "" {
		file = hippo.DecayHippo
	}
	if have == "" {
		have = hippo.DecayHippo
	}
	if file != have {
		return hippo.Errorf(hippo.ECONFLICT, "the file was exported under the %s decay model, but this database decays by %s: "+
			"import it into a database created with `hippo init --decay %s` (or switch this one with it)", file, have, file)
	}
	return nil
}

// finish checks what only the whole file tells and fills in the result.
func (im *importer) finish(ctx context.Context) error {
	if im.version == 0 {
		return hippo.Errorf(hippo.EINVALID, "not a Hippo export: no \"version\" field")
	}
	if err := im.checkDecay(ctx); err != nil {
		return err
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
		lock, err := im.tx.ModelLock(ctx)
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
	lock, err := im.tx.ModelLock(ctx)
	if err != nil {
		return err
	}
	if e := im.opts.Reembed; e != nil {
		got := hippo.ModelLock{Model: e.Model(), Dimension: e.Dimension()}
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
			return modelMismatch(*lock, hippo.ModelLock{Dimension: im.dim})
		}
	case lock != nil:
		if lock.Model != model || lock.Dimension != im.dim {
			return modelMismatch(*lock, hippo.ModelLock{Model: model, Dimension: im.dim})
		}
	case model == "":
		return hippo.Errorf(hippo.EINVALID, "the file does not name its embedding model and the database has none: "+
			"give the model that made its %d-dimension vectors (--model), or re-embed them (--reembed)", im.dim)
	default:
		if err := im.tx.LockModel(ctx, hippo.ModelLock{Model: model, Dimension: im.dim}); err != nil {
			return err
		}
	}
	im.checked = &hippo.ModelLock{Model: model, Dimension: im.dim}
	return nil
}

func modelMismatch(lock, got hippo.ModelLock) error {
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
	if n := utf8.RuneCountInString(*b.Value); n > im.cfg.MaxBlockValue {
		return hippo.Errorf(hippo.EINVALID, "block %q: the value must be at most %d characters, got %d", b.Key, im.cfg.MaxBlockValue, n)
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
	inserted, err := im.tx.InsertBlock(ctx, ImportedBlock{AgentID: agent, Scope: scope, Key: b.Key,
		Value: *b.Value, Description: b.Description, UpdatedAt: at})
	if err != nil {
		return fmt.Errorf("import block %q: %w", b.Key, err)
	}
	if !inserted {
		im.res.DuplicateBlocks = append(im.res.DuplicateBlocks, hippo.BlockRef{AgentID: agent, Scope: scope, Key: b.Key})
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
	if err := hippo.ValidateChunkID("id", in.ID); err != nil {
		return hippo.Errorf(hippo.EINVALID, "chunk #%d: %v", im.chunksSeen, err) // not quoted: it may be anything
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
	// The tools' limit, checked first: a 10 MB record costs minutes in
	// the checks that follow.
	if n := utf8.RuneCountInString(*in.Content); n > im.cfg.MaxContent {
		return bad("content must be at most %d characters, got %d", im.cfg.MaxContent, n)
	}
	// A memory's hash is what dedup keys on, derived from the content. A
	// SHA-256 in the file must be the content's (in either case): else the
	// content or the hash was changed. Another value (another algorithm)
	// is not kept for a memory, whose hash is computed.
	hash := deref(in.ContentHash)
	if h := strings.ToLower(hash); isHash(h) {
		if h != hippo.ContentHash(*in.Content) {
			return bad("content_hash is not the SHA-256 of the content: the file was changed or damaged")
		}
		hash = h
	}
	if kind == hippo.KindMemory {
		hash = hippo.ContentHash(*in.Content)
	}
	if sup := deref(in.SupersededBy); sup != "" {
		if err := hippo.ValidateChunkID("superseded_by", sup); err != nil {
			return bad("%v", err)
		}
	}
	if err := im.checkEmbedding(ctx, in.Embedding, bad); err != nil {
		return err
	}
	c := ImportedChunk{ID: in.ID, AgentID: agent, Scope: scope, Kind: kind, Content: *in.Content,
		ContentHash: hash, Embedding: in.Embedding}
	if err := im.values(&c, in, bad); err != nil {
		return err
	}
	if c.ContextOf = deref(in.ContextOf); c.ContextOf != "" {
		if err := hippo.ValidateChunkID("context_of", c.ContextOf); err != nil {
			return bad("%v", err)
		}
		if len(in.Parts) == 0 {
			return bad("context_of names the memory its last part was read after, but it has no parts")
		}
	}
	if len(in.Parts) > 0 {
		if err := im.checkParts(in.Parts, c, bad); err != nil {
			return err
		}
		c.Parts = in.Parts
	}
	if !im.reembed {
		_, err := im.insert(ctx, c)
		return err
	}
	return im.queue(ctx, c)
}

// checkParts checks a record's parts: whole vectors of the embedding's
// dimension, at most maxParts, finite, of a memory (not a fact).
func (im *importer) checkParts(parts []byte, c ImportedChunk, bad func(string, ...any) error) error {
	if c.Kind != hippo.KindMemory {
		return bad("parts_base64: only a memory has parts, not a %s", c.Kind)
	}
	v, err := vector.Decode(nil, parts)
	if err == nil && (im.dim == 0 || len(v)%im.dim != 0 || len(v)/im.dim > maxParts) {
		err = fmt.Errorf("%d floats are not 1 to %d vectors of %d dimensions", len(v), maxParts, im.dim)
	}
	if err == nil {
		err = hippo.CheckVector(v)
	}
	if err != nil {
		return bad("parts_base64: %v", err)
	}
	return nil
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

// values checks a record's metadata, strength and times and sets them
// in c.
func (im *importer) values(c *ImportedChunk, in importChunk, bad func(string, ...any) error) error {
	meta, err := importMetadata(in.Metadata)
	if err != nil {
		return bad("%v", err)
	}
	if _, err := hippo.ValidateMetadata(json.RawMessage(meta)); err != nil {
		return bad("%v", err)
	}
	intensity := im.intensity
	if in.RunningIntensity != nil {
		intensity = *in.RunningIntensity
	}
	if !(intensity >= 0 && intensity <= 1) {
		return bad("running_intensity %v is outside [0, 1]", intensity)
	}
	encounters, access := int64(1), int64(0)
	if in.EncounterCount != nil {
		encounters = *in.EncounterCount
	}
	if in.AccessCount != nil {
		access = *in.AccessCount
	}
	if encounters < 0 || access < 0 {
		return bad("negative encounter_count or access_count")
	}
	created, err := importTime(deref(in.CreatedAt), im.now)
	if err != nil {
		return bad("created_at: %v", err)
	}
	last, err := importTime(deref(in.LastAccessedAt), created)
	if err != nil {
		return bad("last_accessed_at: %v", err)
	}
	if s := deref(in.SupersededAt); s != "" {
		if c.SupersededAt, err = importTime(s, time.Time{}); err != nil {
			return bad("superseded_at: %v", err)
		}
	}
	c.Metadata, c.RunningIntensity, c.EncounterCount, c.AccessCount = meta, intensity, encounters, access
	c.LastAccessedAt, c.SupersededBy, c.CreatedAt = last, deref(in.SupersededBy), created
	return im.provenance(c, in, bad)
}

// provenance checks a record's provenance and trust flag and sets them in
// c. A record without provenance (an older export, the TypeScript
// Hippo's) is recorded as imported. Every record's content is checked
// (flagChunk), as at any write: the flag is the file's reason, else the check's.
// An import never clears a flag, so a crafted file cannot vouch for an
// instruction; a chunk a person trusted is flagged again, to be trusted
// again in the database it went to.
func (im *importer) provenance(c *ImportedChunk, in importChunk, bad func(string, ...any) error) error {
	p := hippo.Provenance{Origin: deref(in.Origin), Caller: deref(in.Caller), Source: deref(in.Source),
		InputHash: deref(in.InputHash), Extractor: deref(in.Extractor)}
	if err := hippo.ValidateOrigin("origin", p.Origin); err != nil {
		return bad("%v", err)
	}
	if err := hippo.ValidateOrigin("caller", p.Caller); err != nil {
		return bad("%v", err)
	}
	if err := hippo.ValidateOrigin("extractor", p.Extractor); err != nil {
		return bad("%v", err)
	}
	if err := hippo.ValidateSource(p.Source); err != nil {
		return bad("%v", err)
	}
	if p.InputHash != "" && !isHash(p.InputHash) {
		return bad("input_hash must be 64 lowercase hex digits, got %q", p.InputHash)
	}
	if p.Origin == "" {
		p.Origin = hippo.OriginImport
	}
	c.Provenance = p
	reason := deref(in.Suspicious)
	if len(reason) > maxReason || !utf8.ValidString(reason) {
		return bad("suspicious must be valid UTF-8 of at most %d bytes", maxReason)
	}
	if reason == "" {
		ch := hippo.Chunk{Content: c.Content}
		flagChunk(&ch)
		reason = ch.SuspiciousReason
	}
	c.Suspicious = reason
	return nil
}

// maxReason bounds a trust flag's reason read from a file.
const maxReason = 1000

// maxInputBytes bounds the text facts were extracted from: the most the
// CLI reads from standard input.
const maxInputBytes = 1 << 20

// input checks an input record and inserts it, when an imported chunk
// of its agent refers to it.
func (im *importer) input(ctx context.Context, in importInput) error {
	bad := func(format string, args ...any) error {
		return hippo.Errorf(hippo.EINVALID, "input %s: %s", in.Hash, fmt.Sprintf(format, args...))
	}
	agent, err := im.agent(in.AgentID)
	if err != nil {
		return err
	}
	if in.Text == nil || !utf8.ValidString(*in.Text) {
		return bad("no text, or not valid UTF-8")
	}
	if len(*in.Text) > maxInputBytes {
		return bad("text must be at most %d bytes, got %d", maxInputBytes, len(*in.Text))
	}
	if hippo.ContentHash(*in.Text) != in.Hash {
		return bad("hash is not the SHA-256 of the text")
	}
	at, err := importTime(in.CreatedAt, im.now)
	if err != nil {
		return bad("created_at: %v", err)
	}
	// Chunks queued for re-embedding go in first: the input is kept only
	// for a chunk that refers to it.
	if err := im.flush(ctx); err != nil {
		return err
	}
	inserted, err := im.tx.InsertInput(ctx, ImportedInput{AgentID: agent, Hash: in.Hash, Text: *in.Text, CreatedAt: at})
	if err != nil {
		return err
	}
	if inserted {
		im.res.Inputs++
	}
	return nil
}

// isHash reports whether s is a hex SHA-256 as hippo.ContentHash writes it.
func isHash(s string) bool {
	if len(s) != 64 {
		return false
	}
	for _, r := range s {
		if !('0' <= r && r <= '9' || 'a' <= r && r <= 'f') {
			return false
		}
	}
	return true
}

// queue keeps a record for re-embedding, unless its ID or, for a memory,
// its content is taken already: no embedding is paid for a record that
// would be skipped.
func (im *importer) queue(ctx context.Context, c ImportedChunk) error {
	dupID, dupContent, err := im.tx.Taken(ctx, c.ID, c.AgentID, c.Scope, c.ContentHash)
	if err != nil {
		return err
	}
	switch {
	case dupID:
		im.res.DuplicateIDs = append(im.res.DuplicateIDs, c.ID)
	case dupContent && c.Kind == hippo.KindMemory:
		im.res.DuplicateContent = append(im.res.DuplicateContent, c.ID)
	default:
		im.pending = append(im.pending, c)
		if len(im.pending) >= hippo.DefaultReembedBatch {
			return im.flush(ctx)
		}
	}
	return nil
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
		texts[i] = p.Content
	}
	dim := 0
	if im.checked != nil {
		dim = im.checked.Dimension
	}
	// A memory's parts are embedded again too, in the same call: the
	// file's are of the other model.
	vecs, parts, err := embedParts(ctx, e, im.cfg, texts, dim, func(i int) bool {
		return im.pending[i].Kind == hippo.KindMemory
	}, nil)
	if err != nil {
		return err
	}
	for i, p := range parts {
		// A follow-up's context part is not made again: the memory it was
		// read after may not be in the file.
		im.pending[i].Parts, im.pending[i].ContextOf = nil, ""
		if p != nil {
			im.pending[i].Parts = vector.Encode(p)
		}
	}
	if im.checked == nil {
		if err := im.tx.LockModel(ctx, hippo.ModelLock{Model: e.Model(), Dimension: len(vecs[0])}); err != nil {
			return err
		}
		im.checked = &hippo.ModelLock{Model: e.Model(), Dimension: len(vecs[0])}
	}
	for i, p := range im.pending {
		p.Embedding = vector.Encode(vecs[i])
		inserted, err := im.insert(ctx, p)
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
func (im *importer) insert(ctx context.Context, c ImportedChunk) (bool, error) {
	inserted, dupID, err := im.tx.InsertChunk(ctx, c)
	switch {
	case err != nil:
		return false, err
	case inserted:
		im.res.Chunks++
	case dupID:
		im.res.DuplicateIDs = append(im.res.DuplicateIDs, c.ID)
	default:
		im.res.DuplicateContent = append(im.res.DuplicateContent, c.ID)
	}
	return inserted, nil
}

// importMetadata accepts metadata as null, a JSON object, or a string
// holding one (how the TypeScript export writes the column), and returns
// the text to store ("" for none).
func importMetadata(raw json.RawMessage) (string, error) {
	s := strings.TrimSpace(string(raw))
	if s == "" || s == "null" {
		return "", nil
	}
	if s[0] == '"' {
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", err
		}
		if s == "" {
			return "", nil
		}
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal([]byte(s), &obj); err != nil || obj == nil {
		return "", fmt.Errorf("metadata must be a JSON object")
	}
	return s, nil
}

// importTime parses an exported timestamp; "" means def. Besides Hippo's
// own layout (exportTimeLayout) it reads RFC 3339 and SQLite's
// "YYYY-MM-DD HH:MM:SS".
func importTime(s string, def time.Time) (time.Time, error) {
	if s == "" {
		if def.IsZero() {
			return time.Time{}, fmt.Errorf("missing timestamp")
		}
		return def, nil
	}
	if t, err := time.Parse(exportTimeLayout, s); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t.UTC(), nil
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
