// Package pgtest gives tests a PostgreSQL database of their own: New
// creates one with a random name on the server HIPPO_TEST_POSTGRES names
// (by default the local test server) and drops it when the test ends.
//
// When the server does not answer, tests skip with a message saying how
// to enable them, except under CI (the CI variable set), where they fail:
// CI runs PostgreSQL, and a missing server must not pass silently.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/hippo-mem/hippo/dsn"
	"github.com/jackc/pgx/v5"
)

// DefaultDSN is the server tests use when HIPPO_TEST_POSTGRES is not set:
// the local PostgreSQL every machine of the project runs.
const DefaultDSN = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"

// AdminDSN is the DSN of the database new databases are created from.
func AdminDSN() string {
	if dsn := os.Getenv("HIPPO_TEST_POSTGRES"); dsn != "" {
		return dsn
	}
	return DefaultDSN
}

// New creates an empty database for t and returns its DSN; the database
// is dropped (its connections ended) when t ends.
func New(t testing.TB) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	admin := AdminDSN()
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		msg := "PostgreSQL at " + dsn.Redact(admin) + " does not answer (" + dsn.Redact(err.Error()) + ")"
		if os.Getenv("CI") != "" {
			t.Fatal(msg + "; CI must run PostgreSQL")
		}
		t.Skip(msg + "; set HIPPO_TEST_POSTGRES=postgres://user@host:5432/db to run the PostgreSQL tests")
	}
	defer conn.Close(context.Background())
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	name := "hippo_test_" + hex.EncodeToString(b[:])
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("create test database: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, admin)
		if err != nil {
			t.Errorf("drop test database %s: %v", name, err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Errorf("drop test database %s: %v", name, err)
		}
	})
	u, err := url.Parse(admin)
	if err != nil {
		t.Fatalf("HIPPO_TEST_POSTGRES: %v", err)
	}
	u.Path = "/" + name
	return u.String()
}
