package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// dbUse is what a command does with a missing database.
type dbUse int

const (
	refuses dbUse = iota // fails naming the missing file, creates nothing
	creates              // creates it: the command adds data
	noDB                 // never opens one
)

// commandDB lists every runnable command of the CLI with argument lists
// that get it as far as opening the database. TestEveryCommandMissingDatabase
// fails when a command is missing here, so a new command must say whether
// it may create a database.
var commandDB = map[string]struct {
	use   dbUse
	runs  [][]string // arguments after the command path
	stdin string
}{
	"hippo init":                  {use: creates, runs: [][]string{{}}},
	"hippo remember":              {use: creates, runs: [][]string{{"I live in Berlin."}}},
	"hippo store":                 {use: creates, runs: [][]string{{"We chose SQLite"}}},
	"hippo block set":             {use: creates, runs: [][]string{{"persona", "Terse."}}},
	"hippo block append":          {use: creates, runs: [][]string{{"persona", "Terse."}}},
	"hippo block describe":        {use: creates, runs: [][]string{{"persona", "How to answer"}}},
	"hippo import":                {use: creates, runs: [][]string{{"-"}}, stdin: `{"version":1,"agentId":"alice"}`},
	"hippo copy":                  {use: refuses, runs: [][]string{{"--to", "copy.db"}}},
	"hippo serve":                 {use: creates, runs: [][]string{{"--transport", "stdio"}}},
	"hippo stats":                 {use: refuses, runs: [][]string{{}}},
	"hippo agents":                {use: refuses, runs: [][]string{{}}},
	"hippo chunks":                {use: refuses, runs: [][]string{{"alice"}, {}}},
	"hippo blocks":                {use: refuses, runs: [][]string{{"alice"}, {}}},
	"hippo block":                 {use: refuses, runs: [][]string{{"alice", "persona"}, {"persona"}}},
	"hippo block get":             {use: refuses, runs: [][]string{{"persona"}}},
	"hippo block replace":         {use: refuses, runs: [][]string{{"persona", "a", "b"}}},
	"hippo block delete":          {use: refuses, runs: [][]string{{"persona"}, {"persona", "--force"}}},
	"hippo search":                {use: refuses, runs: [][]string{{"x"}}},
	"hippo delete":                {use: refuses, runs: [][]string{{"X1"}, {"X1", "--force"}}},
	"hippo purge":                 {use: refuses, runs: [][]string{{}, {"--force"}}},
	"hippo pending":               {use: refuses, runs: [][]string{{}}},
	"hippo export":                {use: refuses, runs: [][]string{{}, {"alice"}, {"-o", "out.json"}}},
	"hippo reembed":               {use: refuses, runs: [][]string{{}, {"--force"}}},
	"hippo recall":                {use: refuses, runs: [][]string{{"x"}, {"x", "--explain"}}},
	"hippo forget":                {use: refuses, runs: [][]string{{"x"}, {"x", "--force"}}},
	"hippo history":               {use: refuses, runs: [][]string{{"x"}, {"--id", "X1"}}},
	"hippo source":                {use: refuses, runs: [][]string{{"X1"}}},
	"hippo trust":                 {use: refuses, runs: [][]string{{"X1"}}},
	"hippo context":               {use: refuses, runs: [][]string{{}, {"x"}}},
	"hippo reinforce":             {use: refuses, runs: [][]string{{"--up", "X1"}}},
	"hippo edit":                  {use: refuses, runs: [][]string{{"X1", "--tags", "a"}, {"X1", "--content", "x"}}},
	"hippo consolidate":           {use: refuses, runs: [][]string{{}, {"--force"}}},
	"hippo version":               {use: noDB, runs: [][]string{{}}},
	"hippo completion":            {use: noDB, runs: [][]string{{}}},
	"hippo completion bash":       {use: noDB, runs: [][]string{{}}},
	"hippo completion zsh":        {use: noDB, runs: [][]string{{}}},
	"hippo completion fish":       {use: noDB, runs: [][]string{{}}},
	"hippo completion powershell": {use: noDB, runs: [][]string{{}}},
}

// runnableCommands walks the command tree as the CLI builds it.
func runnableCommands() []*cobra.Command {
	var out []*cobra.Command
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Runnable() {
			out = append(out, c)
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk((&app{}).newRootCommand())
	return out
}

// TestEveryCommandMissingDatabase runs every command of the CLI against a
// database file that does not exist: only the commands that add data
// create it; every other one fails with exit code 1, names the missing
// file and creates nothing, with and without --json.
func TestEveryCommandMissingDatabase(t *testing.T) {
	var paths []string
	for _, c := range runnableCommands() {
		paths = append(paths, c.CommandPath())
		if _, ok := commandDB[c.CommandPath()]; !ok {
			t.Errorf("%q is not in commandDB: say whether it may create a database", c.CommandPath())
		}
	}
	for p := range commandDB {
		if !slices.Contains(paths, p) {
			t.Errorf("commandDB lists %q, which is not a command", p)
		}
	}
	c := newCLI(t)
	for _, p := range paths {
		spec := commandDB[p]
		for i, runArgs := range spec.runs {
			for _, jsonFlag := range []bool{false, true} {
				dir := filepath.Join(c.dir, strings.ReplaceAll(p, " ", "-"), string(rune('a'+i)), map[bool]string{false: "text", true: "json"}[jsonFlag])
				missing := filepath.Join(dir, "typo.db")
				args := append(strings.Fields(p)[1:], runArgs...)
				args = append(args, "--db", missing, "--agent", "alice")
				if jsonFlag {
					args = append(args, "--json")
				}
				r := c.runIn(spec.stdin, []string{"HIPPO_DB=" + filepath.Join(c.dir, "unused.db")}, args...)
				_, statErr := os.Stat(missing)
				switch spec.use {
				case refuses:
					if r.code != 1 || !strings.Contains(r.stderr, missing) || !strings.Contains(r.stderr, "does not exist") {
						t.Errorf("hippo %s: want exit 1 naming %s as missing, got %s", strings.Join(args, " "), missing, r)
					}
					if r.stdout != "" {
						t.Errorf("hippo %s: printed on stdout: %q", strings.Join(args, " "), r.stdout)
					}
					if _, err := os.Stat(dir); !os.IsNotExist(err) {
						t.Errorf("hippo %s created %s", strings.Join(args, " "), dir)
					}
					if jsonFlag {
						var e struct {
							Error struct{ Code, Message string }
						}
						if json.Unmarshal([]byte(r.stderr), &e) != nil || e.Error.Code != "not_found" {
							t.Errorf("hippo %s: JSON error = %q", strings.Join(args, " "), r.stderr)
						}
					}
				case creates:
					if r.code != 0 || statErr != nil {
						t.Errorf("hippo %s: want the database created, got %v, %s", strings.Join(args, " "), statErr, r)
					}
				case noDB:
					if r.code != 0 || statErr == nil {
						t.Errorf("hippo %s: want success without a database, got %v, %s", strings.Join(args, " "), statErr, r)
					}
				}
			}
		}
	}
	if _, err := os.Stat(filepath.Join(c.dir, "unused.db")); !os.IsNotExist(err) {
		t.Errorf("--db was not obeyed: HIPPO_DB's file exists")
	}
}
