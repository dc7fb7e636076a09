package main

import (
	"fmt"
	"io"

	"github.com/hippo-mem/hippo"
	"github.com/spf13/cobra"
)

func (a *app) newCopyCommand() *cobra.Command {
	var from, to string
	cmd := &cobra.Command{
		Use:   "copy --to <db>",
		Short: "Copy a database into another, such as SQLite into PostgreSQL",
		Long: `Copy every agent's chunks and blocks from --from (default --db /
HIPPO_DB) into --to, a file path or a postgres:// URL: "hippo export"
piped into "hippo import", in one step. The import is one transaction:
all of it or nothing; records already present in --to are skipped and
reported, never overwritten. Both databases must use the same embedding
model (a new one takes the source's).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			if to == "" {
				return usageErrorf("--to must name the database to copy into")
			}
			if from == "" {
				from = a.dbPath
			}
			src, err := a.openDSN(ctx, from, nil, existingDB)
			if err != nil {
				return err
			}
			defer src.Close()
			dst, err := a.openDSN(ctx, to, nil, createDB)
			if err != nil {
				return err
			}
			defer dst.Close()
			if src.Location() == dst.Location() {
				return hippo.Invalidf("to", "%s is the database copied from", dst.Location())
			}
			pr, pw := io.Pipe()
			go func() {
				_, err := src.Export(ctx, pw, hippo.ExportOptions{})
				pw.CloseWithError(err)
			}()
			res, err := dst.Import(ctx, pr, hippo.ImportOptions{})
			pr.CloseWithError(io.ErrClosedPipe) // stops the export if the import stopped first
			if err != nil {
				if dst.Created() {
					dst.Remove() // no empty database left behind
				}
				return err
			}
			return a.emit(res, func(w io.Writer) error {
				fmt.Fprintf(w, "Copied %s and %s from %s to %s.\n", plural(res.Chunks, "chunk", "chunks"),
					plural(res.Blocks, "block", "blocks"), src.Location(), dst.Location())
				if n := len(res.DuplicateIDs) + len(res.DuplicateContent) + len(res.DuplicateBlocks); n > 0 {
					fmt.Fprintf(w, "Skipped %s already present.\n", plural(n, "record", "records"))
				}
				return nil
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&from, "from", "", "database to copy from (default --db)")
	f.StringVar(&to, "to", "", "database to copy into: a file path or a postgres:// URL")
	return cmd
}
