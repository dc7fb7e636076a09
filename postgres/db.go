// Package postgres stores Hippo's chunks, blocks and metadata in a
// PostgreSQL database shared by many agents and many Hippo servers. It
// only persists: the behaviour is engine's, as with sqlite, over the same
// store interfaces.
//
// Vectors are bytea (little-endian float32), scored by the engine's
// in-memory index. Each agent's writers are serialised across servers by
// a row of hippo_agents that every write transaction bumps first; its
// version is the agent's change-feed position (migration 0001).
package postgres

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/dsn"
	"github.com/hippo-mem/hippo/engine"
	"github.com/hippo-mem/hippo/internal/sqlstore"
	"github.com/hippo-mem/hippo/internal/timestamp"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

//go:embed migration/*.sql
var migrationFS embed.FS

// Options configures Open. The zero value is usable.
type Options struct {
	// MustExist refuses a database that holds no Hippo schema yet.
	MustExist bool
	// Config holds the strength, scoring and limit constants; zero means
	// hippo.DefaultConfig().
	Config *hippo.Config
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// DecayClock is "wall" or "active", recorded in the database for
	// every server; "" keeps the recorded one (sqlite.Options.DecayClock).
	DecayClock string
	// Decay chooses the decay model (hippo.DecayHippo, the default, or
	// hippo.DecayEbbinghaus), recorded in the database for every server;
	// "" keeps the recorded one (or takes Config.Decay when set), as
	// sqlite.Options.Decay.
	Decay hippo.DecayModel
	// IndexMemory bounds the bytes of the agents' vector indexes held in
	// memory (engine.NewIndexes); 0 sets no bound.
	IndexMemory int64
	// MaxConns bounds the pool's connections; 0 is pgxpool's default.
	MaxConns int32
}

// Decay clocks.
const (
	WallClock   = engine.WallClock
	ActiveClock = engine.ActiveClock
)

// DB is an open Hippo database on PostgreSQL. It is safe for concurrent
// use, by many processes on the same database.
type DB struct {
	// Admin is the behaviour across agents (listing, browsing, deleting,
	// the decay clock), written once in the engine over this store.
	*engine.Admin

	dsn     string // redacted
	pool    *pgxpool.Pool
	created bool
	cfg     hippo.Config
	now     func() time.Time

	clock *engine.Clock // the decay clock, which records the agents' active hours

	indexes *engine.Indexes
	writes  atomic.Int64 // to pace change-feed pruning and statistics
	// analyzing is set while maybeAnalyze looks at (or refreshes) the
	// statistics of chunks.
	analyzing atomic.Bool

	statsMu    sync.Mutex
	stats      corpusStats                    // BM25's corpus statistics, cached
	agentStats engine.AgentStats[corpusStats] // and by agent (Config.AgentTextStatistics)

	group *engine.GroupCommit[*groupTx] // group commit, by agent (group.go)
}

var (
	_ hippo.Store         = (*DB)(nil)
	_ hippo.Admin         = (*DB)(nil)
	_ hippo.Exporter      = (*DB)(nil)
	_ hippo.Importer      = (*DB)(nil)
	_ hippo.Reembedder    = (*DB)(nil)
	_ hippo.IndexReporter = (*DB)(nil)
	_ hippo.SizeReporter  = (*DB)(nil)
)

// Open connects to the database named by name, a postgres:// or
// postgresql:// URL, and applies pending migrations, once across servers
// starting together (an advisory lock).
func Open(ctx context.Context, name string, opts Options) (*DB, error) {
	if opts.IndexMemory < 0 {
		return nil, hippo.Invalidf("index_memory", "must not be negative, got %d", opts.IndexMemory)
	}
	d, err := dsn.Parse(name)
	if err != nil {
		return nil, err
	}
	if d.Scheme != "postgres" && d.Scheme != "postgresql" {
		return nil, hippo.Invalidf("db", "%s is not a postgres:// URL", d)
	}
	pc, err := pgxpool.ParseConfig(name)
	if err != nil {
		return nil, hippo.Invalidf("db", "%s: %s", d, dsn.Redact(err.Error()))
	}
	if pc.ConnConfig.ConnectTimeout == 0 {
		pc.ConnConfig.ConnectTimeout = 10 * time.Second
	}
	if opts.MaxConns > 0 {
		pc.MaxConns = opts.MaxConns
	}
	pool, err := pgxpool.NewWithConfig(ctx, pc)
	if err != nil {
		return nil, hippo.Errorf(hippo.EINVALID, "connect to %s: %s", d, dsn.Redact(err.Error()))
	}
	db := &DB{dsn: d.String(), pool: pool, cfg: hippo.DefaultConfig(), now: time.Now}
	db.group = engine.NewGroupCommit(db.beginGroup)
	if opts.Config != nil {
		db.cfg = *opts.Config
	}
	if opts.Now != nil {
		db.now = opts.Now
	}
	db.indexes = engine.NewIndexes(feed{db}, opts.IndexMemory)
	if err := db.open(ctx, opts); err != nil {
		pool.Close()
		return nil, err
	}
	return db, nil
}

// open checks the connection, migrates the schema and reads the
// database's settings (engine.OpenAdmin).
func (db *DB) open(ctx context.Context, opts Options) error {
	if err := db.pool.Ping(ctx); err != nil {
		return hippo.Errorf(hippo.EINVALID, "connect to %s: %s", db.dsn, dsn.Redact(err.Error()))
	}
	if err := db.migrate(ctx, opts.MustExist); err != nil {
		return err
	}
	q := pgQuerier{db.pool}
	a, err := engine.OpenAdmin(ctx, adminStore{sqlstore.Clock{Read: q, Write: q}, db}, db.cfg, opts.DecayClock, opts.Decay, db.now, db.indexes, db.group)
	if err == nil {
		db.Admin, db.cfg, db.clock = a, a.Config(), a.Clock()
	}
	return err
}

// migrationLock is the advisory lock key under which migrations run.
const migrationLock = 0x6869707030 // "hipp0"

// migrate applies every embedded migration not yet recorded, under a
// session advisory lock so that servers starting together apply each once.
func (db *DB) migrate(ctx context.Context, mustExist bool) error {
	conn, err := db.pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1)`, migrationLock); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	defer conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, migrationLock)
	var exists bool
	if err := conn.QueryRow(ctx, `SELECT to_regclass('hippo_migrations') IS NOT NULL`).Scan(&exists); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	if !exists {
		if mustExist {
			return hippo.Errorf(hippo.ENOTFOUND, "database %s holds no Hippo data (run `hippo init --db ...` to create it)", db.dsn)
		}
		if _, err := conn.Exec(ctx, `CREATE TABLE hippo_migrations (name text PRIMARY KEY, applied_at text NOT NULL)`); err != nil {
			return fmt.Errorf("create migrations table: %w", err)
		}
		db.created = true
	}
	return sqlstore.Migrate(ctx, migrationFS, db.now(), func(fn func(sqlstore.Querier, func(string) error) error) error {
		return pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			// No arguments: the simple protocol, which runs several statements.
			return fn(pgQuerier{tx}, func(body string) error { _, err := tx.Exec(ctx, body); return err })
		})
	})
}

// Service implements hippo.Store: the engine's memory over the database.
func (db *DB) Service(opts hippo.MemoryOptions) (hippo.AgentMemory, error) {
	opts, err := engine.ValidateOptions(opts)
	if err != nil {
		return nil, err
	}
	cfg := db.cfg.ForEmbedder(opts.Embedder)
	return engine.NewMemory(&agentStore{db: db, cfg: cfg, opts: opts}, db.clock, db.indexes, cfg, opts), nil
}

// Location implements hippo.Store: the DSN, its password redacted.
func (db *DB) Location() string { return db.dsn }

// Created reports whether Open created Hippo's schema in the database.
func (db *DB) Created() bool { return db.created }

// Ping implements hippo.Store.
func (db *DB) Ping(ctx context.Context) error { return db.pool.Ping(ctx) }

// Close closes the pool.
func (db *DB) Close() error {
	db.pool.Close()
	return nil
}

// hippoTables are the tables Hippo creates, dropped by Remove.
var hippoTables = []string{"chunks", "memory_blocks", "hippo_meta", "hippo_activity", "hippo_agents",
	"hippo_changes", "hippo_reembed", "chunk_inputs", "remember_pending", "hippo_migrations"}

// Remove drops Hippo's tables and functions from the database (never
// the database itself, which may hold other data) and closes the pool.
func (db *DB) Remove() error {
	ctx := context.Background()
	_, err := db.pool.Exec(ctx, `DROP TABLE IF EXISTS `+strings.Join(hippoTables, ", ")+` CASCADE;
		DROP FUNCTION IF EXISTS hippo_log_new(), hippo_log_old(), hippo_log(text[], text[]), hippo_reembed_drop(), hippo_fts(), hippo_json(text), hippo_release_input(), hippo_drop_context()`)
	return errors.Join(err, db.Close())
}

// DiskBytes implements hippo.SizeReporter: the bytes of Hippo's tables,
// their indexes and TOAST.
func (db *DB) DiskBytes() int64 {
	var n int64
	_ = db.pool.QueryRow(context.Background(), `SELECT coalesce(sum(pg_total_relation_size(to_regclass(t))), 0)::bigint
		FROM unnest($1::text[]) AS t`, hippoTables).Scan(&n)
	return n
}

var (
	formatTime = timestamp.Format
	parseTime  = timestamp.Parse
)
