package main

import (
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/hippo-mem/hippo"

	"github.com/spf13/cobra"
)

func (a *app) newRememberCommand() *cobra.Command {
	var source, jsonl string
	var given givenFacts
	var async bool
	cmd := &cobra.Command{
		Use:   "remember [<text|->]",
		Short: "Learn facts from text: extract, rate, and resolve against known facts",
		Long: `Extract discrete facts from text, rate how intensely each was stated, and
check each against what the agent already knows: a duplicate strengthens the
known fact, a new value supersedes it, anything else is stored as new.
Text "-" is read from standard input. Uses the LLM of --llm-* / HIPPO_LLM_*,
else the offline rule-based extractor. --source says where the text came
from (a message ID, a URL, a file): each fact keeps it, with the text, as
its provenance (hippo source <id>). A fact that reads as an instruction to
the agent is stored marked suspicious (hippo chunks --suspicious).

--fact gives a fact yourself, one claim in the third person ("User lives
in Berlin"), and may be repeated: nothing is extracted, and each fact is
checked against the known facts as an extracted one. --intensity (0 to 1,
default 0.5) rates the --fact just before it, and --replaces names the
earlier fact it makes untrue (a correction: "User lives in Berlin" for
"User lives in Lisbon"), which is then superseded. The text is then
optional; when given, it is kept as the facts' source.

The text is kept as a memory of its own, searchable, whatever extraction
yields (--discard-text keeps the facts alone). --async keeps and queues it
and returns at once; its facts are learned in the background, and what is
still queued when the command ends is learned by hippo pending or when
hippo serve starts.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if jsonl != "" {
				return a.rememberJSONL(cmd, args, jsonl)
			}
			var text string
			var err error
			if len(given) == 0 && len(args) == 0 {
				return usageErrorf("missing <text>, or --fact (usage: %s)", cmd.UseLine())
			}
			if len(args) > 0 {
				if text, err = a.requiredText(args, 0, "text"); err != nil {
					return err
				}
			}
			db, m, err := a.openMemory(cmd.Context(), createDB, true)
			if err != nil {
				return err
			}
			defer db.Close()
			res, err := m.Remember(cmd.Context(), hippo.RememberInput{Text: text, Source: source, Facts: given, Async: async})
			if err != nil {
				return err
			}
			return a.emit(res, func(w io.Writer) error {
				if _, err := fmt.Fprintln(w, rememberSummary(res)); err != nil {
					return err
				}
				for _, f := range res.Facts {
					if f.Suspicious {
						fmt.Fprintf(w, "Marked suspicious (%s): %s (%s)\n", f.SuspiciousReason, f.Content, f.ChunkID)
					}
				}
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&source, "source", "", "where the text came from (a message ID, a URL, a file), kept as the facts' provenance")
	cmd.Flags().Var(factFlag{&given}, "fact", `a fact to learn as given, in the third person ("User lives in Berlin"); repeatable`)
	cmd.Flags().Var(intensityFlag{&given}, "intensity", "how intensely the --fact before it was stated, 0 to 1 (default 0.5)")
	cmd.Flags().Var(replacesFlag{&given}, "replaces", "the earlier fact the --fact before it makes untrue (a correction): the known fact that says it is superseded")
	cmd.Flags().BoolVar(&async, "async", false, "keep and queue the text and return; its facts are learned in the background (hippo pending)")
	cmd.Flags().StringVar(&jsonl, "jsonl", "", `learn each line of a JSON Lines file ("-": standard input), {"text": ..., "source"?}`)
	return cmd
}

// givenFacts are the --fact flags in command-line order, each with the
// --intensity that follows it.
type givenFacts []hippo.GivenFact

// factFlag is --fact: it appends a fact.
type factFlag struct{ facts *givenFacts }

func (f factFlag) Set(s string) error {
	*f.facts = append(*f.facts, hippo.GivenFact{Fact: s})
	return nil
}
func (f factFlag) String() string { return "" }
func (f factFlag) Type() string   { return "string" }

// intensityFlag is --intensity: it rates the last --fact.
type intensityFlag struct{ facts *givenFacts }

func (f intensityFlag) Set(s string) error {
	last, err := f.facts.last("must follow the --fact it rates", func(g *hippo.GivenFact) bool { return g.Intensity != nil })
	if err != nil {
		return err
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || !(v >= 0 && v <= 1) {
		return errors.New("must be a number from 0 to 1")
	}
	last.Intensity = &v
	return nil
}
func (f intensityFlag) String() string { return "" }
func (f intensityFlag) Type() string   { return "float" }

// replacesFlag is --replaces: the earlier fact the last --fact makes
// untrue.
type replacesFlag struct{ facts *givenFacts }

func (f replacesFlag) Set(s string) error {
	last, err := f.facts.last("must follow the --fact that replaces it", func(g *hippo.GivenFact) bool { return g.Replaces != "" })
	if err != nil {
		return err
	}
	last.Replaces = s
	return nil
}

// last is the last --fact, for a flag that qualifies it: an error saying
// none when there is none, or that the flag came twice when set says the
// fact already has it.
func (g *givenFacts) last(none string, set func(*hippo.GivenFact) bool) (*hippo.GivenFact, error) {
	n := len(*g)
	if n == 0 {
		return nil, errors.New(none)
	}
	f := &(*g)[n-1]
	if set(f) {
		return nil, fmt.Errorf("given twice for --fact %q", f.Fact)
	}
	return f, nil
}
func (f replacesFlag) String() string { return "" }
func (f replacesFlag) Type() string   { return "string" }

// rememberSummary is the summary to print: the library's, except that a
// call storing nothing (--discard-text) points to `hippo store`, the
// CLI's way to keep raw text, rather than to the store_memory tool.
func rememberSummary(res *hippo.RememberResult) string {
	if len(res.Facts) > 0 || res.Reason == "" || res.Message != nil {
		return res.Summary
	}
	msg := "No facts extracted: " + res.Reason + ". To keep the text verbatim, use `hippo store`."
	if res.Fallback != "" {
		msg += " " + res.Fallback
	}
	return msg
}
