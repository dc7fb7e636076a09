package main

import (
	"fmt"
	"github.com/hippo-mem/hippo"
	"io"

	"github.com/spf13/cobra"
)

func (a *app) newBlocksCommand() *cobra.Command {
	return &cobra.Command{
		Use:               "blocks [agent]",
		Short:             "List an agent's memory blocks with their sizes",
		Long:              "List an agent's memory blocks: key, scope, size in characters, last update.",
		ValidArgsFunction: a.completeAgents,
		RunE: func(cmd *cobra.Command, args []string) error {
			agent, err := a.agentArg(args, 0)
			if err != nil {
				return err
			}
			scope, err := a.scopeFilter()
			if err != nil {
				return err
			}
			db, err := a.openDB(cmd.Context(), existingDB)
			if err != nil {
				return err
			}
			defer db.Close()
			blocks, err := db.ListBlocks(cmd.Context(), agent, scope)
			if err != nil {
				return err
			}
			out := struct {
				AgentID string            `json:"agent_id"`
				Blocks  []hippo.BlockInfo `json:"blocks"`
			}{agent, blocks}
			return a.emit(out, func(w io.Writer) error {
				if len(blocks) == 0 {
					a.note("No blocks for agent %q.", agent)
					return nil
				}
				rows := make([][]string, len(blocks))
				for i, b := range blocks {
					rows[i] = []string{b.Key, showScope(b.Scope), fmt.Sprint(b.Chars), b.UpdatedAt.Format("2006-01-02 15:04")}
				}
				return table(w, "KEY\tSCOPE\tCHARS\tUPDATED", rows)
			})
		},
	}
}
