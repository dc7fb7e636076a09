package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
)

func (a *app) newReembedCommand() *cobra.Command {
	var (
		batch int
		force bool
	)
	cmd := &cobra.Command{
		Use:   "reembed",
		Short: "Re-embed every chunk with the configured embedder (preview unless --force)",
		Long: `Re-embed the content of every chunk of every agent with the configured
embedder (--embed-*, HIPPO_EMBED_*, else the offline default) and switch the
database's embedding model lock to it.

The work is done in batches of --batch-size texts and recorded as it goes,
beside the chunks: recall keeps answering with the old model until one
final transaction switches every chunk and the lock at once. An interrupted
run (Ctrl-C, a failing endpoint) changes nothing visible, and running the
command again with the same embedder resumes it.

Without --force nothing changes: the command shows how many chunks would be
re-embedded, from which model to which (with --json, a document with
"dry_run": true).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if batch <= 0 {
				return usageErrorf("--batch-size must be positive, got %d", batch)
			}
			ctx := cmd.Context()
			e, err := a.embedder()
			if err != nil {
				return err
			}
			db, err := a.openDB(ctx, existingDB)
			if err != nil {
				return err
			}
			defer db.Close()
			opts := hippo.ReembedOptions{BatchSize: batch, DryRun: !force}
			var (
				bar    *progressbar.ProgressBar
				barSet bool
			)
			if force {
				opts.Progress = func(done, total int) {
					if !barSet {
						bar, barSet = a.progress(int64(total), "re-embedding", false), true
					}
					if bar != nil {
						bar.ChangeMax(total)
						_ = bar.Set(done)
					}
				}
			}
			start := time.Now()
			res, err := db.Reembed(ctx, e, opts)
			if bar != nil {
				_ = bar.Close()
			}
			if err != nil {
				if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
					return &hippo.Error{Code: hippo.EINTERNAL, Message: err.Error()}
				}
				return err
			}
			out := reembedOutput{ReembedResult: res}
			if force {
				secs := time.Since(start).Seconds()
				rate := 0.0
				if secs > 0 {
					rate = float64(res.Embedded) / secs
				}
				out.Seconds, out.PerSecond = &secs, &rate
			}
			return a.emit(out, func(w io.Writer) error { return out.text(a, w) })
		},
	}
	f := cmd.Flags()
	f.IntVar(&batch, "batch-size", hippo.DefaultReembedBatch, "texts per embedding request")
	f.BoolVar(&force, "force", false, "really re-embed and switch the model")
	return cmd
}

// reembedOutput is the result with, after a real run, its duration and
// throughput (chunks embedded by this run per second).
type reembedOutput struct {
	*hippo.ReembedResult
	Seconds   *float64 `json:"duration_seconds,omitempty"`
	PerSecond *float64 `json:"chunks_per_second,omitempty"`
}

func (o reembedOutput) text(a *app, w io.Writer) error {
	r := o.ReembedResult
	switch {
	case r.Unchanged && r.From == nil:
		fmt.Fprintln(w, "The database holds no chunks: nothing to re-embed.")
		return nil
	case r.Unchanged:
		fmt.Fprintf(w, "The database is already on %s: nothing to re-embed.\n", r.From)
		return nil
	case r.DryRun:
		fmt.Fprintf(w, "Would re-embed %s (all agents)\n  from %s\n  to   %s\n",
			plural(r.Chunks, "chunk", "chunks"), showLock(r.From), showLock(&r.To))
		if r.Reused > 0 {
			fmt.Fprintf(w, "%s already re-embedded by an interrupted run would be kept.\n", plural(r.Reused, "chunk", "chunks"))
		}
		a.note("Nothing changed: run again with --force to re-embed and switch the model.")
		return nil
	}
	fmt.Fprintf(w, "Re-embedded %s in %.1fs (%.0f chunks/s)", plural(r.Embedded, "chunk", "chunks"), *o.Seconds, *o.PerSecond)
	if r.Reused > 0 {
		fmt.Fprintf(w, ", keeping %d from an interrupted run", r.Reused)
	}
	fmt.Fprintf(w, ".\nThe database's %s are now on %s (was %s).\n", plural(r.Chunks, "chunk", "chunks"), r.To, showLock(r.From))
	return nil
}

// showLock describes a model lock, which may be missing or of a dimension
// not known yet.
func showLock(l *hippo.ModelLock) string {
	switch {
	case l == nil:
		return "no model"
	case l.Dimension == 0:
		return fmt.Sprintf("%q (dimension known after its first response)", l.Model)
	}
	return l.String()
}
