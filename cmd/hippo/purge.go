package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/spf13/cobra"
)

func (a *app) newPurgeCommand() *cobra.Command {
	var (
		before string
		force  bool
		vacuum bool
	)
	cmd := &cobra.Command{
		Use:   "purge",
		Short: "Remove superseded facts (preview unless --force)",
		Long: `Hard-delete superseded facts: of --agent only when it is set, and with
--before only those superseded before that date (created before it, when
the supersession time is unknown). What they had superseded stays
superseded.

Without --force nothing changes: the command shows what it would purge
(with --json, a document with "dry_run": true).

On PostgreSQL the deleted rows stay in the table's pages until VACUUM
(autovacuum runs it later): --vacuum runs it on Hippo's tables at once,
after the purge. SQLite overwrites deleted rows as it deletes them and
needs no vacuum.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			filter := hippo.PurgeFilter{AgentID: a.agent, DryRun: !force}
			if before != "" {
				t, err := parseDate("before", before, hippo.StartOfDay)
				if err != nil {
					return err
				}
				filter.Before = t
			}
			db, err := a.openDB(cmd.Context(), existingDB)
			if err != nil {
				return err
			}
			defer db.Close()
			chunks, err := db.PurgeSuperseded(cmd.Context(), filter)
			if err != nil {
				return err
			}
			if v, ok := db.(vacuumer); ok && vacuum && force {
				if err := v.Vacuum(cmd.Context()); err != nil {
					return err
				}
			}
			out := struct {
				DryRun  bool        `json:"dry_run"`
				AgentID string      `json:"agent_id,omitempty"`
				Before  *time.Time  `json:"before,omitempty"`
				Count   int         `json:"count"`
				Chunks  []chunkView `json:"chunks"`
			}{DryRun: !force, AgentID: a.agent, Count: len(chunks), Chunks: viewChunks(chunks, strengthNow(cmd.Context(), db))}
			if !filter.Before.IsZero() {
				out.Before = &filter.Before
			}
			return a.emit(out, func(w io.Writer) error { return a.writePurged(w, out.Chunks, force) })
		},
	}
	f := cmd.Flags()
	f.StringVar(&before, "before", "", "only chunks superseded before this date (2025-01-31) or RFC 3339 time")
	f.BoolVar(&force, "force", false, "really purge")
	f.BoolVar(&vacuum, "vacuum", false, "PostgreSQL: VACUUM Hippo's tables after the purge, so that the deleted rows leave the table pages now")
	return cmd
}

// writePurged lists the superseded chunks purged or, without force, that
// would be.
func (a *app) writePurged(w io.Writer, chunks []chunkView, force bool) error {
	if len(chunks) == 0 {
		a.note("No superseded chunks to purge.")
		return nil
	}
	verb := "Purged"
	if !force {
		verb = "Would purge"
	}
	of := ""
	if a.agent != "" {
		of = fmt.Sprintf(" of agent %q", a.agent)
	}
	fmt.Fprintf(w, "%s %s%s:\n", verb, plural(len(chunks), "superseded chunk", "superseded chunks"), of)
	header, rows := chunkRows(chunks, true)
	if err := table(w, header, rows); err != nil {
		return err
	}
	if !force {
		a.note("Nothing purged: run again with --force to purge.")
	}
	return nil
}

// vacuumer is a store whose deleted rows stay until a vacuum
// (postgres.DB).
type vacuumer interface {
	Vacuum(ctx context.Context) error
}
