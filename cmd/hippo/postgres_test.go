package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hippo-mem/hippo/internal/pgtest"
	"github.com/jackc/pgx/v5"
)

// newPGCLI is newCLI on a PostgreSQL database of the test's own, named by
// HIPPO_DB.
func newPGCLI(t *testing.T) *cli {
	t.Helper()
	c := newCLI(t)
	c.db = pgtest.New(t)
	c.env = cleanEnv(c.dir, c.db)
	return c
}

// TestPostgresCLI runs commands on a postgres:// database, named by
// HIPPO_DB and by --db.
func TestPostgresCLI(t *testing.T) {
	c := newPGCLI(t)
	c.fails(1, "hippo init", "stats") // nothing created by a command that only reads
	if r := c.ok("init"); !strings.Contains(r.stdout, "Created") && !strings.Contains(r.stdout, "postgres://") {
		t.Errorf("init: %s", r)
	}
	for _, m := range []string{"The deploy runs every Friday at noon", "Lunch is at one", "The office plant needs water"} {
		c.ok("store", m, "--agent", "alice")
	}
	c.ok("block", "set", "persona", "Terse.", "--agent", "alice", "--db", c.db)
	if r := c.ok("recall", "when does the deploy run", "--agent", "alice", "--min-relevance", "0"); !strings.Contains(r.stdout, "every Friday") {
		t.Errorf("recall: %s", r)
	}
	if r := c.ok("recall", "when does the deploy run", "--agent", "bob", "--min-relevance", "0"); strings.Contains(r.stdout, "Friday") {
		t.Errorf("bob recalled alice's memory: %s", r)
	}
	if r := c.ok("block", "get", "persona", "--agent", "alice"); !strings.Contains(r.stdout, "Terse.") {
		t.Errorf("block get: %s", r)
	}
	if r := c.ok("stats"); !strings.Contains(r.stdout, "1") {
		t.Errorf("stats: %s", r)
	}
}

// TestPostgresPasswordRedacted opens postgres:// URLs that cannot be
// opened (no server answers, a bad parameter, a bad URL), by --db and by
// HIPPO_DB: the command fails naming the database, never the password,
// whether in the user information or the query.
func TestPostgresPasswordRedacted(t *testing.T) {
	c := newCLI(t)
	for _, dsn := range []string{
		"postgres://hippo:s3cretpw@127.0.0.1:1/hippo?sslmode=disable",
		"postgresql://hippo@127.0.0.1:1/hippo?password=s3cretpw&sslmode=disable",
		"postgres://hippo:s3cretpw@127.0.0.1:5432/hippo?sslmode=bogus",
		"postgres://hippo:s3cretpw@127.0.0.1:5432/hippo?connect_timeout=x",
		"postgres://hippo:s3cretpw@127.0.0.1:notaport/hippo",
	} {
		for _, args := range [][]string{{"stats"}, {"init"}, {"store", "x", "--agent", "a"}, {"serve", "--transport", "stdio"}} {
			for _, byEnv := range []bool{false, true} {
				var env []string
				a := args
				if byEnv {
					env = []string{"HIPPO_DB=" + dsn}
				} else {
					a = append(append([]string{}, args...), "--db", dsn)
				}
				r := c.runIn("", env, a...)
				if r.code == 0 || !strings.Contains(r.stderr, "127.0.0.1") {
					t.Errorf("hippo %s (HIPPO_DB: %v): want a failure naming the server, got %s", strings.Join(a, " "), byEnv, r)
				}
				if strings.Contains(r.stdout+r.stderr, "s3cretpw") {
					t.Errorf("hippo %s (HIPPO_DB: %v): printed the password: %s", strings.Join(a, " "), byEnv, r)
				}
			}
		}
	}
}

// TestExportAcrossBackends moves an export SQLite → PostgreSQL → SQLite:
// each export is byte-identical to the first.
func TestExportAcrossBackends(t *testing.T) {
	c := newCLI(t)
	c.seed()
	c.ok("import", c.writeFile("edge.json", edgeCases()))
	first := c.ok("export").stdout

	pg := pgtest.New(t)
	r := c.runIn(first, nil, "import", "-", "--db", pg)
	if r.code != 0 {
		t.Fatalf("import into PostgreSQL: %s", r)
	}
	second := c.ok("export", "--db", pg).stdout
	if second != first {
		t.Fatalf("export from PostgreSQL differs:\n%s\nwant:\n%s", second, first)
	}
	back := filepath.Join(c.dir, "back.db")
	if r := c.runIn(second, nil, "import", "-", "--db", back); r.code != 0 {
		t.Fatalf("import back into SQLite: %s", r)
	}
	if third := c.ok("export", "--db", back).stdout; third != first {
		t.Errorf("export after the round trip differs:\n%s\nwant:\n%s", third, first)
	}
	// Imported again: every chunk and block is a duplicate.
	var res importOutput
	c.json(&res, "import", c.writeFile("again.json", first), "--db", pg)
	if res.Chunks != 0 {
		t.Errorf("second import into PostgreSQL = %+v, want nothing new", res)
	}
}

// TestPostgresPurgeVacuum purges with --vacuum: the superseded fact is
// gone and the chunks table was vacuumed.
func TestPostgresPurgeVacuum(t *testing.T) {
	c := newPGCLI(t)
	c.ok("remember", "I live in Berlin.", "--agent", "alice")
	c.ok("remember", "I live in Lisbon.", "--agent", "alice")
	if r := c.ok("purge", "--force", "--vacuum", "--agent", "alice"); !strings.Contains(r.stdout, "Berlin") {
		t.Errorf("purge: %s", r)
	}
	// The text it came from stays: a kept text is never superseded.
	if r := c.ok("chunks", "--agent", "alice", "--superseded"); strings.Contains(r.stdout, "User lives in Berlin") {
		t.Errorf("the purged fact is still listed: %s", r)
	}
	conn, err := pgx.Connect(context.Background(), c.db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var vacuumed bool
	if err := conn.QueryRow(context.Background(), `SELECT last_vacuum IS NOT NULL FROM pg_stat_user_tables WHERE relname = 'chunks'`).Scan(&vacuumed); err != nil {
		t.Fatal(err)
	}
	if !vacuumed {
		t.Error("purge --vacuum did not vacuum the chunks table")
	}
}

// TestCopyAcrossBackends copies SQLite → PostgreSQL → SQLite with `hippo
// copy`: the last export is byte-identical to the first, and copying
// again adds nothing.
func TestCopyAcrossBackends(t *testing.T) {
	c := newCLI(t)
	c.seed()
	c.ok("import", c.writeFile("edge.json", edgeCases()))
	first := c.ok("export").stdout
	pg := pgtest.New(t)
	if r := c.ok("copy", "--to", pg); !strings.Contains(r.stdout, "Copied 7 chunks and 3 blocks") || strings.Contains(r.stdout, "@") && !strings.Contains(r.stdout, "postgres@") {
		t.Errorf("copy into PostgreSQL: %s", r)
	}
	back := filepath.Join(c.dir, "back.db")
	c.ok("copy", "--from", pg, "--to", back)
	if third := c.ok("export", "--db", back).stdout; third != first {
		t.Errorf("export after copying there and back differs:\n%s\nwant:\n%s", third, first)
	}
	if r := c.ok("copy", "--to", pg); !strings.Contains(r.stdout, "Copied 0 chunks and 0 blocks") || !strings.Contains(r.stdout, "Skipped 10 records") {
		t.Errorf("second copy: %s", r)
	}
	c.fails(2, "--to", "copy")
	c.fails(1, "copied from", "copy", "--to", c.db)
}
