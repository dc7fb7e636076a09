package main

import (
	"fmt"
	"io"

	"github.com/hippo-mem/hippo"

	"github.com/spf13/cobra"
)

func (a *app) newRememberCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "remember <text|->",
		Short: "Learn facts from text: extract, rate, and resolve against known facts",
		Long: `Extract discrete facts from text, rate how intensely each was stated, and
check each against what the agent already knows: a duplicate strengthens the
known fact, a new value supersedes it, anything else is stored as new.
Text "-" is read from standard input. Uses the LLM of --llm-* / HIPPO_LLM_*,
else the offline rule-based extractor.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			text, err := a.requiredText(args, 0, "text")
			if err != nil {
				return err
			}
			db, m, err := a.openMemory(cmd.Context(), createDB, true)
			if err != nil {
				return err
			}
			defer db.Close()
			res, err := m.RememberFacts(cmd.Context(), text)
			if err != nil {
				return err
			}
			return a.emit(res, func(w io.Writer) error {
				_, err := fmt.Fprintln(w, rememberSummary(res))
				return err
			})
		},
	}
}

// rememberSummary is the summary to print: the library's, except that a
// call storing nothing points to `hippo store`, the CLI's way to keep raw
// text, rather than to the store_memory tool.
func rememberSummary(res *hippo.RememberResult) string {
	if len(res.Facts) > 0 || res.Reason == "" {
		return res.Summary
	}
	return "No facts extracted: " + res.Reason + ". To keep the text verbatim, use `hippo store`."
}
