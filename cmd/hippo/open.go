package main

import (
	"context"
	"os"
	"path/filepath"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/dsn"
	"github.com/hippo-mem/hippo/postgres"
	"github.com/hippo-mem/hippo/sqlite"
)

// database is what the CLI needs of a store: hippo's interfaces, so that
// no command names a backend's type.
type database interface {
	hippo.Store
	hippo.Admin
	hippo.Exporter
	hippo.Importer
	hippo.Reembedder
}

// defaultDBPath is $HIPPO_DB, else $XDG_DATA_HOME/hippo/hippo.db, else
// ~/.local/share/hippo/hippo.db.
func defaultDBPath() string {
	if p := os.Getenv("HIPPO_DB"); p != "" {
		return p
	}
	dir := os.Getenv("XDG_DATA_HOME")
	if dir == "" || !filepath.IsAbs(dir) {
		home, err := os.UserHomeDir()
		if err != nil {
			return filepath.Join(".", "hippo.db")
		}
		dir = filepath.Join(home, ".local", "share")
	}
	return filepath.Join(dir, "hippo", "hippo.db")
}

// openDB opens the database named by the flags; in existingDB mode a
// missing file is an error instead of a new database.
func (a *app) openDB(ctx context.Context, mode dbMode) (database, error) {
	return a.openDBFor(ctx, nil, mode)
}

// dbMode says whether a command may create a missing database.
type dbMode int

const (
	// existingDB is for commands that read, or change what is already
	// stored: a missing database is an error naming the file.
	existingDB dbMode = iota
	// createDB is for commands that add data (init, remember, store,
	// block set, import, serve): a missing database is created.
	createDB
)

// openDBFor is the one place the CLI opens a store: --db is parsed as a
// DSN (dsn.Parse); a file is opened with SQLite, a postgres:// or
// postgresql:// URL with PostgreSQL, and a URL whose scheme no backend
// serves is refused, its password redacted. It opens a new SQLite file
// with the page size for emb's vectors (sqlite.PageSizeFor; emb may be
// nil).
func (a *app) openDBFor(ctx context.Context, emb hippo.Embedder, mode dbMode) (database, error) {
	return a.openDSN(ctx, a.dbPath, emb, mode)
}

// openDSN is openDBFor on the database named by name rather than --db.
func (a *app) openDSN(ctx context.Context, name string, emb hippo.Embedder, mode dbMode) (database, error) {
	d, err := dsn.Parse(name)
	if err != nil {
		return nil, err
	}
	cfg, err := a.config()
	if err != nil {
		return nil, err
	}
	switch d.Scheme {
	case "":
	case "postgres", "postgresql":
		db, err := postgres.Open(ctx, name, postgres.Options{MustExist: mode == existingDB, IndexMemory: a.indexMemory, Decay: a.decay, Config: cfg})
		if err != nil {
			return nil, err
		}
		return db, nil
	default:
		return nil, hippo.Invalidf("db", "%s: no backend serves %s:// databases; give a file path, a file: URI or a postgres:// URL", d, d.Scheme)
	}
	// A command checks the file before its first write (a damaged file is
	// refused, not written further); a server checks in the background
	// (serve), so as not to delay its start.
	opts := sqlite.Options{MustExist: mode == existingDB, IndexMemory: a.indexMemory, Decay: a.decay,
		Adopt: a.adopt, VerifyBeforeWrite: !a.serving, Config: cfg}
	if emb != nil {
		opts.Dimension = emb.Dimension()
		if opts.Dimension == 0 && mode == createDB && !hasFile(d.Path) {
			opts.Dimension = probeDimension(ctx, emb)
		}
	}
	db, err := sqlite.Open(ctx, d.Path, opts)
	if err != nil {
		return nil, err
	}
	a.stores = append(a.stores, db)
	return db, nil
}

// config is the stores' configuration: nil for the defaults, or with
// --agent-text-statistics (HIPPO_AGENT_TEXT_STATISTICS) set.
func (a *app) config() (*hippo.Config, error) {
	on, err := a.boolSetting("agent-text-statistics", "HIPPO_AGENT_TEXT_STATISTICS", a.agentStats)
	if err != nil || !on {
		return nil, err
	}
	cfg := hippo.DefaultConfig()
	cfg.AgentTextStatistics = true
	return &cfg, nil
}

// hasFile reports whether path holds a file with something in it: a
// database Open would not create.
func hasFile(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Size() > 0
}

// probeDimension learns the length of emb's vectors, when no length is
// configured, from one embedding: a new database's page size depends on
// it (sqlite.PageSizeFor), and 384-dimension vectors in the pages for an
// unknown length cost a sixth more CPU per stored memory. It returns 0,
// the page size for an unknown length, when the request fails.
func probeDimension(ctx context.Context, emb hippo.Embedder) int {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	vecs, err := emb.Embed(ctx, []string{"dimension"})
	if err != nil || len(vecs) != 1 {
		return 0
	}
	return len(vecs[0])
}
