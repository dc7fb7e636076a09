package main

import (
	"fmt"
	"io"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/spf13/cobra"
)

func (a *app) newHistoryCommand() *cobra.Command {
	var id string
	cmd := &cobra.Command{
		Use:   "history [query|-]",
		Short: "Show how a fact changed over time (valid from / until)",
		Long: `Print the supersession chain of a fact, oldest first: each value with the
time it became true and the time it stopped. Give a query (the closest fact,
current or past, is traced) or --id.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			query := ""
			if len(args) == 1 {
				q, err := a.textArg(args, 0, "query")
				if err != nil {
					return err
				}
				query = q
			}
			if query == "" && id == "" {
				return usageErrorf("give a query or --id")
			}
			db, m, err := a.openMemory(cmd.Context(), existingDB, false)
			if err != nil {
				return err
			}
			defer db.Close()
			h, err := m.FactHistory(cmd.Context(), query, id)
			if err != nil {
				return err
			}
			return a.emit(map[string]any{"history": h}, func(w io.Writer) error {
				if len(h) == 0 {
					msg := "No fact with that ID."
					if id == "" {
						msg = fmt.Sprintf("No fact is relevant to %q: there is no current answer.", query)
					}
					_, err := fmt.Fprintln(w, msg)
					return err
				}
				rows := make([][]string, len(h))
				for i, e := range h {
					until := "now"
					if e.ValidUntil != nil {
						until = e.ValidUntil.UTC().Format(time.RFC3339)
					}
					content := oneLine(e.Content, 100)
					if e.Suspicious {
						content = "[suspicious: " + e.SuspiciousReason + "] " + content
					}
					rows[i] = []string{e.ValidFrom.UTC().Format(time.RFC3339), until, content, e.ID, describeProvenance(e.Provenance)}
				}
				return table(w, "FROM\tUNTIL\tFACT\tID\tFROM WHERE", rows)
			})
		},
	}
	cmd.Flags().StringVar(&id, "id", "", "trace the fact with this ID")
	return cmd
}

func (a *app) newContextCommand() *cobra.Command {
	var in hippo.ContextInput
	cmd := &cobra.Command{
		Use:   "context [query|-]",
		Short: "Assemble blocks and relevant memories for a system prompt, within a budget",
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				q, err := a.textArg(args, 0, "query")
				if err != nil {
					return err
				}
				in.Query = q
			}
			db, m, err := a.openMemory(cmd.Context(), existingDB, false)
			if err != nil {
				return err
			}
			defer db.Close()
			c, err := m.Context(cmd.Context(), in)
			if err != nil {
				return err
			}
			return a.emit(c, func(w io.Writer) error {
				fmt.Fprint(w, c.Text)
				if len(c.OmittedBlocks) > 0 || c.OmittedRecalls > 0 {
					a.note("Left out to fit %d characters: blocks %v, %d memories.", c.Budget, c.OmittedBlocks, c.OmittedRecalls)
				}
				return nil
			})
		},
	}
	f := cmd.Flags()
	f.IntVar(&in.MaxChars, "max-chars", 0, fmt.Sprintf("budget in characters (default %d)", hippo.DefaultContextChars))
	f.IntVar(&in.MaxTokens, "max-tokens", 0, "budget in tokens (about 4 characters each)")
	f.IntVar(&in.Limit, "limit", 0, "memories to consider (default 10)")
	return cmd
}

func (a *app) newReinforceCommand() *cobra.Command {
	var up, down []string
	cmd := &cobra.Command{
		Use:   "reinforce --up ID,... --down ID,...",
		Short: "Upvote or downvote facts and memories by ID",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(up)+len(down) == 0 {
				return usageErrorf("give --up or --down IDs")
			}
			db, m, err := a.openMemory(cmd.Context(), existingDB, false)
			if err != nil {
				return err
			}
			defer db.Close()
			res, err := m.Reinforce(cmd.Context(), up, down)
			if err != nil {
				return err
			}
			err = a.emit(res, func(w io.Writer) error {
				_, err := fmt.Fprintf(w, "Upvoted %d, downvoted %d.\n", len(res.Upvoted), len(res.Downvoted))
				return err
			})
			if err == nil && len(res.NotFound) > 0 {
				return hippo.Errorf(hippo.ENOTFOUND, "not found: %s", listIDs(res.NotFound, 10))
			}
			return err
		},
	}
	cmd.Flags().StringSliceVar(&up, "up", nil, "IDs to upvote")
	cmd.Flags().StringSliceVar(&down, "down", nil, "IDs to downvote")
	return cmd
}

func (a *app) newConsolidateCommand() *cobra.Command {
	var (
		opts          hippo.ConsolidateOptions
		force, dryRun bool
	)
	cmd := &cobra.Command{
		Use:   "consolidate",
		Short: "Delete long-faded chunks and merge near-duplicate memories",
		Long: `A maintenance pass for one agent (--agent), never run in the background:
chunks whose strength has been under the 0.05 floor for longer than --grace
are deleted, and memories nearly identical to another (cosine above
--merge-threshold) are merged into the stronger one. Without --force (or
with --dry-run) it only reports what it would do.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.DryRun = dryRun || !force
			db, m, err := a.openMemory(cmd.Context(), existingDB, false)
			if err != nil {
				return err
			}
			defer db.Close()
			res, err := m.Consolidate(cmd.Context(), opts)
			if err != nil {
				return err
			}
			return a.emit(res, func(w io.Writer) error {
				verb := ""
				if res.DryRun {
					verb = "would be "
				}
				fmt.Fprintf(w, "%s %sdeleted as faded, %s %smerged.\n", plural(len(res.Faded), "chunk", "chunks"), verb,
					plural(len(res.Merged), "memory", "memories"), verb)
				for _, f := range res.Faded {
					fmt.Fprintf(w, "  faded  %s %s (under the floor since %s)\n", f.ID, oneLine(f.Content, 80), f.UnderSince.Format("2006-01-02"))
				}
				for _, mm := range res.Merged {
					fmt.Fprintf(w, "  merged %s into %s (cosine %.3f): %s\n", mm.RemovedID, mm.KeptID, mm.Similarity, oneLine(mm.Removed, 60))
				}
				if res.DryRun {
					a.note("Nothing was changed; run again with --force to apply.")
				}
				return nil
			})
		},
	}
	f := cmd.Flags()
	f.DurationVar(&opts.Grace, "grace", 30*24*time.Hour, "how long a chunk must have been faded before it is deleted")
	f.Float64Var(&opts.MergeThreshold, "merge-threshold", 0, "cosine above which memories merge (default 0.97; 1 disables)")
	f.BoolVar(&force, "force", false, "apply the changes")
	f.BoolVar(&dryRun, "dry-run", false, "only report (the default without --force)")
	return cmd
}

// blockDeleteCommand is "block delete <key>".
func (a *app) blockDeleteCommand() *cobra.Command {
	var force bool
	cmd := &cobra.Command{
		Use:   "delete <key>",
		Short: "Delete a block (shows it without --force)",
		RunE: func(cmd *cobra.Command, args []string) error {
			db, m, err := a.openMemory(cmd.Context(), existingDB, false)
			if err != nil {
				return err
			}
			defer db.Close()
			b, err := m.Block(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			if b == nil {
				return a.missingBlock(cmd, db, m.AgentID(), args[0])
			}
			if force {
				if err := m.DeleteBlock(cmd.Context(), args[0]); err != nil {
					return err
				}
			}
			out := map[string]any{"dry_run": !force, "block": b}
			return a.emit(out, func(w io.Writer) error {
				if !force {
					fmt.Fprintf(w, "Would delete block %q (%d characters).\n", b.Key, len([]rune(b.Value)))
					a.note("Nothing was deleted; run again with --force to delete.")
					return nil
				}
				_, err := fmt.Fprintf(w, "Deleted block %q.\n", b.Key)
				return err
			})
		},
	}
	cmd.Flags().BoolVar(&force, "force", false, "delete; without it, only show the block")
	return cmd
}
