package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"
)

func (a *app) newInitCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "init",
		Short: "Create the database and its schema (idempotent)",
		Long: `Create the database file, its directory and its schema, or bring an
existing database up to date. Running it again changes nothing.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
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
				Path    string `json:"path"`
				Created bool   `json:"created"`
			}{db.Location(), db.Created()}
			return a.emit(out, func(w io.Writer) error {
				if out.Created {
					_, err := fmt.Fprintf(w, "Created %s\n", out.Path)
					return err
				}
				_, err := fmt.Fprintf(w, "%s is up to date\n", out.Path)
				return err
			})
		},
	}
}
