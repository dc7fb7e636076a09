package main

import (
	"fmt"
	"io"

	"github.com/hippo-mem/hippo"
	"github.com/spf13/cobra"
)

func (a *app) newTrustCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "trust <id>",
		Short: "Clear a chunk's suspicious flag after review",
		Long: `Clear the suspicious flag of one of the agent's chunks (--agent /
HIPPO_AGENT), after a person has read it: it is then recalled and put in
context like any other. hippo chunks --suspicious lists the flagged chunks.
Another agent's chunk is not found. Editing the content checks it again.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			db, m, err := a.openMemory(cmd.Context(), existingDB, false)
			if err != nil {
				return err
			}
			defer db.Close()
			c, err := m.Trust(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			view := viewChunks([]*hippo.Chunk{c}, strengthNow(cmd.Context(), db))[0]
			return a.emit(view, func(w io.Writer) error {
				_, err := fmt.Fprintf(w, "Trusted %s: %s\n", c.ID, oneLine(c.Content, 100))
				return err
			})
		},
	}
}

func (a *app) newSourceCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "source <id>",
		Short: "Show where a fact or memory came from",
		Long: `Show the provenance of one of the agent's chunks: the tool or command
that wrote it and who called it (mcp, cli, library), when, the source given
with it (--source of remember and store), and for a fact the text it was
extracted from; and whether it is flagged suspicious. The memory_source tool
answers the same.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			db, m, err := a.openMemory(cmd.Context(), existingDB, false)
			if err != nil {
				return err
			}
			defer db.Close()
			info, err := m.MemorySource(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			return a.emit(info, func(w io.Writer) error {
				fmt.Fprintf(w, "[%s] %s (%s)\n", info.Kind, oneLine(info.Content, 200), info.ID)
				fmt.Fprintf(w, "written  %s\n", info.WrittenAt.UTC().Format("2006-01-02 15:04:05 UTC"))
				fmt.Fprintf(w, "by       %s\n", describeProvenance(info.Provenance))
				if !info.Current {
					fmt.Fprintln(w, "superseded")
				}
				if info.Suspicious {
					fmt.Fprintf(w, "SUSPICIOUS: %s\n", info.SuspiciousReason)
				}
				if info.Input != "" {
					fmt.Fprintf(w, "from text:\n%s\n", info.Input)
				}
				return nil
			})
		},
	}
}
