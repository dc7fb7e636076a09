package main

import (
	"fmt"
	"io"
	"os"

	"github.com/hippo-mem/hippo"
	"github.com/spf13/cobra"
)

func (a *app) newInitCommand() *cobra.Command {
	var decay string
	cmd := &cobra.Command{
		Use:   "init",
		Short: "Create the database and its schema (idempotent)",
		Long: `Create the database file, its directory and its schema, or bring an
existing database up to date. Running it again changes nothing.

--decay chooses the decay model, recorded in the database for every
process that opens it: hippo (the default: intensity × e^(−λ/resistance ×
hours), +0.02 per recall) or ebbinghaus (importance × e^(−t/S), the
stability S 10, 5 or 1 days by intensity, × 1.5 per recall, at most 365).
Given on an existing database it switches the model: strengths are
computed from what every chunk stores, so nothing needs rewriting. A
process that has the database open (hippo serve) keeps the model it
opened it with until it opens it again.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			model, err := hippo.ParseDecayModel(decay)
			if err != nil {
				return usageErrorf("--decay must be %q or %q, got %q", hippo.DecayHippo, hippo.DecayEbbinghaus, decay)
			}
			if decay != "" {
				a.decay = model
			}
			// The configured embedder sets a new file's page size; a
			// misconfigured one is reported by the commands that embed.
			emb, err := a.embedder()
			if err != nil {
				emb = nil
			}
			db, err := a.openDBFor(cmd.Context(), emb, createDB)
			if err != nil {
				return err
			}
			defer db.Close()
			out := struct {
				Path    string           `json:"path"`
				Created bool             `json:"created"`
				Decay   hippo.DecayModel `json:"decay_model"`
			}{db.Location(), db.Created(), db.Config().Decay}
			return a.emit(out, func(w io.Writer) error {
				if out.Created {
					_, err := fmt.Fprintf(w, "Created %s (decay model %s)\n", out.Path, out.Decay)
					return err
				}
				_, err := fmt.Fprintf(w, "%s is up to date (decay model %s)\n", out.Path, out.Decay)
				return err
			})
		},
	}
	cmd.Flags().StringVar(&decay, "decay", os.Getenv("HIPPO_DECAY"), "decay model: hippo (the default) or ebbinghaus (env HIPPO_DECAY)")
	return cmd
}
