package main

import (
	"context"
	"os"
	"path/filepath"

	"github.com/hippo-mem/hippo"
	"github.com/spf13/cobra"
)

func (a *app) newExportCommand() *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "export [agent]",
		Short: "Write every agent's data, or one agent's, as JSON",
		Long: `Write blocks and chunks, with embeddings as base64 and the embedding model
lock, in Hippo's export format, to stdout or --output. The agent defaults
to --agent / HIPPO_AGENT; with neither, every agent is exported. --scope
restricts the export to one scope. Rows stream from one read snapshot.

The format: {"format":"hippo-export","version":1,"embedding_model":{...},
"blocks":[...],"chunks":[...]}, one record per line; "hippo import" reads it
back losslessly.`,
		ValidArgsFunction: a.completeAgents,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			agent := a.agent
			if len(args) == 1 {
				agent = args[0]
			}
			scope, err := a.scopeFilter()
			if err != nil {
				return err
			}
			db, err := a.openDB(ctx, existingDB)
			if err != nil {
				return err
			}
			defer db.Close()
			total, err := db.CountChunks(ctx, hippo.ChunkFilter{AgentID: agent, Scope: scope, Superseded: true})
			if err != nil {
				return err
			}
			if agent != "" && total == 0 {
				blocks, err := db.ListBlocks(ctx, agent, nil)
				if err != nil {
					return err
				}
				if len(blocks) == 0 {
					return hippo.Errorf(hippo.ENOTFOUND, "agent %q has no chunks or blocks in %s", agent, db.Location())
				}
			}

			opts := hippo.ExportOptions{AgentID: agent, Scope: scope}
			bar := a.progress(int64(total), "exporting", false)
			if bar != nil {
				opts.Progress = func(n int) { _ = bar.Set(n) }
			}
			var sum *hippo.ExportSummary
			if output == "" || output == "-" {
				sum, err = db.Export(ctx, a.stdout, opts)
			} else {
				sum, err = exportFile(ctx, db, output, opts)
			}
			if bar != nil {
				_ = bar.Close()
			}
			if err != nil {
				return err
			}
			if output != "" && output != "-" && a.json {
				return writeJSON(a.stdout, struct {
					Path string `json:"path"`
					*hippo.ExportSummary
				}{output, sum})
			}
			a.note("Exported %s and %s.", plural(sum.Chunks, "chunk", "chunks"), plural(sum.Blocks, "block", "blocks"))
			return nil
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "", "write to this file (atomically) instead of stdout")
	return cmd
}

// exportFile exports into a temporary file beside path and renames it into
// place, so a failed export leaves no partial file.
func exportFile(ctx context.Context, db database, path string, opts hippo.ExportOptions) (*hippo.ExportSummary, error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return nil, err
	}
	defer os.Remove(tmp.Name())
	sum, err := db.Export(ctx, tmp, opts)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return nil, err
	}
	return sum, nil
}
