package main

import (
	"github.com/hippo-mem/hippo"
	"io"
	"strings"

	"github.com/spf13/cobra"
)

func (a *app) newSearchCommand() *cobra.Command {
	var (
		kind       string
		superseded bool
		limit      int
	)
	cmd := &cobra.Command{
		Use:   "search <text>",
		Short: "Find chunks whose content contains text",
		Long: `Find chunks whose content contains text, ignoring case and accents ("cafe"
finds "Café"), across all agents unless --agent is given. Every other
character, % and _ too, matches itself. Newest first. Superseded facts are
left out unless --superseded.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			text := args[0]
			if strings.TrimSpace(text) == "" {
				return usageErrorf("<text> must not be empty")
			}
			k, err := parseKind(kind)
			if err != nil {
				return err
			}
			if err := checkPaging(limit, 0); err != nil {
				return err
			}
			scope, err := a.scopeFilter()
			if err != nil {
				return err
			}
			views, total, err := a.listChunks(cmd.Context(),
				hippo.ChunkFilter{AgentID: a.agent, Scope: scope, Kind: k, Superseded: superseded, Text: text, Limit: limit})
			if err != nil {
				return err
			}
			out := struct {
				Query   string      `json:"query"`
				AgentID string      `json:"agent_id,omitempty"`
				Total   int         `json:"total"`
				Chunks  []chunkView `json:"chunks"`
			}{text, a.agent, total, views}
			return a.emit(out, func(w io.Writer) error {
				if a.agent != "" {
					a.note("Searching agent %q only (--agent / HIPPO_AGENT).", a.agent)
				}
				if total == 0 {
					a.note("No chunks contain %q.", text)
					return nil
				}
				header, rows := chunkRows(views, true)
				if err := table(w, header, rows); err != nil {
					return err
				}
				if len(views) < total {
					a.note("Showing %d of %d; raise --limit for more.", len(views), total)
				}
				return nil
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&kind, "kind", "", `only "fact" or "memory"`)
	f.BoolVar(&superseded, "superseded", false, "include superseded facts")
	f.IntVar(&limit, "limit", 50, "at most this many (0: all)")
	return cmd
}
