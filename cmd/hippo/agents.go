package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"
)

func (a *app) newAgentsCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "agents",
		Short: "List agents with their chunk and block counts",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			db, err := a.openDB(cmd.Context(), existingDB)
			if err != nil {
				return err
			}
			defer db.Close()
			agents, err := db.Agents(cmd.Context())
			if err != nil {
				return err
			}
			out := struct {
				Agents any `json:"agents"`
			}{agents}
			return a.emit(out, func(w io.Writer) error {
				if len(agents) == 0 {
					a.note("No agents.")
					return nil
				}
				rows := make([][]string, len(agents))
				for i, ag := range agents {
					rows[i] = []string{ag.AgentID, fmt.Sprint(ag.Chunks), fmt.Sprint(ag.Facts),
						fmt.Sprint(ag.Memories), fmt.Sprint(ag.Superseded), fmt.Sprint(ag.Blocks)}
				}
				return table(w, "AGENT\tCHUNKS\tFACTS\tMEMORIES\tSUPERSEDED\tBLOCKS", rows)
			})
		},
		ValidArgsFunction: cobra.NoFileCompletions,
	}
}
