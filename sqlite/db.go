// Package sqlite stores Hippo's chunks, blocks and metadata in one SQLite
// file shared by many agents, and implements hippo.MemoryService on it.
//
// Start with Open, then DB.Memory for one agent's memory: the package's
// Example is a whole program. The DB methods (Stats, ListChunks, Export,
// Import, Reembed, ...) administer the file across agents, as the hippo
// command does.
package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/engine"
	"github.com/hippo-mem/hippo/internal/sqlstore"
	"github.com/hippo-mem/hippo/internal/timestamp"
	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

//go:embed migration/*.sql
var migrationFS embed.FS

// Options configures Open. The zero value is usable.
type Options struct {
	// MustExist refuses to create a missing database file: commands that
	// only read should not leave an empty file behind.
	MustExist bool
	// Adopt opens a SQLite database that holds another application's
	// tables and adds Hippo's beside them: a consumer's messages table
	// for recall_conversation lives in the same file. Without it such a
	// file is refused, and left as it was.
	Adopt bool
	// VerifyBeforeWrite checks the whole file (PRAGMA quick_check) before
	// the first write made through this DB, and refuses writes into a
	// damaged file: a write can succeed in a file whose other pages are
	// damaged, burying the damage further. It costs one read of the file,
	// on files of up to 1 GiB (larger ones are not checked).
	VerifyBeforeWrite bool
	// NoSync trades crash durability for speed (synchronous=NORMAL): a
	// power loss may drop the last commits, never corrupt the file.
	NoSync bool
	// Config holds the strength, scoring and limit constants; zero means
	// hippo.DefaultConfig().
	Config *hippo.Config
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// DecayClock chooses how strength decays: "wall" (every hour counts,
	// the default) or "active" (only hours in which the agent
	// used its memory count, so nothing fades while an agent is idle). The
	// choice is recorded in the database and applies to every process that
	// opens it; "" keeps the recorded choice, wall time by default.
	DecayClock string
	// Decay chooses the decay model: hippo.DecayHippo (the seed's, the
	// default) or hippo.DecayEbbinghaus. Like DecayClock it is recorded
	// in the database for every process that opens it, "" keeping the
	// recorded choice (or taking Config.Decay when set); the store's
	// Config carries it.
	Decay hippo.DecayModel
	// Dimension is the length of the embeddings the database will hold,
	// when the caller knows it (0 when not). It only sets the page size of
	// a database Open creates (PageSizeFor); an existing file keeps its own.
	Dimension int
	// IndexMemory bounds the bytes of the agents' vector indexes held in
	// memory: past it, the least recently used agents' indexes are
	// dropped and loaded again on their next use. 0 sets no bound.
	IndexMemory int64
}

// Decay clocks.
const (
	WallClock   = engine.WallClock
	ActiveClock = engine.ActiveClock
)

// DB is an open Hippo database. It is safe for concurrent use.
type DB struct {
	// Admin is the behaviour across agents (listing, browsing, deleting,
	// the decay clock), written once in the engine over this store.
	*engine.Admin

	path    string
	created bool    // Open created the file
	write   *sql.DB // one connection, BEGIN IMMEDIATE: writers queue here
	read    *sql.DB // readers run beside the writer under WAL
	cfg     hippo.Config
	now     func() time.Time
	noSync  bool
	// fullAt is when a write last failed for a full disk, in Unix
	// milliseconds; 0 once a write succeeds (storageError).
	fullAt atomic.Int64
	// damage, once SQLite finds the file damaged, is the error every write
	// and Ping return (storageError, CheckIntegrity).
	damage atomic.Pointer[hippo.Error]
	// verify is Options.VerifyBeforeWrite, done once (beforeWrite).
	verify     bool
	verifyOnce sync.Once

	clock *engine.Clock // the decay clock, which records the agents' active hours

	group   *engine.GroupCommit[*groupTx] // Update's group commit (group.go)
	indexes *engine.Indexes               // by agent ID, loaded on first search
	writes  atomic.Int64                  // recalls and writes, to pace change-log pruning
	lengths engine.AgentStats[float64]    // BM25's mean row length by agent (fts.go)

	stmtMu sync.Mutex
	rstmts map[string]*sql.Stmt // prepared on the read pool, by query
	rnoted map[string]bool      // queries for rstmts, prepared after the read that ran them
	light  *lightConn           // used only while holding the write pool's connection
	// writing counts the write transactions of group commits and lightTx
	// in progress, for lightRead.
	writing atomic.Int32
}

// Open opens (creating unless opts.MustExist) the database at path and
// applies pending migrations.
func Open(ctx context.Context, path string, opts Options) (*DB, error) {
	if strings.TrimSpace(path) == "" {
		return nil, hippo.Invalidf("db", "path must not be empty")
	}
	if strings.ContainsRune(path, 0) {
		return nil, hippo.Invalidf("db", "path must not contain NUL bytes")
	}
	if opts.IndexMemory < 0 {
		return nil, hippo.Invalidf("index_memory", "must not be negative, got %d", opts.IndexMemory)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, hippo.Invalidf("db", "cannot resolve path %q: %v", path, err)
	}
	st, err := os.Stat(abs)
	created := false
	switch {
	case err == nil && st.IsDir():
		return nil, hippo.Invalidf("db", "%s is a directory, not a database file", abs)
	case errors.Is(err, fs.ErrNotExist) && opts.MustExist:
		return nil, hippo.Errorf(hippo.ENOTFOUND, "database %s does not exist (run `hippo init` to create it)", abs)
	case errors.Is(err, fs.ErrNotExist):
		// Memory is private: a directory made here is its owner's alone,
		// and so is the file (create), which SQLite's WAL and
		// shared-memory files then copy.
		if err := os.MkdirAll(filepath.Dir(abs), 0o700); err != nil {
			return nil, hippo.Errorf(hippo.EINVALID, "cannot create directory for %s: %v", abs, err)
		}
		if err := create(ctx, abs, PageSizeFor(opts.Dimension)); err != nil {
			return nil, err
		}
		created = true
	case err != nil:
		return nil, hippo.Errorf(hippo.EINVALID, "cannot open %s: %v", abs, err)
	case st.Size() == 0 && opts.MustExist:
		return nil, hippo.Invalidf("db", "%s is empty: it is not a Hippo database yet (`hippo init` creates one there)", abs)
	case st.Size() == 0:
		// No database yet: one made by hand, or left by a create killed
		// before SQLite wrote to it.
		if err := create(ctx, abs, PageSizeFor(opts.Dimension)); err != nil {
			return nil, err
		}
		created = true
	default:
		if err := checkHippoFile(ctx, abs, opts.Adopt); err != nil {
			return nil, err
		}
	}

	db := &DB{path: abs, created: created, cfg: hippo.DefaultConfig(), now: time.Now}
	db.group = engine.NewGroupCommit(db.beginGroup)
	db.indexes = engine.NewIndexes(feed{db}, opts.IndexMemory)
	if opts.Config != nil {
		db.cfg = *opts.Config
	}
	if opts.Now != nil {
		db.now = opts.Now
	}
	db.noSync = opts.NoSync
	db.verify = opts.VerifyBeforeWrite
	synchronous := "FULL"
	if opts.NoSync {
		synchronous = "NORMAL"
	}
	u := url.URL{Scheme: "file", Path: abs}
	params := "?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)&_pragma=synchronous(" + synchronous + ")" +
		"&_pragma=foreign_keys(1)&_pragma=secure_delete(ON)" +
		// Statement journals (a recall's multi-row boost opens one) stay
		// in memory instead of a temporary file created for every write.
		"&_pragma=temp_store(MEMORY)"
	if db.write, err = sql.Open("sqlite", u.String()+params+"&_txlock=immediate"); err != nil {
		return nil, fmt.Errorf("open %s: %w", abs, err)
	}
	db.write.SetMaxOpenConns(1)
	db.write.SetConnMaxIdleTime(0)
	if db.read, err = sql.Open("sqlite", u.String()+params); err != nil {
		db.write.Close()
		return nil, fmt.Errorf("open %s: %w", abs, err)
	}
	db.read.SetMaxIdleConns(4)

	if err := db.migrate(ctx); err != nil {
		db.Close()
		return nil, err
	}
	if db.Admin, err = engine.OpenAdmin(ctx, adminStore{sqlstore.Clock{Read: querierOf(db.read), Write: querierOf(db.write)}, db}, db.cfg, opts.DecayClock, opts.Decay, db.now, db.indexes, db.group); err != nil {
		db.Close()
		return nil, err
	}
	db.cfg, db.clock = db.Admin.Config(), db.Admin.Clock()
	return db, nil
}

// PageSizeFor is the page size of a new database for embeddings of dim
// dimensions: the smallest power of two from 4 KiB to 64 KiB that holds
// three chunks with up to about 500 bytes of content and metadata beside
// the vector, but no more than 8 KiB unless one such chunk needs more (then
// the smallest that holds one); 32 KiB when dim is not known. Small pages
// matter because every commit writes whole pages to the write-ahead log:
// a store writes nine to eleven (the chunk's, its indexes', the change
// log's, the full-text index's), and a recall rewrites the page of every
// chunk it returns (its retrieval boost). At 1,536 dimensions 32 KiB pages
// held five chunks with 3% to spare, but each store wrote about 300 KiB of
// log, whose copying and checksums cost a fifth of a millisecond of CPU;
// 8 KiB pages hold one such chunk without overflow pages, for about 90 KiB
// of log a store and a fifth more disk.
func PageSizeFor(dim int) int {
	if dim <= 0 {
		return 32768
	}
	row := dim*4 + 500
	size := powerOfTwoPage(3 * row)
	if size > 8192 {
		size = max(8192, powerOfTwoPage(row))
	}
	return size
}

// powerOfTwoPage is the smallest power of two from 4 KiB to 64 KiB that
// is at least need (64 KiB when none is).
func powerOfTwoPage(need int) int {
	size := 4096
	for size < need && size < 65536 {
		size *= 2
	}
	return size
}

// create makes a new database file with Hippo's page size, in WAL mode. The
// page size must be set before anything else touches the file, which the
// driver's connection parameters do not guarantee.
func create(ctx context.Context, path string, pageSize int) error {
	// Another process may be creating the same file. Switching to WAL can
	// answer SQLITE_BUSY without the busy handler while it does: try again
	// for a while, as the other creation takes milliseconds.
	var err error
	for try := 0; try < 100; try++ {
		if err = createOnce(ctx, path, pageSize); err == nil || !isBusy(err) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(20 * time.Millisecond):
		}
	}
	return err
}

// sqliteHeader starts every SQLite database file.
const sqliteHeader = "SQLite format 3\x00"

// checkHippoFile refuses a file that is not a Hippo database before
// anything is written to it (migrations would add Hippo's tables to
// another application's database and switch it to WAL): a file that is
// not SQLite, and a SQLite database whose schema holds objects but not
// Hippo's migrations table. A SQLite file with an empty schema is a
// Hippo database whose creation was cut short: migrating completes it.
// Reading the schema writes nothing to the file.
func checkHippoFile(ctx context.Context, path string, adopt bool) error {
	f, err := os.Open(path)
	if err != nil {
		return hippo.Errorf(hippo.EINVALID, "cannot open %s: %v", path, err)
	}
	header := make([]byte, 100) // the database header
	n, _ := io.ReadFull(f, header)
	f.Close()
	if n < len(header) || string(header[:len(sqliteHeader)]) != sqliteHeader {
		return hippo.Invalidf("db", "%s is not a database: it is not a SQLite file; Hippo left it as it was "+
			"(open a new file or a Hippo database instead; if it was a Hippo database, its header is damaged: "+
			"restore it from your last export (hippo import) or a backup)", path)
	}
	u := url.URL{Scheme: "file", Path: path}
	conn, err := sql.Open("sqlite", u.String()+"?_pragma=busy_timeout(5000)")
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	defer conn.Close()
	rows, err := conn.QueryContext(ctx, `SELECT type, name FROM sqlite_schema ORDER BY type DESC, name`)
	switch {
	case err == nil:
	case isCorrupt(err):
		return damaged(path, err)
	case isFull(err) || isIOError(err):
		return &hippo.Error{Code: hippo.EUNAVAILABLE, Message: fmt.Sprintf("cannot read %s (%v): is the disk holding it full "+
			"or failing? SQLite needs room beside it for its shared-memory file; free some space and try again", path, err)}
	default:
		return fmt.Errorf("read the schema of %s: %w", path, err)
	}
	defer rows.Close()
	var objects []string
	hippoDB := false
	for rows.Next() {
		var typ, name string
		if err := rows.Scan(&typ, &name); err != nil {
			return fmt.Errorf("read the schema of %s: %w", path, err)
		}
		hippoDB = hippoDB || typ == "table" && name == "hippo_migrations"
		objects = append(objects, name)
	}
	if err := rows.Err(); err != nil {
		return hippo.Invalidf("db", "%s cannot be read as a SQLite database (%v); Hippo left it as it was", path, err)
	}
	if hippoDB || len(objects) == 0 || adopt {
		return nil
	}
	if len(objects) > 5 {
		objects = append(objects[:5], "…")
	}
	return hippo.Invalidf("db", "%s is not a Hippo database: it holds another application's tables (%s); Hippo left it "+
		"as it was (open a new file or a Hippo database instead; to keep Hippo's tables beside yours, as for a "+
		"messages table, open it with sqlite.Options.Adopt, as hippo serve --messages-table does)", path, strings.Join(objects, ", "))
}

// createOnce is one attempt of create.
func createOnce(ctx context.Context, path string, pageSize int) error {
	// The file is created empty with mode 0600 before SQLite opens it:
	// SQLite would create it 0644, and gives the WAL and shared-memory
	// files the database file's mode. Another process creating it first
	// is fine: the file is then its.
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	switch {
	case err == nil:
		if err := f.Close(); err != nil {
			return fmt.Errorf("create %s: %w", path, err)
		}
	case !errors.Is(err, fs.ErrExist):
		return hippo.Errorf(hippo.EINVALID, "cannot create %s: %v", path, err)
	}
	u := url.URL{Scheme: "file", Path: path}
	db, err := sql.Open("sqlite", u.String()+"?_pragma=busy_timeout(5000)")
	if err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, q := range []string{fmt.Sprintf("PRAGMA page_size=%d", pageSize), "PRAGMA journal_mode=WAL"} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("create %s: %w", path, err)
		}
	}
	return db.Close()
}

// readStmt returns query prepared on the read pool, prepared once per
// DB, each of the pool's connections compiling it the first time it runs
// it: the driver compiles every statement it runs otherwise.
func (db *DB) readStmt(ctx context.Context, query string) (*sql.Stmt, error) {
	return db.prepared(ctx, db.read, &db.rstmts, query)
}

// queryRead runs query on the read pool prepared once per connection
// (readStmt): a query run on every call, such as listing an agent's blocks
// or a recall's full-text search, was otherwise parsed and compiled by
// SQLite each time. Only for queries of a fixed few shapes: the cache is
// not bounded. A query that fails to prepare runs unprepared, to report
// its own error.
func (db *DB) queryRead(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if st, err := db.readStmt(ctx, query); err == nil {
		return st.QueryContext(ctx, args...)
	}
	return db.read.QueryContext(ctx, query, args...)
}

// maxCachedStmts bounds each cache of prepared statements that
// cachedStmt and lightConn.prepare fill: queries built with one
// placeholder per ID come in every length.
const maxCachedStmts = 256

// cachedStmt is query prepared on the read pool when readStmt's cache
// holds it, nil when not. It is called inside read transactions, which
// hold one of the pool's connections, so it never prepares: it notes the
// query, and prepareNoted prepares it once the transaction is over.
func (db *DB) cachedStmt(query string) *sql.Stmt {
	db.stmtMu.Lock()
	defer db.stmtMu.Unlock()
	if st := db.rstmts[query]; st != nil || len(db.rstmts)+len(db.rnoted) >= maxCachedStmts {
		return st
	}
	if db.rnoted == nil {
		db.rnoted = map[string]bool{}
	}
	db.rnoted[query] = true
	return nil
}

// prepareNoted prepares the queries cachedStmt noted, outside any
// transaction. A query that fails to prepare runs unprepared.
func (db *DB) prepareNoted(ctx context.Context) {
	db.stmtMu.Lock()
	queries := db.rnoted
	db.rnoted = nil
	db.stmtMu.Unlock()
	for query := range queries {
		db.readStmt(ctx, query)
	}
}

func (db *DB) prepared(ctx context.Context, pool *sql.DB, cache *map[string]*sql.Stmt, query string) (*sql.Stmt, error) {
	db.stmtMu.Lock()
	defer db.stmtMu.Unlock()
	if st := (*cache)[query]; st != nil {
		return st, nil
	}
	st, err := pool.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	if *cache == nil {
		*cache = map[string]*sql.Stmt{}
	}
	(*cache)[query] = st
	return st, nil
}

// Close closes the database.
func (db *DB) Close() error {
	db.closeLight()
	var errs []error
	db.stmtMu.Lock()
	for _, st := range db.rstmts {
		errs = append(errs, st.Close())
	}
	db.rstmts = nil
	db.stmtMu.Unlock()
	if db.read != nil {
		errs = append(errs, db.read.Close())
	}
	if db.write != nil {
		errs = append(errs, db.write.Close())
	}
	return errors.Join(errs...)
}

// Path is the absolute path of the database file.
func (db *DB) Path() string { return db.path }

var (
	_ hippo.Store      = (*DB)(nil)
	_ hippo.Admin      = (*DB)(nil)
	_ hippo.Exporter   = (*DB)(nil)
	_ hippo.Importer   = (*DB)(nil)
	_ hippo.Reembedder = (*DB)(nil)
)

// Service implements hippo.Store: the engine's memory (engine.Memory)
// over the database.
func (db *DB) Service(opts MemoryOptions) (hippo.AgentMemory, error) {
	m, err := db.Memory(opts)
	if err != nil {
		return nil, err
	}
	return m.Memory, nil
}

// Location implements hippo.Store: the database file's absolute path.
func (db *DB) Location() string { return db.path }

// Created reports whether Open created the database file.
func (db *DB) Created() bool { return db.created }

// Remove closes the database and deletes its files (the database, its
// write-ahead log and shared memory), such as one a failed first import
// created.
func (db *DB) Remove() error {
	errs := []error{db.Close()}
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if err := os.Remove(db.path + suffix); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Ping checks that the database answers and can be written: it reports
// a full disk (EUNAVAILABLE) while the last write failed for one.
func (db *DB) Ping(ctx context.Context) error {
	if d := db.damage.Load(); d != nil {
		return &hippo.Error{Code: hippo.EUNAVAILABLE, Message: "the database file is damaged: restore it from an export or a backup"}
	}
	if db.fullAt.Load() != 0 {
		return &hippo.Error{Code: hippo.EUNAVAILABLE, Message: "the disk holding the database is full: reads answer, writes fail"}
	}
	var n int
	return db.read.QueryRowContext(ctx, `SELECT 1`).Scan(&n)
}

// CheckIntegrity reads the whole file (PRAGMA quick_check) and reports
// damage as an EUNAVAILABLE error naming the file and what to do; from
// then on writes are refused and Ping reports it. A server runs it in the
// background when it starts.
func (db *DB) CheckIntegrity(ctx context.Context) error {
	rows, err := db.read.QueryContext(ctx, `PRAGMA quick_check(3)`)
	if err != nil {
		return db.storageError(err)
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return db.storageError(err)
		}
		if line != "ok" {
			problems = append(problems, line)
		}
	}
	if err := rows.Err(); err != nil {
		return db.storageError(err)
	}
	if len(problems) == 0 {
		return nil
	}
	return db.markDamaged(errors.New(strings.Join(problems, "; ")))
}

// beforeWrite refuses a write into a file known to be damaged and, with
// VerifyBeforeWrite, checks the file before the first write.
func (db *DB) beforeWrite(ctx context.Context) error {
	if db.verify {
		db.verifyOnce.Do(func() {
			if st, err := os.Stat(db.path); err == nil && st.Size() <= 1<<30 {
				db.CheckIntegrity(ctx) // records what it finds
			}
		})
	}
	if d := db.damage.Load(); d != nil {
		return d
	}
	return nil
}

// migrate applies every embedded migration not yet recorded, each in its
// own write transaction, so concurrent openers apply each exactly once.
func (db *DB) migrate(ctx context.Context) error {
	if _, err := db.write.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS hippo_migrations (
		name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)`); err != nil {
		return fmt.Errorf("create migrations table: %w", err)
	}
	return sqlstore.Migrate(ctx, migrationFS, db.now(), func(fn func(sqlstore.Querier, func(string) error) error) error {
		tx, err := db.write.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		if err := fn(querierOf(tx), func(body string) error { _, err := tx.ExecContext(ctx, body); return err }); err != nil {
			return err
		}
		return tx.Commit()
	})
}

var (
	formatTime = timestamp.Format
	parseTime  = timestamp.Parse
)

// pragmas reports the durability settings of a live connection:
// journal_mode, busy_timeout and synchronous.
func (db *DB) pragmas(ctx context.Context) map[string]string {
	out := map[string]string{}
	for _, name := range []string{"journal_mode", "busy_timeout", "synchronous"} {
		var v string
		if err := db.read.QueryRowContext(ctx, "PRAGMA "+name).Scan(&v); err == nil {
			out[name] = v
		}
	}
	return out
}

// lightConn is the write pool's connection as the driver sees it, for
// lightTx, lightRead and group commits (groupTx). Its statements are prepared once per connection and run without
// database/sql's transaction and row machinery: a recall's boost paid more
// for compiling its PRAGMAs, BEGIN and COMMIT on every call, and for the
// goroutines a database/sql transaction and each of its queries start, than
// for the write itself.
type lightConn struct {
	ctx   context.Context
	conn  driver.Conn
	stmts map[string]driver.Stmt
}

// lightTx runs fn in a write transaction committed without waiting for the
// disk (synchronous=NORMAL): for bookkeeping such as the retrieval boost,
// whose loss in a power cut costs nothing. The next ordinary commit makes
// it durable. The connection is held throughout, so no other transaction
// runs with the lighter setting; a connection that cannot be brought back
// to the ordinary setting, or out of the transaction, is discarded.
func (db *DB) lightTx(ctx context.Context, fn func(*lightConn) error) error {
	conn, err := db.write.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	db.writing.Add(1)
	defer db.writing.Add(-1)
	committed := false
	err = conn.Raw(func(dc any) (err error) {
		lc, err := db.lightOf(ctx, dc)
		if err != nil {
			return err
		}
		// Cleanup runs even when ctx is done. A connection it fails on is
		// discarded by the pool, its statements closed first.
		cleanup := func(query string) error {
			lc.ctx = context.WithoutCancel(ctx)
			err := lc.exec(query)
			if err == nil {
				return nil
			}
			lc.close()
			db.light = nil
			return errors.Join(err, driver.ErrBadConn)
		}
		if !db.noSync {
			if err := lc.exec(`PRAGMA synchronous=NORMAL`); err != nil {
				return err
			}
			defer func() {
				if e := cleanup(`PRAGMA synchronous=FULL`); e != nil {
					err = errors.Join(err, e)
				}
			}()
		}
		if err := lc.exec(`BEGIN IMMEDIATE`); err != nil {
			return err
		}
		if err = fn(lc); err == nil {
			if err = lc.exec(`COMMIT`); err == nil {
				committed = true
				return nil
			}
		}
		return errors.Join(err, cleanup(`ROLLBACK`))
	})
	if committed && errors.Is(err, driver.ErrBadConn) {
		return nil // committed; only the connection's setting could not be restored, and it is gone
	}
	return err
}

// lightOf is the lightConn of the write pool's connection dc, for ctx.
// The pool holds one connection; a new one (the old was found bad) has
// none of the old one's statements.
func (db *DB) lightOf(ctx context.Context, dc any) (*lightConn, error) {
	c, ok := dc.(driver.Conn)
	if !ok {
		return nil, fmt.Errorf("sqlite driver connection is a %T", dc)
	}
	if db.light == nil || db.light.conn != c {
		db.light = &lightConn{conn: c, stmts: map[string]driver.Stmt{}}
	}
	db.light.ctx = ctx
	return db.light, nil
}

// lightRead runs fn on the write pool's connection, outside any
// transaction, when no write transaction of this DB holds it (a group
// commit's or lightTx's), and reports whether it did: the caller reads on
// the read pool when not. It is for a small read that precedes a write,
// such as store_memory's check for a repeated memory: a read connection
// drops its whole page cache whenever another connection has committed
// since its last read, so each such check read its pages again, where the
// connection that made the last commit has them; and the read skips
// database/sql's statement and row machinery. A write that begins
// meanwhile waits for the read, which is short: so short that it runs
// without the driver's watch for ctx's end (a goroutine a statement), ctx
// being checked once it holds the connection.
func (db *DB) lightRead(ctx context.Context, fn func(*lightConn) error) (bool, error) {
	if db.writing.Load() > 0 {
		return false, nil
	}
	conn, err := db.write.Conn(ctx)
	if err != nil {
		return false, nil
	}
	defer conn.Close()
	err = conn.Raw(func(dc any) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		lc, err := db.lightOf(context.Background(), dc)
		if err != nil {
			return err
		}
		return fn(lc)
	})
	return true, err
}

// stmt returns query prepared on the connection.
func (lc *lightConn) stmt(query string) (driver.Stmt, error) {
	if st := lc.stmts[query]; st != nil {
		return st, nil
	}
	st, err := lc.conn.(driver.ConnPrepareContext).PrepareContext(lc.ctx, query)
	if err != nil {
		return nil, err
	}
	lc.stmts[query] = st
	return st, nil
}

// prepare returns query prepared on the connection, kept for the next
// call while the connection holds fewer than maxCachedStmts (queries
// built with one placeholder per ID come in every length); done closes
// one not kept.
func (lc *lightConn) prepare(query string) (st driver.Stmt, done func(), err error) {
	if st := lc.stmts[query]; st != nil || len(lc.stmts) < maxCachedStmts {
		st, err := lc.stmt(query)
		return st, func() {}, err
	}
	st, err = lc.conn.(driver.ConnPrepareContext).PrepareContext(lc.ctx, query)
	if err != nil {
		return nil, nil, err
	}
	return st, func() { st.Close() }, nil
}

func (lc *lightConn) exec(query string, args ...driver.NamedValue) error {
	st, err := lc.stmt(query)
	if err != nil {
		return err
	}
	_, err = st.(driver.StmtExecContext).ExecContext(lc.ctx, args)
	return err
}

// query runs query and calls row for each row, the values valid until it
// returns.
func (lc *lightConn) query(query string, args []driver.NamedValue, row func(driverRow) error) error {
	st, err := lc.stmt(query)
	if err != nil {
		return err
	}
	rows, err := st.(driver.StmtQueryContext).QueryContext(lc.ctx, args)
	if err != nil {
		return err
	}
	vals := make(driverRow, len(rows.Columns()))
	for {
		if err := rows.Next(vals); err == io.EOF {
			break
		} else if err != nil {
			rows.Close()
			return err
		}
		if err := row(vals); err != nil {
			rows.Close()
			return err
		}
	}
	return rows.Close()
}

// closeLight closes lightTx's prepared statements, before the pool closes
// their connection.
func (db *DB) closeLight() {
	conn, err := db.write.Conn(context.Background())
	if err != nil {
		return
	}
	defer conn.Close()
	_ = conn.Raw(func(dc any) error {
		if db.light != nil && db.light.conn == dc {
			db.light.close()
		}
		db.light = nil
		return nil
	})
}

// close closes the prepared statements.
func (lc *lightConn) close() {
	for q, st := range lc.stmts {
		st.Close()
		delete(lc.stmts, q)
	}
}

// driverRow is a row of driver values that scans like *sql.Rows into the
// destinations engine.ScanChunk uses.
type driverRow []driver.Value

func (r driverRow) Scan(dest ...any) error {
	if len(dest) != len(r) {
		return fmt.Errorf("scan: %d destinations for %d columns", len(dest), len(r))
	}
	for i, d := range dest {
		v := r[i]
		ok := true
		switch d := d.(type) {
		case sql.Scanner:
			if err := d.Scan(v); err != nil {
				return err
			}
		case *string:
			switch v := v.(type) {
			case string:
				*d = v
			case []byte:
				*d = string(v)
			default:
				ok = false
			}
		case *[]byte:
			switch v := v.(type) {
			case nil:
				*d = nil
			case []byte:
				*d = v
			default:
				ok = false
			}
		case *sql.RawBytes:
			switch v := v.(type) {
			case nil:
				*d = nil
			case []byte:
				*d = v
			case string:
				*d = sql.RawBytes(v)
			default:
				ok = false
			}
		case *any:
			*d = v
		case *int:
			n, isInt := v.(int64)
			*d, ok = int(n), isInt
		case *int64:
			*d, ok = v.(int64)
		case *bool:
			n, isInt := v.(int64)
			*d, ok = n != 0, isInt
		case *float32:
			switch v := v.(type) {
			case float64:
				*d = float32(v)
			case int64:
				*d = float32(v)
			default:
				ok = false
			}
		case *float64:
			switch v := v.(type) {
			case float64:
				*d = v
			case int64:
				*d = float64(v)
			default:
				ok = false
			}
		default:
			ok = false
		}
		if !ok {
			return fmt.Errorf("scan column %d: cannot store %T in %T", i, v, d)
		}
	}
	return nil
}

var _ hippo.IndexReporter = (*DB)(nil)
