package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/hippo-mem/hippo"
	"github.com/spf13/cobra"
)

func (a *app) newImportCommand() *cobra.Command {
	var (
		model   string
		reembed bool
	)
	cmd := &cobra.Command{
		Use:   "import <file|->",
		Short: "Import an export (Hippo's or the TypeScript Hippo CLI's)",
		Long: `Import a file ("-" for stdin) written by "hippo export", or the version-1
export of the TypeScript Hippo CLI, in one transaction: all of it or, on any
error, nothing. Records already present (same chunk ID, same memory content,
same block) are skipped and reported, never overwritten.

The chunks' embedding model must be the database's; a new database takes
the file's. The TypeScript export does not name its model: give it with
--model, or import into a database already locked to a model of the same
dimension. With --reembed, chunks of another model (or of none named) are
embedded anew with the configured embedder (--embed-*, HIPPO_EMBED_*, else
the offline default), which must be the database's model. Records that
name no agent take --agent / HIPPO_AGENT.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			file, size, err := a.openImport(args[0])
			if err != nil {
				return err
			}
			defer file.Close()
			var r io.Reader = file
			opts := hippo.ImportOptions{Model: model, AgentID: a.agent}
			if reembed {
				e, err := a.embedder()
				if err != nil {
					return err
				}
				opts.Reembed = e
			}
			db, err := a.openDB(ctx, createDB)
			if err != nil {
				return err
			}
			defer db.Close()
			bar := a.progress(size, "importing", true)
			if bar != nil {
				r = io.TeeReader(r, bar)
			}
			res, err := db.Import(ctx, r, opts)
			if bar != nil {
				_ = bar.Close()
			}
			if err != nil {
				if db.Created() {
					// Leave no empty database behind a failed first import.
					db.Remove()
				}
				return err
			}
			return a.emit(res, func(w io.Writer) error { return writeImported(w, res) })
		},
	}
	cmd.Flags().StringVar(&model, "model", "", "embedding model of a file that does not name one (TypeScript export)")
	cmd.Flags().BoolVar(&reembed, "reembed", false, "embed chunks of another embedding model anew with the configured embedder")
	return cmd
}

// openImport opens the file to import, name ("-" for standard input), and
// returns its size: -1 when it is not a regular file.
func (a *app) openImport(name string) (io.ReadCloser, int64, error) {
	if name == "-" {
		return io.NopCloser(a.stdin), -1, nil
	}
	f, err := os.Open(name)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // the path is named once
		}
		return nil, 0, hippo.Errorf(hippo.EINVALID, "cannot read %s: %v", name, err)
	}
	size := int64(-1)
	st, err := f.Stat()
	if err == nil && st.IsDir() {
		f.Close()
		return nil, 0, hippo.Errorf(hippo.EINVALID, "cannot read %s: it is a directory, not an export file", name)
	}
	if err == nil && st.Mode().IsRegular() {
		size = st.Size()
	}
	return f, size, nil
}

// writeImported says what an import imported and what it skipped.
func writeImported(w io.Writer, res *hippo.ImportResult) error {
	fmt.Fprintf(w, "Imported %s and %s (%s format).\n",
		plural(res.Chunks, "chunk", "chunks"), plural(res.Blocks, "block", "blocks"), res.Format)
	if res.Reembedded > 0 {
		fmt.Fprintf(w, "Embedded %s anew with %s.\n", plural(res.Reembedded, "chunk", "chunks"), res.EmbeddingModel)
	}
	if len(res.DuplicateIDs) > 0 {
		fmt.Fprintf(w, "Skipped %s already present: %s\n",
			plural(len(res.DuplicateIDs), "duplicate chunk ID", "duplicate chunk IDs"), listIDs(res.DuplicateIDs, 10))
	}
	if len(res.DuplicateContent) > 0 {
		fmt.Fprintf(w, "Skipped %s whose content is already stored: %s\n",
			plural(len(res.DuplicateContent), "memory", "memories"), listIDs(res.DuplicateContent, 10))
	}
	if n := len(res.DuplicateBlocks); n > 0 {
		keys := make([]string, n)
		for i, b := range res.DuplicateBlocks {
			keys[i] = fmt.Sprintf("%s/%q/%s", b.AgentID, b.Scope, b.Key)
		}
		fmt.Fprintf(w, "Skipped %s already present: %s\n", plural(n, "block", "blocks"), listIDs(keys, 10))
	}
	return nil
}
