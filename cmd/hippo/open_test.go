package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDatabaseURLRefused runs every command that opens a database with a
// URL no backend serves, by flag and by HIPPO_DB: each fails naming the
// scheme, never shows the password, and creates nothing (the URL once
// became the file ./postgres:/u:secret@host/db).
func TestDatabaseURLRefused(t *testing.T) {
	c := newCLI(t)
	const dsn = "mysql://hippo:s3cretpw@db.example:3306/hippo?tls=true"
	for _, cmd := range runnableCommands() {
		spec, ok := commandDB[cmd.CommandPath()]
		if !ok || spec.use == noDB {
			continue
		}
		args := append(strings.Fields(cmd.CommandPath())[1:], spec.runs[0]...)
		args = append(args, "--agent", "alice")
		for _, byEnv := range []bool{false, true} {
			var env []string
			a := args
			if byEnv {
				env = []string{"HIPPO_DB=" + dsn}
			} else {
				a = append(append([]string{}, args...), "--db", dsn)
			}
			r := c.runIn(spec.stdin, env, a...)
			if r.code == 0 || !strings.Contains(r.stderr, "mysql://") || !strings.Contains(r.stderr, "no backend") {
				t.Errorf("hippo %s (HIPPO_DB: %v): want a failure naming the scheme, got %s", strings.Join(a, " "), byEnv, r)
			}
			if strings.Contains(r.stdout+r.stderr, "s3cretpw") {
				t.Errorf("hippo %s (HIPPO_DB: %v): printed the password: %s", strings.Join(a, " "), byEnv, r)
			}
		}
	}
	entries, err := os.ReadDir(c.dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "mysql") {
			t.Errorf("created %s", filepath.Join(c.dir, e.Name()))
		}
	}
}

// TestDatabaseFileURI opens the same database by path and by file: URI.
func TestDatabaseFileURI(t *testing.T) {
	c := newCLI(t)
	if r := c.run("init"); r.code != 0 {
		t.Fatal(r)
	}
	if r := c.run("block", "set", "persona", "Terse.", "--agent", "alice", "--db", "file:"+c.db); r.code != 0 {
		t.Fatal(r)
	}
	r := c.run("block", "get", "persona", "--agent", "alice", "--db", "file://"+c.db)
	if r.code != 0 || !strings.Contains(r.stdout, "Terse.") {
		t.Errorf("block get through a file:// URI: %s", r)
	}
	if r := c.run("stats", "--db", "file://otherhost"+c.db); r.code == 0 || !strings.Contains(r.stderr, "localhost") {
		t.Errorf("a file URI naming another host: want it refused, got %s", r)
	}
}
