package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestMissingArgumentsAreNamed runs every command that takes a required
// argument without any: the usage error names the first missing one as
// its Use line does, instead of counting arguments.
func TestMissingArgumentsAreNamed(t *testing.T) {
	checked := 0
	for _, c := range runnableCommands() {
		spec, ok := parseArgSpec(c.Use)
		if !ok || spec.required == 0 {
			continue
		}
		checked++
		args := strings.Fields(c.CommandPath())[1:]
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), append(args, "--db", t.TempDir()+"/x.db", "--agent", "alice"),
			strings.NewReader(""), &stdout, &stderr)
		first := bare(spec.names[len(spec.names)-spec.required])
		if code != exitUsage || !strings.Contains(stderr.String(), "missing "+first) || !strings.Contains(stderr.String(), c.UseLine()) {
			t.Errorf("%s with no arguments: exit %d, stderr %q; want exit 2 naming %s", c.CommandPath(), code, stderr.String(), first)
		}
	}
	if checked < 10 {
		t.Errorf("only %d commands with required arguments found", checked)
	}
}

func TestParseArgSpec(t *testing.T) {
	tests := []struct {
		use      string
		names    []string
		required int
		repeats  bool
	}{
		{"stats", nil, 0, false},
		{"recall <query|->", []string{"<query|->"}, 1, false},
		{"block [agent] <key>", []string{"[agent]", "<key>"}, 1, false},
		{"replace <key> <old> <new>", []string{"<key>", "<old>", "<new>"}, 3, false},
		{"delete <id>...", []string{"<id>"}, 1, true},
		{"reinforce --up ID,... --down ID,...", nil, 0, false},
		{"history [query|-]", []string{"[query|-]"}, 0, false},
	}
	for _, tt := range tests {
		spec, ok := parseArgSpec(tt.use)
		if ok != (tt.names != nil) || strings.Join(spec.names, ",") != strings.Join(tt.names, ",") ||
			spec.required != tt.required || spec.repeats != tt.repeats {
			t.Errorf("parseArgSpec(%q) = %+v, %v", tt.use, spec, ok)
		}
	}
}

// TestEmptyTextIsAUsageError: an empty or blank text, given as an argument
// or on standard input, is a usage error naming the argument, and nothing
// is written.
func TestEmptyTextIsAUsageError(t *testing.T) {
	c := newCLI(t)
	for _, args := range [][]string{{"remember", "-"}, {"store", "-"}, {"recall", "-"}, {"forget", "-"}} {
		r := c.runIn("\n\n", nil, append(args, "--agent", "alice")...)
		if r.code != exitUsage || !strings.Contains(r.stderr, "must not be empty (standard input was empty)") {
			t.Errorf("hippo %v with empty stdin: %s", args, r)
		}
	}
	c.fails(exitUsage, "<text> must not be empty", "remember", "", "--agent", "alice")
	c.fails(exitUsage, "<text> must not be empty", "remember", "", "--agent", "alice", "--json")
	c.fails(exitFailure, "does not exist", "stats") // nothing was created
}

// TestHelpDescribesBehaviour: no command's help speaks of seeds or design
// documents instead of saying what the command does.
func TestHelpDescribesBehaviour(t *testing.T) {
	for _, c := range runnableCommands() {
		text := c.Short + "\n" + c.Long + "\n" + c.Flags().FlagUsages() + c.InheritedFlags().FlagUsages()
		l := strings.ToLower(text)
		for _, word := range []string{"seed", "design doc", "the design"} {
			if strings.Contains(l, word) {
				t.Errorf("%s --help mentions %q:\n%s", c.CommandPath(), word, text)
			}
		}
	}
}
