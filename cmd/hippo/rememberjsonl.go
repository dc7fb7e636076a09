package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/hippo-mem/hippo"
	"github.com/spf13/cobra"
)

// rememberItem is one line of `hippo remember --jsonl`: remember_facts'
// text and source.
type rememberItem struct {
	Text   string `json:"text"`
	Source string `json:"source,omitempty"`
}

// rememberLineResult is what became of one line: the facts learned from
// it and the memory its text was kept as.
type rememberLineResult struct {
	jsonlLine
	Facts   []rememberedFact   `json:"facts,omitempty"`
	Message *hippo.KeptMessage `json:"message,omitempty"`
}

// rememberedFact is one fact of a line: the chunk it was stored as, or
// the known fact it strengthened, and what was done.
type rememberedFact struct {
	ChunkID string       `json:"chunk_id"`
	Action  hippo.Action `json:"action"`
}

// rememberJSONL is `hippo remember --jsonl name`: it learns each line of a
// JSON Lines file ("-": standard input) as `hippo remember` learns its
// text, one line at a time and in order (remember_facts has no batch
// call). A line that is not an item, or that Remember refuses, fails
// alone; the command then exits 1 once the rest is learned.
func (a *app) rememberJSONL(cmd *cobra.Command, args []string, name string) error {
	if len(args) > 0 || cmd.Flags().Changed("fact") || cmd.Flags().Changed("intensity") || cmd.Flags().Changed("replaces") || cmd.Flags().Changed("source") {
		return usageErrorf("--jsonl takes no <text>, --fact, --intensity, --replaces or --source: each line has its own")
	}
	ctx := cmd.Context()
	db, m, err := a.openMemory(ctx, createDB, true)
	if err != nil {
		return err
	}
	defer db.Close()
	in, err := a.openJSONL(name, "remembering")
	if err != nil {
		return err
	}
	defer in.close()
	async, _ := cmd.Flags().GetBool("async")
	r := &jsonlRemember{m: m, facts: map[hippo.Action]int{}, async: async}
	err = in.each("learned", func(n int, line []byte) error {
		err := r.learn(ctx, n, line)
		in.progress()
		return err
	})
	if err != nil {
		return err
	}
	in.finish()
	view := struct {
		Learned int                  `json:"learned"`
		Facts   map[hippo.Action]int `json:"facts"`
		Kept    int                  `json:"kept"`
		Failed  int                  `json:"failed"`
		Lines   []rememberLineResult `json:"lines"`
	}{r.learned, r.facts, r.kept, r.failed, r.out}
	return a.emitJSONL(view, r.write, r.failed, len(r.out), "learned")
}

// jsonlRemember learns the lines of a JSON Lines file and keeps what
// became of each.
type jsonlRemember struct {
	m     hippo.MemoryService
	async bool // queue each text (--async)
	out   []rememberLineResult
	facts map[hippo.Action]int // the facts learned, by action
	// learned and failed count lines, kept the texts kept as memories.
	learned, kept, failed int
}

// learn remembers line n. A line fails alone unless the memory cannot
// serve any line now (interrupted, disk full): that error stops the run.
func (r *jsonlRemember) learn(ctx context.Context, n int, line []byte) error {
	res := rememberLineResult{jsonlLine: jsonlLine{Line: n}}
	var it rememberItem
	if err := decodeJSONLine(line, &it, "text and source"); err != nil {
		res.Error = err.Error()
		r.add(res)
		return nil
	}
	learned, err := r.m.Remember(ctx, hippo.RememberInput{Text: it.Text, Source: it.Source, Async: r.async})
	if err != nil {
		if ctx.Err() != nil || hippo.ErrorCode(err) == hippo.EUNAVAILABLE {
			return fmt.Errorf("line %d: %w (the lines before it are learned)", n, err)
		}
		res.Error = hippo.ErrorMessage(err)
		r.add(res)
		return nil
	}
	res.Facts, res.Message = make([]rememberedFact, len(learned.Facts)), learned.Message
	for i, f := range learned.Facts {
		res.Facts[i] = rememberedFact{ChunkID: f.ChunkID, Action: f.Action}
	}
	r.add(res)
	return nil
}

// add notes what became of a line and counts it.
func (r *jsonlRemember) add(res rememberLineResult) {
	r.out = append(r.out, res)
	if res.Error != "" {
		r.failed++
		return
	}
	r.learned++
	if res.Message != nil {
		r.kept++
	}
	for _, f := range res.Facts {
		r.facts[f.Action]++
	}
}

// write lists the lines that failed and counts the rest: "Remembered 4
// texts: 6 facts (5 new, 1 superseding), 4 texts kept; 1 failed."
func (r *jsonlRemember) write(w io.Writer) error {
	if err := writeFailures(w, r.out); err != nil {
		return err
	}
	total, parts := 0, []string{}
	for _, g := range []struct {
		action hippo.Action
		label  string
	}{{hippo.ActionNew, "new"}, {hippo.ActionDuplicate, "updated"}, {hippo.ActionSupersedes, "superseding"}, {hippo.ActionDistinct, "distinct"}} {
		if k := r.facts[g.action]; k > 0 {
			total += k
			parts = append(parts, fmt.Sprintf("%d %s", k, g.label))
		}
	}
	facts := plural(total, "fact", "facts")
	if len(parts) > 0 {
		facts += " (" + strings.Join(parts, ", ") + ")"
	}
	_, err := fmt.Fprintf(w, "Remembered %s: %s, %s kept; %d failed.\n",
		plural(r.learned, "text", "texts"), facts, plural(r.kept, "text", "texts"), r.failed)
	return err
}
