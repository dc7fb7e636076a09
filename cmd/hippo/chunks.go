package main

import (
	"context"
	"github.com/hippo-mem/hippo"
	"io"

	"github.com/spf13/cobra"
)

func (a *app) newChunksCommand() *cobra.Command {
	var (
		kind          string
		superseded    bool
		suspicious    bool
		limit, offset int
	)
	cmd := &cobra.Command{
		Use:   "chunks [agent]",
		Short: "List an agent's chunks, newest first",
		Long: `List an agent's facts and memories, newest first. Superseded facts are
left out unless --superseded. --suspicious lists only the chunks flagged as
reading like instructions to the agent, for review: they are left out of
context and recall until cleared with hippo trust <id> (or deleted). The
agent defaults to --agent / HIPPO_AGENT.`,
		ValidArgsFunction: a.completeAgents,
		RunE: func(cmd *cobra.Command, args []string) error {
			agent, err := a.agentArg(args, 0)
			if err != nil {
				return err
			}
			k, err := parseKind(kind)
			if err != nil {
				return err
			}
			if err := checkPaging(limit, offset); err != nil {
				return err
			}
			scope, err := a.scopeFilter()
			if err != nil {
				return err
			}
			views, total, err := a.listChunks(cmd.Context(),
				hippo.ChunkFilter{AgentID: agent, Scope: scope, Kind: k, Superseded: superseded, Suspicious: suspicious, Limit: limit, Offset: offset})
			if err != nil {
				return err
			}
			out := struct {
				AgentID string      `json:"agent_id"`
				Total   int         `json:"total"`
				Limit   int         `json:"limit"`
				Offset  int         `json:"offset"`
				Chunks  []chunkView `json:"chunks"`
			}{agent, total, limit, offset, views}
			return a.emit(out, func(w io.Writer) error {
				if total == 0 {
					if suspicious {
						a.note("No suspicious chunks for agent %q.", agent)
					} else {
						a.note("No chunks for agent %q.", agent)
					}
					return nil
				}
				header, rows := chunkRows(views, false)
				if err := table(w, header, rows); err != nil {
					return err
				}
				a.pageNote(len(views), offset, total)
				return nil
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&kind, "kind", "", `only "fact" or "memory"`)
	f.BoolVar(&superseded, "superseded", false, "include superseded facts")
	f.BoolVar(&suspicious, "suspicious", false, "only chunks flagged suspicious, for review")
	f.IntVar(&limit, "limit", 50, "at most this many (0: all)")
	f.IntVar(&offset, "offset", 0, "skip this many first")
	return cmd
}

// pageNote tells, on stderr, which part of the results was shown.
func (a *app) pageNote(shown, offset, total int) {
	if shown < total {
		a.note("Showing %d-%d of %d; use --offset %d for more.", offset+1, offset+shown, total, offset+shown)
	}
}

// listChunks opens the existing database and returns one page of the
// chunks matching filter, as the CLI shows them, with the number of all
// matches.
func (a *app) listChunks(ctx context.Context, filter hippo.ChunkFilter) ([]chunkView, int, error) {
	db, err := a.openDB(ctx, existingDB)
	if err != nil {
		return nil, 0, err
	}
	defer db.Close()
	chunks, err := db.ListChunks(ctx, filter)
	if err != nil {
		return nil, 0, err
	}
	total, err := db.CountChunks(ctx, filter)
	if err != nil {
		return nil, 0, err
	}
	return viewChunks(chunks, strengthNow(ctx, db)), total, nil
}
