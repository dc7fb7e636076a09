package main

import (
	"fmt"
	"io"

	"github.com/hippo-mem/hippo"
	"github.com/spf13/cobra"
)

func (a *app) newForgetCommand() *cobra.Command {
	var (
		threshold float64
		force     bool
	)
	cmd := &cobra.Command{
		Use:   "forget <description|->",
		Short: "Hard-delete every fact and memory matching a description",
		Long: `Find the agent's live chunks similar to a description and delete them
outright: no record is kept. Without --force it only shows what would be
deleted. Facts they had superseded become current again.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			desc, err := a.requiredText(args, 0, "description")
			if err != nil {
				return err
			}
			db, m, err := a.openMemory(cmd.Context(), existingDB, false)
			if err != nil {
				return err
			}
			defer db.Close()
			res, err := m.Forget(cmd.Context(), hippo.ForgetInput{Description: desc, Threshold: threshold, DryRun: !force})
			if err != nil {
				return err
			}
			out := struct {
				DryRun bool `json:"dry_run"`
				*hippo.ForgetResult
			}{!force, res}
			return a.emit(out, func(w io.Writer) error {
				if len(res.Deleted) == 0 {
					_, err := fmt.Fprintln(w, "Nothing matched.")
					return err
				}
				verb := "Deleted"
				if !force {
					verb = "Would delete"
				}
				fmt.Fprintf(w, "%s %s:\n", verb, plural(len(res.Deleted), "chunk", "chunks"))
				for _, d := range res.Deleted {
					fmt.Fprintf(w, "  %s [%s] %s  (similarity %.3f)\n", d.ID, d.Kind, oneLine(d.Content, 160), d.Similarity)
				}
				if len(res.Resurrected) > 0 {
					fmt.Fprintf(w, "Current again: %s\n", listIDs(res.Resurrected, 10))
				}
				if !force {
					a.note("Nothing was deleted; run again with --force to delete.")
				}
				return nil
			})
		},
	}
	cmd.Flags().Float64Var(&threshold, "threshold", 0, "minimum similarity (default: the embedder's, 0.7 for API models)")
	cmd.Flags().BoolVar(&force, "force", false, "delete; without it, only show what would be deleted")
	return cmd
}
