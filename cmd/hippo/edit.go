package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/hippo-mem/hippo"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// editFlags are hippo edit's flags.
type editFlags struct {
	content, category, reinforce string
	tags, situations             []string
	intensity                    float64
}

func (a *app) newEditCommand() *cobra.Command {
	var o editFlags
	cmd := &cobra.Command{
		Use:   "edit <id>",
		Short: "Change a fact's or memory's content, tags, category, context or intensity (update_memory)",
		Long: `Change one of the agent's facts or memories by ID: give only what changes.

A fact's new content is a new version with a new ID, and the old one is
kept as history (hippo history --id, hippo recall --as-of); a memory keeps
its ID and records its previous content in its metadata's history. New
content that another fact or memory of the scope already holds merges the
two, as storing it again would.

The edit comes with a vote, --reinforce up (the default), down or none, as
hippo reinforce gives. --tags and --context replace the lists ("" clears
them); --category "" removes the category. --content - reads standard
input.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			in, err := a.updateInput(cmd.Flags(), args[0], &o)
			if err != nil {
				return err
			}
			db, m, err := a.openMemory(cmd.Context(), existingDB, false)
			if err != nil {
				return err
			}
			defer db.Close()
			res, err := m.UpdateMemory(cmd.Context(), in)
			if err != nil {
				return err
			}
			view := struct {
				Chunk           chunkView           `json:"chunk"`
				PreviousID      string              `json:"previous_id,omitempty"`
				PreviousContent string              `json:"previous_content,omitempty"`
				Merged          bool                `json:"merged"`
				Changed         []string            `json:"changed"`
				Reinforce       hippo.Reinforcement `json:"reinforce"`
			}{viewChunks([]*hippo.Chunk{res.Chunk}, strengthAt(m.Config()))[0], res.PreviousID, res.PreviousContent,
				res.Merged, res.Changed, res.Reinforce}
			return a.emit(view, func(w io.Writer) error { return writeEdited(w, res) })
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.content, "content", "", "new content (- reads standard input)")
	f.StringSliceVar(&o.tags, "tags", nil, `new tags, comma-separated, replacing the old ones ("" clears them)`)
	f.StringVar(&o.category, "category", "", `new category ("" removes it)`)
	f.StringArrayVar(&o.situations, "context", nil, `a situation the memory belongs to, repeatable, replacing the old ones ("" clears them)`)
	f.Float64Var(&o.intensity, "intensity", 0, "new intensity, 0 to 1")
	f.StringVar(&o.reinforce, "reinforce", string(hippo.ReinforceUp), "vote with the edit: up, down or none")
	return cmd
}

// updateInput is the edit of chunk id that the flags given (f) ask for.
func (a *app) updateInput(f *pflag.FlagSet, id string, o *editFlags) (hippo.UpdateInput, error) {
	vote, err := hippo.ParseReinforcement(o.reinforce)
	if err != nil {
		return hippo.UpdateInput{}, usageErrorf("--reinforce must be up, down or none, got %q", o.reinforce)
	}
	in := hippo.UpdateInput{ID: id, Reinforce: vote}
	if f.Changed("content") {
		text, err := a.requiredText([]string{o.content}, 0, "content")
		if err != nil {
			return hippo.UpdateInput{}, err
		}
		in.Content = &text
	}
	if f.Changed("tags") {
		in.Tags = nonEmpty(o.tags)
	}
	if f.Changed("context") {
		in.Context = nonEmpty(o.situations)
	}
	if f.Changed("category") {
		in.Category = &o.category
	}
	if f.Changed("intensity") {
		in.Intensity = &o.intensity
	}
	if in.Content == nil && in.Tags == nil && in.Context == nil && in.Category == nil && in.Intensity == nil {
		return hippo.UpdateInput{}, usageErrorf("nothing to change: give --content, --tags, --category, --context or --intensity")
	}
	return in, nil
}

// writeEdited says what an edit changed, and the vote it came with.
func writeEdited(w io.Writer, res *hippo.UpdateResult) error {
	c := res.Chunk
	var err error
	switch {
	case res.Merged:
		_, err = fmt.Fprintf(w, "Merged %s into %s %s, which already held that content\n", res.PreviousID, c.Kind, c.ID)
	case res.PreviousID != "":
		_, err = fmt.Fprintf(w, "Updated fact: %s is the new version, %s is kept as history\n", c.ID, res.PreviousID)
	default:
		_, err = fmt.Fprintf(w, "Updated %s %s (%s)\n", c.Kind, c.ID, strings.Join(res.Changed, ", "))
	}
	if err == nil && res.Reinforce != hippo.ReinforceNone {
		_, err = fmt.Fprintf(w, "Voted %s: intensity %.2f, seen %d times\n", res.Reinforce, c.RunningIntensity, c.EncounterCount)
	}
	return err
}

// nonEmpty is the list without its empty items: a flag given as "" is
// an empty list.
func nonEmpty(items []string) *[]string {
	out := []string{}
	for _, s := range items {
		if s != "" {
			out = append(out, s)
		}
	}
	return &out
}
