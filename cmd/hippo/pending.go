package main

import (
	"context"
	"fmt"
	"io"

	"github.com/hippo-mem/hippo"
	"github.com/spf13/cobra"
)

// pendingOutput is what `hippo pending` learned, agent by agent.
type pendingOutput struct {
	Agents []pendingAgent `json:"agents"`
}

type pendingAgent struct {
	AgentID string `json:"agent_id"`
	Learned int    `json:"learned"`
	Error   string `json:"error,omitempty"`
}

func (a *app) newPendingCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "pending",
		Short: "Learn the facts of the texts that async remember left queued",
		Long: `Learn the facts of the texts queued by remember --async (or
remember_facts with async) that no run has learned yet: a run stopped by a
crash or the end of its process leaves them queued. hippo serve learns them
when it starts; this command learns them now, with the configured embedder
and fact models, for --agent or every agent that has some. hippo stats
counts what is queued.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			models, err := a.memoryModels()
			if err != nil {
				return err
			}
			db, err := a.openDBFor(ctx, models.Embedder, existingDB)
			if err != nil {
				return err
			}
			defer db.Close()
			if models.Embedder, err = a.embedderFor(ctx, db); err != nil {
				return err
			}
			var agents []string
			if a.agent != "" {
				agent, err := a.agentFlag()
				if err != nil {
					return err
				}
				agents = []string{agent}
			}
			out, err := learnQueued(ctx, db, models, hippo.CallerCLI, agents)
			if err != nil {
				return err
			}
			err = a.emit(out, func(w io.Writer) error {
				if len(out.Agents) == 0 {
					_, err := fmt.Fprintln(w, "Nothing queued.")
					return err
				}
				for _, ag := range out.Agents {
					line := fmt.Sprintf("%s: learned %d queued texts", ag.AgentID, ag.Learned)
					if ag.Error != "" {
						line += "; stopped: " + ag.Error
					}
					if _, err := fmt.Fprintln(w, line); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				return err
			}
			for _, ag := range out.Agents {
				if ag.Error != "" {
					return fmt.Errorf("the queued texts of %s were not all learned (listed above); they stay queued", ag.AgentID)
				}
			}
			return nil
		},
	}
}

// memoryModels are the embedder and fact models the flags configure, with
// --discard-text, for memories of any agent.
func (a *app) memoryModels() (hippo.MemoryOptions, error) {
	var o hippo.MemoryOptions
	var err error
	if o.Embedder, err = a.embedder(); err != nil {
		return o, err
	}
	if o.Extractor, o.Classifier, o.FallbackExtractor, err = a.factModels(); err != nil {
		return o, err
	}
	o.DiscardText, err = a.discardText()
	return o, err
}

// learnQueued learns the queued texts of agents (nil: every agent with
// some) with models, one agent after the other. An agent whose learning
// fails is reported with the error; its texts stay queued.
func learnQueued(ctx context.Context, db database, models hippo.MemoryOptions, caller string, agents []string) (*pendingOutput, error) {
	out := &pendingOutput{Agents: []pendingAgent{}}
	l, ok := db.(hippo.Learner)
	if !ok {
		return out, nil
	}
	if agents == nil {
		var err error
		if agents, err = l.PendingAgents(ctx); err != nil {
			return nil, err
		}
	}
	for _, agent := range agents {
		opts := models
		opts.AgentID, opts.Caller = agent, caller
		m, err := db.Service(opts)
		if err != nil {
			return nil, err
		}
		res := pendingAgent{AgentID: agent}
		if p, ok := m.(hippo.PendingLearner); ok {
			res.Learned, err = p.LearnPending(ctx)
			if err != nil {
				res.Error = hippo.ErrorMessage(err)
			}
		}
		out.Agents = append(out.Agents, res)
	}
	return out, nil
}
