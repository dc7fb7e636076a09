package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"
)

func (a *app) newStatsCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "stats",
		Short: "Show chunk, block and agent counts, file size and embedding model",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			db, err := a.openDB(cmd.Context(), existingDB)
			if err != nil {
				return err
			}
			defer db.Close()
			s, err := db.Stats(cmd.Context())
			if err != nil {
				return err
			}
			return a.emit(s, func(w io.Writer) error {
				model := "none (nothing embedded yet)"
				if s.EmbeddingModel != nil {
					model = s.EmbeddingModel.String()
				}
				size := formatBytes(s.FileSize)
				if s.WALSize > 0 {
					size += " (+" + formatBytes(s.WALSize) + " WAL)"
				}
				memories := plural(s.Memories, "memory", "memories")
				if s.KeptTexts > 0 {
					memories += fmt.Sprintf(" (%d kept by remember)", s.KeptTexts)
				}
				return table(w, "Database\t"+s.Path, [][]string{
					{"Size", size},
					{"Embedding model", model},
					{"Decay", s.DecayModel.Describe(db.Config()) + ", " + s.DecayClock + " clock"},
					{"Agents", fmt.Sprint(s.Agents)},
					{"Chunks", fmt.Sprintf("%d (%s, %s; %d superseded)", s.Chunks,
						plural(s.Facts, "fact", "facts"), memories, s.Superseded)},
					{"Blocks", fmt.Sprint(s.Blocks)},
					{"Queued", fmt.Sprintf("%d texts whose facts async remember has not learned yet", s.Pending)},
				})
			})
		},
	}
}
