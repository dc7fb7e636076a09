package eval_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hippo-mem/hippo"
)

var flagSupList = flag.Bool("supersessions-list", false, "TestConversationGivenSupersession logs every supersession and every replacement missed")

var flagFactsList = flag.String("facts-list", "", "write TestConversationFactsOffline's listing of each message, its facts given by hand and its facts extracted offline to this file")

// TestConversationFactsOffline learns the conversation sets that have
// facts written by hand (conversation_x_facts.tsv) with remember_facts
// and the offline extractor and classifier, text kept, and logs what it
// made of them beside what was written: messages written facts for that
// gave no fact,
// facts stored, and supersessions, split by whether the hand-written
// facts of that message replace an earlier one (a correction) or not. With
// -facts-list it writes every message with both lists, for counting lost
// and garbled facts by reading.
func TestConversationFactsOffline(t *testing.T) {
	if raceEnabled {
		t.Skip("a measurement that logs: run without -race (learning four sets takes minutes under it)")
	}
	ctx := context.Background()
	e := firstContactEmbedder()
	var list strings.Builder
	for _, set := range everyConversationSet {
		given, ok := givenFacts(t, set)
		if !ok {
			continue
		}
		users, msgs, _ := loadConversation(t, set)
		var nGiven, nMsgs, withFacts, silent, stored, superseded, supersededRight, corrections, correctionsSuperseding int
		for _, user := range users {
			c, err := newLibClient(ctx, filepath.Join(t.TempDir(), user+".db"), user, e)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range msgs {
				if m.user != user {
					continue
				}
				res, err := c.mem.RememberFacts(ctx, m.text)
				if err != nil {
					t.Fatalf("%s %s: %v", set, m.id, err)
				}
				g := given[m.text]
				nMsgs++
				nGiven += len(g)
				correction := false
				for _, f := range g {
					correction = correction || f.Replaces != ""
				}
				if correction {
					corrections++
				}
				if len(g) > 0 {
					withFacts++
					if len(res.Facts) == 0 {
						silent++
					}
				}
				sup := false
				fmt.Fprintf(&list, "\n%s %s: %s\n", set, m.id, m.text)
				for _, f := range g {
					fmt.Fprintf(&list, "  given: %s", f.Fact)
					if f.Replaces != "" {
						fmt.Fprintf(&list, " (replaces %q)", f.Replaces)
					}
					list.WriteString("\n")
				}
				for _, f := range res.Facts {
					switch f.Action {
					case hippo.ActionNew, hippo.ActionDistinct:
						stored++
					case hippo.ActionSupersedes:
						stored++
						superseded++
						sup = true
						if correction {
							supersededRight++
						}
					}
					fmt.Fprintf(&list, "  %s: %s", f.Action, f.Content)
					if f.SupersededContent != "" {
						fmt.Fprintf(&list, " (over %q, similarity %.2f)", f.SupersededContent, f.Similarity)
					}
					list.WriteString("\n")
				}
				if len(res.Facts) == 0 {
					fmt.Fprintf(&list, "  no fact: %s\n", res.Reason)
				}
				if correction && sup {
					correctionsSuperseding++
				}
			}
			c.db.Close()
		}
		t.Logf("%s offline, text kept: %d messages, %d of them with facts written by hand (%d facts); %d of those gave no fact (their text kept); %d facts stored; %d supersessions, %d of them in a message that corrects an earlier one; %d of %d corrections superseded something",
			set, nMsgs, withFacts, nGiven, silent, stored, superseded, supersededRight, correctionsSuperseding, corrections)
	}
	if *flagFactsList != "" {
		if err := os.WriteFile(*flagFactsList, []byte(list.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestConversationGivenSupersession hands each message's facts written by
// hand to remember_facts without the earlier fact each replaces, so that
// the offline classifier decides, and logs its supersessions against the
// facts files' fifth column: right when the fact superseded is the one
// written as replaced, wrong otherwise, and the replacements it missed.
func TestConversationGivenSupersession(t *testing.T) {
	if raceEnabled {
		t.Skip("a measurement that logs: run without -race (learning four sets takes minutes under it)")
	}
	ctx := context.Background()
	e := firstContactEmbedder()
	for _, set := range everyConversationSet {
		given, ok := givenFacts(t, set)
		if !ok {
			continue
		}
		users, msgs, _ := loadConversation(t, set)
		var facts, replacing, right, wrong int
		var wrongs []string
		for _, user := range users {
			c, err := newLibClient(ctx, filepath.Join(t.TempDir(), user+".db"), user, e)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range msgs {
				g := given[m.text]
				if m.user != user || len(g) == 0 {
					continue
				}
				bare := make([]hippo.GivenFact, len(g))
				for i, f := range g {
					bare[i] = hippo.GivenFact{Fact: f.Fact, Intensity: f.Intensity}
				}
				res, err := c.mem.Remember(ctx, hippo.RememberInput{Text: m.text, Facts: bare})
				if err != nil {
					t.Fatalf("%s %s: %v", set, m.id, err)
				}
				replaces := map[string]string{}
				for _, f := range g {
					facts++
					if f.Replaces != "" {
						replacing++
						replaces[f.Fact] = f.Replaces
					}
				}
				for _, f := range res.Facts {
					if *flagSupList && replaces[f.Content] != "" && f.Action != hippo.ActionSupersedes {
						vs, err := e.Embed(ctx, []string{f.Content, replaces[f.Content]})
						if err != nil {
							t.Fatal(err)
						}
						t.Logf("  missed: %s %s %q, named %q (similarity %.2f)", m.id, f.Action, f.Content, replaces[f.Content], cosine(vs[0], vs[1]))
					}
					if f.Action != hippo.ActionSupersedes {
						continue
					}
					if *flagSupList {
						t.Logf("  superseded: %s right=%v %q over %q (similarity %.2f)", m.id, replaces[f.Content] == f.SupersededContent, f.Content, f.SupersededContent, f.Similarity)
					}
					if replaces[f.Content] == f.SupersededContent {
						right++
					} else {
						wrong++
						wrongs = append(wrongs, fmt.Sprintf("%s %q over %q (similarity %.2f)", m.id, f.Content, f.SupersededContent, f.Similarity))
					}
				}
			}
			c.db.Close()
		}
		t.Logf("%s, facts given without what they replace (%d facts, %d replace an earlier one): the offline classifier superseded %d, %d the fact written as replaced and %d another",
			set, facts, replacing, right+wrong, right, wrong)
		for _, w := range wrongs {
			t.Logf("  wrong: %s", w)
		}
	}
}
