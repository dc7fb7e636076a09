package main

import (
	"fmt"
	"io"

	"github.com/hippo-mem/hippo"

	"github.com/spf13/cobra"
)

func (a *app) newRememberCommand() *cobra.Command {
	var source string
	cmd := &cobra.Command{
		Use:   "remember <text|->",
		Short: "Learn facts from text: extract, rate, and resolve against known facts",
		Long: `Extract discrete facts from text, rate how intensely each was stated, and
check each against what the agent already knows: a duplicate strengthens the
known fact, a new value supersedes it, anything else is stored as new.
Text "-" is read from standard input. Uses the LLM of --llm-* / HIPPO_LLM_*,
else the offline rule-based extractor. --source says where the text came
from (a message ID, a URL, a file): each fact keeps it, with the text, as
its provenance (hippo source <id>). A fact that reads as an instruction to
the agent is stored marked suspicious (hippo chunks --suspicious).`,
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
			res, err := m.Remember(cmd.Context(), hippo.RememberInput{Text: text, Source: source})
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
	return cmd
}

// rememberSummary is the summary to print: the library's, except that a
// call storing nothing points to `hippo store`, the CLI's way to keep raw
// text, rather than to the store_memory tool.
func rememberSummary(res *hippo.RememberResult) string {
	if len(res.Facts) > 0 || res.Reason == "" {
		return res.Summary
	}
	msg := "No facts extracted: " + res.Reason + ". To keep the text verbatim, use `hippo store`."
	if res.Fallback != "" {
		msg += " " + res.Fallback
	}
	return msg
}
