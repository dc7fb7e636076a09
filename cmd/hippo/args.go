package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// argSpec is what a command's Use line says of its arguments: "<x>" is
// required, "[x]" optional, and a last "<x>..." may repeat.
type argSpec struct {
	names    []string // as written in Use: "<query|->", "[agent]"
	required int      // how many of them are required
	repeats  bool     // the last one may be given any number of times
}

// parseArgSpec reads the arguments of a Use line, skipping the command
// name and flags ("--up ID,..."). ok is false when Use names none.
func parseArgSpec(use string) (spec argSpec, ok bool) {
	fields := strings.Fields(use)
	for i := 1; i < len(fields); i++ {
		f := fields[i]
		switch {
		case strings.HasPrefix(f, "-"):
			i++ // the flag's value
		case strings.HasPrefix(f, "<"):
			if strings.HasSuffix(f, "...") {
				f, spec.repeats = strings.TrimSuffix(f, "..."), true
			}
			spec.names = append(spec.names, f)
			spec.required++
		case strings.HasPrefix(f, "["):
			spec.names = append(spec.names, f)
		}
	}
	return spec, len(spec.names) > 0
}

// check is a cobra.PositionalArgs: a missing argument is named, and extra
// ones are counted against what the command takes.
func (s argSpec) check(cmd *cobra.Command, args []string) error {
	if len(args) < s.required {
		var missing []string
		// Optional arguments ("[agent]") come before required ones, so
		// the missing ones are the last required names.
		for _, n := range s.names[len(s.names)-(s.required-len(args)):] {
			missing = append(missing, bare(n))
		}
		return usageErrorf("missing %s (usage: %s)", strings.Join(missing, " and "), cmd.UseLine())
	}
	if !s.repeats && len(args) > len(s.names) {
		return usageErrorf("%s takes %s, got %d arguments: %s; quote an argument that contains spaces",
			cmd.CommandPath(), takes(s), len(args), quoteAll(args))
	}
	return nil
}

// bare is an argument name without "|-" (standard input), as errors name it.
func bare(name string) string {
	return strings.Replace(name, "|-", "", 1)
}

// takes says how many arguments a command takes, naming them.
func takes(s argSpec) string {
	n, names := len(s.names), strings.Join(s.names, " ")
	switch {
	case s.required == n:
		return fmt.Sprintf("%s (%s)", plural(n, "argument", "arguments"), names)
	case s.required == 0:
		return fmt.Sprintf("at most %s (%s)", plural(n, "argument", "arguments"), names)
	}
	return fmt.Sprintf("%d to %d arguments (%s)", s.required, n, names)
}

func quoteAll(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = fmt.Sprintf("%q", a)
	}
	return strings.Join(q, " ")
}

// nameArgs gives every command whose Use line names arguments a validator
// built from that line, so usage errors say which argument is missing and
// the help and the errors cannot disagree.
func nameArgs(cmd *cobra.Command) {
	if spec, ok := parseArgSpec(cmd.Use); ok && cmd.Runnable() {
		cmd.Args = spec.check
	}
	for _, sub := range cmd.Commands() {
		nameArgs(sub)
	}
}
