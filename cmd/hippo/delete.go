package main

import (
	"fmt"
	"io"

	"github.com/hippo-mem/hippo"
	"github.com/spf13/cobra"
)

func (a *app) newDeleteCommand() *cobra.Command {
	var force bool
	cmd := &cobra.Command{
		Use:   "delete <id>...",
		Short: "Hard-delete chunks by ID (preview unless --force)",
		Long: `Hard-delete chunks by ID, of --agent only when it is set. Facts that a
deleted chunk had superseded become current again.

Without --force nothing changes: the command shows what it would delete
(with --json, a document with "dry_run": true). An ID matching no chunk
makes the exit code 1.`,
		RunE: func(cmd *cobra.Command, ids []string) error {
			ctx := cmd.Context()
			db, err := a.openDB(ctx, existingDB)
			if err != nil {
				return err
			}
			defer db.Close()
			plan, err := db.PlanDelete(ctx, a.agent, ids)
			if err != nil {
				return err
			}
			out := struct {
				DryRun      bool        `json:"dry_run"`
				Chunks      []chunkView `json:"chunks"`
				NotFound    []string    `json:"not_found"`
				Resurrected []string    `json:"resurrected"`
			}{!force, viewChunks(plan.Chunks, strengthNow(ctx, db)), plan.NotFound, plan.Resurrected}
			if force && len(plan.Chunks) > 0 {
				found := make([]string, len(plan.Chunks))
				for i, c := range plan.Chunks {
					found[i] = c.ID
				}
				deleted, resurrected, err := db.DeleteChunks(ctx, a.agent, found)
				if err != nil {
					return err
				}
				out.Chunks = keepChunks(out.Chunks, deleted)
				out.Resurrected = append([]string{}, resurrected...)
			}
			err = a.emit(out, func(w io.Writer) error {
				verb, resurrect := "Deleted", "Resurrected"
				if !force {
					verb, resurrect = "Would delete", "Would resurrect"
				}
				if len(out.Chunks) > 0 {
					fmt.Fprintf(w, "%s %s:\n", verb, plural(len(out.Chunks), "chunk", "chunks"))
					header, rows := chunkRows(out.Chunks, true)
					if err := table(w, header, rows); err != nil {
						return err
					}
				}
				if len(out.Resurrected) > 0 {
					fmt.Fprintf(w, "%s (superseded by a deleted chunk): %s\n", resurrect, listIDs(out.Resurrected, 20))
				}
				if !force && len(out.Chunks) > 0 {
					a.note("Nothing deleted: run again with --force to delete.")
				}
				return nil
			})
			if err != nil {
				return err
			}
			if len(plan.NotFound) > 0 {
				of := ""
				if a.agent != "" {
					of = fmt.Sprintf(" of agent %q", a.agent)
				}
				return hippo.Errorf(hippo.ENOTFOUND, "no chunk%s with ID %s", of, listIDs(plan.NotFound, 20))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&force, "force", false, "really delete")
	return cmd
}

// keepChunks keeps the views whose ID is in ids.
func keepChunks(views []chunkView, ids []string) []chunkView {
	keep := make(map[string]bool, len(ids))
	for _, id := range ids {
		keep[id] = true
	}
	out := []chunkView{}
	for _, v := range views {
		if keep[v.ID] {
			out = append(out, v)
		}
	}
	return out
}
