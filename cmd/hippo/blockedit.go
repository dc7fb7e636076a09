package main

import (
	"context"
	"fmt"
	"io"

	"github.com/hippo-mem/hippo"
	"github.com/spf13/cobra"
)

// blockEditCommands are "block set|append|replace|get|delete", acting on
// the block of --agent in --scope (default: the global scope).
func (a *app) blockEditCommands() []*cobra.Command {
	return []*cobra.Command{
		a.blockWriteCommand("set <key> <value|->", "Set a block's whole value, creating it if needed",
			func(ctx context.Context, m hippo.AgentMemory, key, text string) (*hippo.Block, error) {
				return m.SetBlock(ctx, key, text)
			}),
		a.blockWriteCommand("append <key> <text|->", "Append a line to a block, creating it if needed",
			func(ctx context.Context, m hippo.AgentMemory, key, text string) (*hippo.Block, error) {
				return m.AppendBlock(ctx, key, text)
			}),
		{
			Use:   "replace <key> <old> <new>",
			Short: "Replace every occurrence of old with new in a block",
			RunE: func(cmd *cobra.Command, args []string) error {
				return a.useMemory(cmd.Context(), existingDB, false, func(db database, m hippo.AgentMemory) error {
					b, n, err := m.ReplaceBlock(cmd.Context(), args[0], args[1], args[2])
					if err != nil {
						return err
					}
					a.note("Replaced %s.", plural(n, "occurrence", "occurrences"))
					return a.printBlock(b, map[string]any{"replaced": n})
				})
			},
		},
		{
			Use:   "get <key>",
			Short: "Print a block's value (like block <agent> <key>, agent from --agent)",
			RunE: func(cmd *cobra.Command, args []string) error {
				return a.useMemory(cmd.Context(), existingDB, false, func(db database, m hippo.AgentMemory) error {
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
				})
			},
		},
		a.blockWriteCommand("describe <key> <description|->", "Say what a block is for (creates it empty if needed)",
			func(ctx context.Context, m hippo.AgentMemory, key, text string) (*hippo.Block, error) {
				return m.DescribeBlock(ctx, key, text)
			}),
		a.blockDeleteCommand(),
	}
}

// blockWriteCommand is a "block" subcommand taking a key and a text (or "-"
// for standard input) and writing them with write.
func (a *app) blockWriteCommand(use, short string, write func(context.Context, hippo.AgentMemory, string, string) (*hippo.Block, error)) *cobra.Command {
	return &cobra.Command{
		Use:   use,
		Short: short,
		RunE: func(cmd *cobra.Command, args []string) error {
			text, err := a.textArg(args, 1, "text")
			if err != nil {
				return err
			}
			return a.useMemory(cmd.Context(), createDB, false, func(_ database, m hippo.AgentMemory) error {
				b, err := write(cmd.Context(), m, args[0], text)
				if err != nil {
					return err
				}
				return a.printBlock(b, nil)
			})
		},
	}
}

// printBlock prints a block after a change, with extra fields under --json.
func (a *app) printBlock(b *hippo.Block, extra map[string]any) error {
	out := map[string]any{"block": b}
	for k, v := range extra {
		out[k] = v
	}
	return a.emit(out, func(w io.Writer) error {
		_, err := fmt.Fprintf(w, "%s (%d characters):\n%s\n", b.Key, len([]rune(b.Value)), b.Value)
		return err
	})
}
