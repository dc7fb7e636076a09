package main

import (
	"fmt"
	"io"

	"github.com/hippo-mem/hippo"
	"github.com/spf13/cobra"
)

// blockEditCommands are "block set|append|replace|get", acting on the
// block of --agent in --scope (default: the global scope).
func (a *app) blockEditCommands() []*cobra.Command {
	printBlock := func(b *hippo.Block, extra map[string]any) error {
		out := map[string]any{"block": b}
		for k, v := range extra {
			out[k] = v
		}
		return a.emit(out, func(w io.Writer) error {
			_, err := fmt.Fprintf(w, "%s (%d characters):\n%s\n", b.Key, len([]rune(b.Value)), b.Value)
			return err
		})
	}
	return []*cobra.Command{
		a.blockDeleteCommand(),
		{
			Use:   "set <key> <value|->",
			Short: "Set a block's whole value, creating it if needed",
			Args:  cobra.ExactArgs(2),
			RunE: func(cmd *cobra.Command, args []string) error {
				value, err := a.textArg(args, 1, "value")
				if err != nil {
					return err
				}
				db, m, err := a.openMemory(cmd.Context(), false)
				if err != nil {
					return err
				}
				defer db.Close()
				b, err := m.SetBlock(cmd.Context(), args[0], value)
				if err != nil {
					return err
				}
				return printBlock(b, nil)
			},
		},
		{
			Use:   "append <key> <text|->",
			Short: "Append a line to a block, creating it if needed",
			Args:  cobra.ExactArgs(2),
			RunE: func(cmd *cobra.Command, args []string) error {
				text, err := a.textArg(args, 1, "text")
				if err != nil {
					return err
				}
				db, m, err := a.openMemory(cmd.Context(), false)
				if err != nil {
					return err
				}
				defer db.Close()
				b, err := m.AppendBlock(cmd.Context(), args[0], text)
				if err != nil {
					return err
				}
				return printBlock(b, nil)
			},
		},
		{
			Use:   "replace <key> <old> <new>",
			Short: "Replace every occurrence of old with new in a block",
			Args:  cobra.ExactArgs(3),
			RunE: func(cmd *cobra.Command, args []string) error {
				db, m, err := a.openMemory(cmd.Context(), false)
				if err != nil {
					return err
				}
				defer db.Close()
				b, n, err := m.ReplaceBlock(cmd.Context(), args[0], args[1], args[2])
				if err != nil {
					return err
				}
				a.note("Replaced %s.", plural(n, "occurrence", "occurrences"))
				return printBlock(b, map[string]any{"replaced": n})
			},
		},
		{
			Use:   "get <key>",
			Short: "Print a block's value (like block <agent> <key>, agent from --agent)",
			Args:  cobra.ExactArgs(1),
			RunE: func(cmd *cobra.Command, args []string) error {
				db, m, err := a.openMemory(cmd.Context(), false)
				if err != nil {
					return err
				}
				defer db.Close()
				b, err := m.Block(cmd.Context(), args[0])
				if err != nil {
					return err
				}
				if b == nil {
					return a.missingBlock(cmd, db, m.AgentID(), args[0])
				}
				return a.emit(b, func(w io.Writer) error {
					_, err := fmt.Fprintln(w, b.Value)
					return err
				})
			},
		},
	}
}
