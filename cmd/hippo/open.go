package main

import (
	"context"
	"os"
	"path/filepath"

	"github.com/hippo-mem/hippo"
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
// DSN (hippo.ParseDSN), a file is opened with SQLite, and a URL whose
// scheme no backend serves is refused, its password redacted. It opens
// the database with the page size for emb's vectors when
// mode creates it (sqlite.PageSizeFor; emb may be nil).
func (a *app) openDBFor(ctx context.Context, emb hippo.Embedder, mode dbMode) (database, error) {
	opts := sqlite.Options{MustExist: mode == existingDB, IndexMemory: a.indexMemory, Decay: a.decay}
	if emb != nil {
		opts.Dimension = emb.Dimension()
	}
	dsn, err := hippo.ParseDSN(a.dbPath)
	if err != nil {
		return nil, err
	}
	if dsn.Scheme != "" {
		return nil, hippo.Invalidf("db", "%s: no backend serves %s:// databases; give a file path or a file: URI", dsn, dsn.Scheme)
	}
	db, err := sqlite.Open(ctx, dsn.Path, opts)
	if err != nil {
		return nil, err
	}
	return db, nil
}
