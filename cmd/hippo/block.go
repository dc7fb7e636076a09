package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/hippo-mem/hippo"
	"github.com/spf13/cobra"
)

func (a *app) newBlockCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "block [agent] <key>",
		Short: "Print a memory block's value",
		Long: `Print the value of an agent's memory block, in the --scope scope (default:
the global scope). With one argument it is the key and the agent is
--agent / HIPPO_AGENT. A missing block is an error.`,
		ValidArgsFunction: a.completeAgents,
		RunE: func(cmd *cobra.Command, args []string) error {
			agent, err := a.agentArg(args[:len(args)-1], 0)
			if err != nil {
				return err
			}
			key := args[len(args)-1]
			if err := hippo.ValidateBlockKey(key); err != nil {
				return usageErrorf("%s", hippo.ErrorMessage(err))
			}
			if err := hippo.ValidateScope(a.scope); err != nil {
				return usageErrorf("%s", hippo.ErrorMessage(err))
			}
			db, err := a.openDB(cmd.Context(), existingDB)
			if err != nil {
				return err
			}
			defer db.Close()
			m, err := db.Service(hippo.MemoryOptions{AgentID: agent, Scope: a.scope, Caller: hippo.CallerCLI})
			if err != nil {
				return err
			}
			b, err := m.Block(cmd.Context(), key)
			if err != nil {
				return err
			}
			if b == nil {
				return a.missingBlock(cmd, db, agent, key)
			}
			return a.emit(b, func(w io.Writer) error {
				v := b.Value
				if v != "" && !strings.HasSuffix(v, "\n") {
					v += "\n"
				}
				_, err := io.WriteString(w, v)
				return err
			})
		},
	}
	cmd.AddCommand(a.blockEditCommands()...)
	return cmd
}

// missingBlock is the not-found error, naming the scopes where the key does
// exist.
func (a *app) missingBlock(cmd *cobra.Command, db database, agent, key string) error {
	err := hippo.Errorf(hippo.ENOTFOUND, "agent %q has no block %q in scope %q", agent, key, a.scope)
	blocks, lerr := db.ListBlocks(cmd.Context(), agent, nil)
	if lerr != nil {
		return err
	}
	var scopes []string
	for _, b := range blocks {
		if b.Key == key {
			scopes = append(scopes, fmt.Sprintf("--scope %q", b.Scope))
		}
	}
	if len(scopes) > 0 {
		err.Message += " (it exists with " + strings.Join(scopes, ", ") + ")"
	}
	return err
}
