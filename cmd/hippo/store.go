package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/hippo-mem/hippo"
	"github.com/spf13/cobra"
)

func (a *app) newStoreCommand() *cobra.Command {
	var metadata, source, jsonl string
	cmd := &cobra.Command{
		Use:   "store [content|-]",
		Short: "Store content verbatim as a memory (a repeat strengthens it)",
		Long: `Store content verbatim as a memory; a repeat strengthens it.

With --jsonl, store every line of a JSON Lines file ("-" for standard
input): one object a line with "content" and optionally "metadata",
"intensity" and "source", in batches of ` + fmt.Sprint(hippo.MaxStoreBatch) + ` (one embedding request and one
transaction each). A line that fails is reported with its number and the
others are stored; the command then exits 1.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if jsonl != "" {
				if len(args) > 0 || metadata != "" || source != "" {
					return usageErrorf("--jsonl takes no <content>, --metadata or --source: each line has its own")
				}
				db, m, err := a.openMemory(cmd.Context(), createDB, false)
				if err != nil {
					return err
				}
				defer db.Close()
				return a.storeJSONL(cmd.Context(), m, jsonl)
			}
			content, err := a.requiredText(args, 0, "content")
			if err != nil {
				return err
			}
			in := hippo.StoreInput{Content: content, Source: source}
			if metadata != "" {
				in.Metadata = json.RawMessage(metadata)
			}
			db, m, err := a.openMemory(cmd.Context(), createDB, false)
			if err != nil {
				return err
			}
			defer db.Close()
			res, err := m.StoreMemory(cmd.Context(), in)
			if err != nil {
				return err
			}
			view := struct {
				Duplicate bool      `json:"duplicate"`
				Chunk     chunkView `json:"chunk"`
			}{res.Duplicate, viewChunks([]*hippo.Chunk{res.Chunk}, strengthAt(m.Config()))[0]}
			return a.emit(view, func(w io.Writer) error {
				if res.Duplicate {
					_, err := fmt.Fprintf(w, "Already known: strengthened %s (seen %d times, intensity %.2f)\n",
						res.Chunk.ID, res.Chunk.EncounterCount, res.Chunk.RunningIntensity)
					return err
				}
				if _, err := fmt.Fprintf(w, "Stored %s\n", res.Chunk.ID); err != nil {
					return err
				}
				if res.Chunk.Suspicious {
					_, err := fmt.Fprintf(w, "Marked suspicious: %s (kept, left out of context and recall; review with hippo chunks --suspicious)\n", res.Chunk.SuspiciousReason)
					return err
				}
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&metadata, "metadata", "", `JSON object: {"source": ..., "tags": [...], "category": ...}`)
	cmd.Flags().StringVar(&jsonl, "jsonl", "", `store each line of a JSON Lines file ("-": standard input)`)
	cmd.Flags().StringVar(&source, "source", "", "where the content came from (a message ID, a URL, a file), kept as its provenance")
	return cmd
}
