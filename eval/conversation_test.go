package eval_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/local"
	"github.com/hippo-mem/hippo/sqlite"
)

// The conversation sets: users who talk as people do (several facts a
// message, follow-ups that start with a pronoun, corrections, requests
// about how to answer, chit-chat), each message stored verbatim with
// StoreMemory, then asked questions worded unlike their answers, in order
// with the boost on. Both were written on 2026-11-28 before anything ran
// on them. A is a tune set (its misses are logged); B is held out: no
// constant or rule was chosen on it, and only its figures are logged. D,
// of the same kind, was written before remember_facts kept its texts and
// is held out for that change: it is in no sweep.
//
// Set C is of another kind, held out too: two friends chat over months,
// each turn stored as "Name: text", and questions ask about either of
// them in the third person, as conversation benchmarks do.
const (
	conversationSetA = "conversation_a.tsv"
	conversationSetB = "conversation_b.tsv"
	conversationSetC = "conversation_c.tsv"
	// conversationSetD is of A's kind, written before messages were kept
	// by remember_facts: held out for that change.
	conversationSetD = "conversation_d.tsv"
	// conversationSetE is of A's kind, written before verbatim
	// corrections were ranked first (newerFirst): held out for that.
	conversationSetE = "conversation_e.tsv"
	// conversationSetF is of C's kind, longer (LoCoMo-like), written
	// before store-time update links: held out for them.
	conversationSetF = "conversation_f.tsv"
)

// everyConversationSet is every conversation set: those of the sweeps,
// then those held out of them.
var everyConversationSet = append(append([]string(nil), conversationSets...), conversationSetD, conversationSetE, conversationSetF)

// conversationSets are the conversation sets, the tune set first.
var conversationSets = []string{conversationSetA, conversationSetB, conversationSetC}

type convMessage struct{ user, id, text string }

type convQuestion struct {
	user, text string
	relevant   map[string]bool // message IDs; empty for an off-topic question
	outdated   map[string]bool // earlier values the answer corrected
}

// loadConversation reads a conversation set: its messages in order and
// its questions, by user.
func loadConversation(t testing.TB, name string) (users []string, msgs []convMessage, qs []convQuestion) {
	t.Helper()
	seen := map[string]bool{}
	ids := map[string]bool{}
	for _, f := range readTSVAtLeast(t, name, 3) {
		switch f[0] {
		case "message":
			user, _, ok := strings.Cut(f[1], ".")
			if !ok || ids[f[1]] {
				t.Fatalf("%s: message ID %q is not <user>.<n> or repeats", name, f[1])
			}
			ids[f[1]] = true
			if !seen[user] {
				seen[user] = true
				users = append(users, user)
			}
			msgs = append(msgs, convMessage{user, f[1], f[2]})
		case "question":
			q := convQuestion{text: f[2], relevant: map[string]bool{}, outdated: map[string]bool{}}
			for _, id := range strings.Split(f[1], ",") {
				if id = strings.TrimSpace(id); id != "-" {
					q.relevant[id] = true
				}
			}
			if len(f) > 3 {
				for _, id := range strings.Split(f[3], ",") {
					if id = strings.TrimSpace(id); id != "" {
						q.outdated[id] = true
					}
				}
			}
			for id := range q.relevant {
				q.user, _, _ = strings.Cut(id, ".")
			}
			if q.user == "" && len(msgs) > 0 {
				q.user = msgs[len(msgs)-1].user // off-topic: the user whose rows it follows
			}
			for id := range q.relevant {
				if !ids[id] {
					t.Fatalf("%s: question %q names message %s, not before it", name, q.text, id)
				}
			}
			qs = append(qs, q)
		default:
			t.Fatalf("%s: unknown row kind %q", name, f[0])
		}
	}
	return users, msgs, qs
}

// convOutcome is what a conversation set came to.
type convOutcome struct {
	answerable, first, top3, top5 int
	// stale counts the questions about a corrected value where an
	// outdated message ranks above the correction (or is returned while
	// the correction is not); corrections counts those questions.
	stale, corrections int
	// offTopic counts the off-topic questions; offTopicEmpty those that
	// got nothing back.
	offTopic, offTopicEmpty int
	misses                  []string
	// r10 sums, over the answerable questions, the share of their
	// relevant messages among the first 10 results (R@10 once divided).
	r10 float64
}

func (o convOutcome) String() string {
	return fmt.Sprintf("right memory first %d/%d, top 3 %d/%d, top 5 %d/%d, R@10 %.3f, outdated above its correction %d/%d, off-topic answered with nothing or only weak matches %d/%d",
		o.first, o.answerable, o.top3, o.answerable, o.top5, o.answerable, o.r10/float64(max(1, o.answerable)), o.stale, o.corrections, o.offTopicEmpty, o.offTopic)
}

// learnFunc takes a message into memory through c and returns the chunks
// it wrote or strengthened.
type learnFunc func(ctx context.Context, c client, text string) ([]string, error)

// storeVerbatim stores a message with store_memory.
func storeVerbatim(ctx context.Context, c client, text string) ([]string, error) {
	id, _, err := c.store(ctx, text)
	return []string{id}, err
}

// rememberMessage learns a message with remember_facts: its facts, and the
// message itself when it is kept.
func rememberMessage(ctx context.Context, c client, text string) ([]string, error) {
	res, err := c.remember(ctx, text)
	if err != nil {
		return nil, err
	}
	return learnedIDs(res), nil
}

// learnedIDs are the chunks a remember_facts call wrote or strengthened:
// its facts, and its text when kept.
func learnedIDs(res *hippo.RememberResult) []string {
	var ids []string
	for _, f := range res.Facts {
		ids = append(ids, f.ChunkID)
	}
	if res.Message != nil {
		ids = append(ids, res.Message.ID)
	}
	return ids
}

// conversation takes every user's messages into memory with learn (nil:
// verbatim) through the client open makes for that user, then asks that
// user's questions in order. A chunk counts for the first message that
// wrote or restated it.
func conversation(t testing.TB, ctx context.Context, set string, open func(user string) client, learn learnFunc) convOutcome {
	return conversationAt(t, ctx, set, open, learn, nil)
}

// conversationAt is conversation with every question asked at alpha (nil:
// the embedder's own).
func conversationAt(t testing.TB, ctx context.Context, set string, open func(user string) client, learn learnFunc, alpha *float64) convOutcome {
	t.Helper()
	if learn == nil {
		learn = storeVerbatim
	}
	users, msgs, qs := loadConversation(t, set)
	var o convOutcome
	for _, user := range users {
		c := open(user)
		msgOf := map[string]string{} // message ID by chunk ID
		for _, m := range msgs {
			if m.user != user {
				continue
			}
			ids, err := learn(ctx, c, m.text)
			if err != nil {
				t.Fatalf("learn %s: %v", m.id, err)
			}
			for _, id := range ids {
				if _, ok := msgOf[id]; !ok {
					msgOf[id] = m.id
				}
			}
		}
		for _, q := range qs {
			if q.user != user {
				continue
			}
			res, err := c.recall(ctx, q.text, 10, alpha, nil)
			if err != nil {
				t.Fatalf("recall %q: %v", q.text, err)
			}
			if len(q.relevant) == 0 {
				o.offTopic++
				if len(res) == 0 || res[0].Weak {
					o.offTopicEmpty++ // nothing, or only weak matches
				}
				continue
			}
			o.answerable++
			rank, staleRank := 0, 0
			found := map[string]bool{}
			for i, r := range res {
				if i < 10 && q.relevant[msgOf[r.ID]] {
					found[msgOf[r.ID]] = true
				}
				if q.relevant[msgOf[r.ID]] && rank == 0 {
					rank = i + 1
				}
				if q.outdated[msgOf[r.ID]] && staleRank == 0 {
					staleRank = i + 1
				}
			}
			o.r10 += float64(len(found)) / float64(len(q.relevant))
			if len(q.outdated) > 0 {
				o.corrections++
				if staleRank > 0 && (rank == 0 || staleRank < rank) {
					o.stale++
				}
			}
			switch {
			case rank == 1:
				o.first++
			default:
				top := "nothing"
				if len(res) > 0 {
					top = fmt.Sprintf("%s %q (relevance %.3f)", msgOf[res[0].ID], res[0].Content, res[0].Relevance)
				}
				stale := ""
				if staleRank > 0 {
					stale = fmt.Sprintf(", outdated at rank %d", staleRank)
				}
				o.misses = append(o.misses, fmt.Sprintf("%q: right memory at rank %d%s, first %s", q.text, rank, stale, top))
			}
			if rank >= 1 && rank <= 3 {
				o.top3++
			}
			if rank >= 1 && rank <= 5 {
				o.top5++
			}
		}
		if err := c.close(); err != nil {
			t.Fatal(err)
		}
	}
	return o
}

// libraryConversation runs a conversation set through the library with
// the default embedder and cfg, a database per user, messages stored
// verbatim.
func libraryConversation(t testing.TB, set string, e hippo.Embedder, cfg hippo.Config) convOutcome {
	return libraryLearned(t, set, e, cfg, nil, false)
}

// libraryLearned is libraryConversation with messages taken in by learn,
// and with remember_facts keeping no text when discard is set.
func libraryLearned(t testing.TB, set string, e hippo.Embedder, cfg hippo.Config, learn learnFunc, discard bool) convOutcome {
	ctx := context.Background()
	dir := t.TempDir()
	return conversation(t, ctx, set, func(user string) client {
		return openLibClient(t, filepath.Join(dir, user+".db"), user, e, cfg, discard)
	}, learn)
}

// openLibClient opens a database at path for user through the library,
// with the offline extractor and classifier, keeping no text when discard.
func openLibClient(t testing.TB, path, user string, e hippo.Embedder, cfg hippo.Config, discard bool) client {
	db, err := sqlite.Open(context.Background(), path, sqlite.Options{Config: &cfg, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	mem, err := db.Memory(sqlite.MemoryOptions{AgentID: user, Embedder: e,
		Extractor: local.NewExtractor(), Classifier: local.NewClassifier(), DiscardText: discard})
	if err != nil {
		db.Close()
		t.Fatal(err)
	}
	return &libClient{db, mem}
}

// flagBoostOff runs each conversation set a second time with the
// retrieval boost off, for "boost on is within 0.01 of boost off".
var flagBoostOff = flag.Bool("boost-off", false, "TestConversationSets runs every set again with the retrieval boost off")

// flagMethods runs each conversation set with vector alone (α 0) and BM25
// alone (α 1) too, for "the default beats either alone".
var flagMethods = flag.Bool("methods", false, "TestConversationSets runs every set with vector alone and BM25 alone too")

// TestConversationSets runs the conversation sets through the library
// with the default embedder, verbatim memories, boost on, and logs the
// outcome.
func TestConversationSets(t *testing.T) {
	e := firstContactEmbedder()
	for _, set := range everyConversationSet {
		if set == conversationSetF && raceEnabled {
			continue // 600 turns: logged without -race
		}
		o := libraryConversation(t, set, e, evalConfig(true))
		t.Logf("%s via library (%s), stored verbatim: %v", set, e.Model(), o)
		if *flagBoostOff {
			off := libraryConversation(t, set, e, evalConfig(false))
			t.Logf("%s via library (%s), stored verbatim, boost off: %v", set, e.Model(), off)
		}
		if *flagMethods {
			for _, m := range []struct {
				name  string
				alpha float64
			}{{"vector alone", 0}, {"BM25 alone", 1}} {
				cfg, dir := evalConfig(true), t.TempDir()
				o := conversationAt(t, context.Background(), set, func(user string) client {
					return openLibClient(t, filepath.Join(dir, user+".db"), user, e, cfg, false)
				}, nil, &m.alpha)
				t.Logf("%s via library (%s), stored verbatim, %s: %v", set, e.Model(), m.name, o)
			}
		}
		if set != conversationSetA {
			continue // held out: its figures only, not what to tune on
		}
		for _, m := range o.misses {
			t.Logf("  miss: %s", m)
		}
	}
}

// TestConversationSetsMCP runs the conversation sets through `hippo
// serve` over MCP with its defaults (an agent per user, boost on), as the
// outside benchmark does, beside the library's figures of
// TestConversationSets:
//
//	go test ./eval/ -run ConversationSetsMCP -bin -v
func TestConversationSetsMCP(t *testing.T) {
	if !*flagBin {
		t.Skip("runs with -bin")
	}
	ctx := context.Background()
	for _, set := range everyConversationSet {
		if set == conversationSetF && raceEnabled {
			continue // 600 turns: logged without -race
		}
		srv := startServer(t, filepath.Join(t.TempDir(), "conv.db"))
		o := conversation(t, ctx, set, func(user string) client {
			c, err := newMCPClient(ctx, srv.base, user)
			if err != nil {
				t.Fatal(err)
			}
			return c
		}, nil)
		if err := srv.stop(); err != nil {
			t.Errorf("hippo serve: %v", err)
		}
		t.Logf("%s via MCP, stored verbatim: %v", set, o)
	}
}

// TestConversationSetsLearned runs the conversation sets with each
// message learned by remember_facts (the offline extractor and
// classifier), with the text kept and without, and logs the outcome
// beside the verbatim one of TestConversationSets.
func TestConversationSetsLearned(t *testing.T) {
	e := firstContactEmbedder()
	for _, set := range everyConversationSet {
		if set == conversationSetF && raceEnabled {
			continue // 600 turns: logged without -race
		}
		for _, discard := range []bool{false, true} {
			o := libraryLearned(t, set, e, evalConfig(true), rememberMessage, discard)
			how := "text kept"
			if discard {
				how = "facts alone"
			}
			t.Logf("%s via library (%s), remember_facts, %s: %v", set, e.Model(), how, o)
			if set == conversationSetA && !discard { // the tune set's misses
				for _, m := range o.misses {
					t.Logf("  miss: %s", m)
				}
			}
		}
	}
}

// flagGivenReplaces makes the given facts name the earlier fact each
// replaces (the facts files' fifth column), as a caller may.
var flagGivenReplaces = flag.Bool("given-replaces", true, "give each caller's fact the earlier fact it replaces, where the facts file names one")

// givenFacts reads the facts a calling model would hand to remember_facts
// for set's messages (conversation_x_facts.tsv beside it: written by hand
// from the messages alone, without reading the questions), by message
// text. ok is false when the set has none.
func givenFacts(t testing.TB, set string) (facts map[string][]hippo.GivenFact, ok bool) {
	t.Helper()
	name := strings.TrimSuffix(set, ".tsv") + "_facts.tsv"
	if _, err := os.Stat(filepath.Join("testdata", name)); err != nil {
		return nil, false
	}
	_, msgs, _ := loadConversation(t, set)
	text := map[string]string{}
	for _, m := range msgs {
		text[m.id] = m.text
	}
	facts = map[string][]hippo.GivenFact{}
	for _, f := range readTSVAtLeast(t, name, 4) {
		v, err := strconv.ParseFloat(f[3], 64)
		if f[0] != "fact" || text[f[1]] == "" || err != nil {
			t.Fatalf("%s: row %q is not fact, a message ID of the set, a fact and an intensity", name, f)
		}
		g := hippo.GivenFact{Fact: f[2], Intensity: &v}
		if len(f) > 4 && *flagGivenReplaces {
			g.Replaces = f[4]
		}
		facts[text[f[1]]] = append(facts[text[f[1]]], g)
	}
	return facts, true
}

// rememberGiven learns a message with the facts given for it, as a
// calling model would pass them (the text kept as their source, unless
// the memory keeps no text); a message given no facts is not remembered,
// as a caller that found nothing in it would not call.
func rememberGiven(facts map[string][]hippo.GivenFact) learnFunc {
	return func(ctx context.Context, c client, text string) ([]string, error) {
		given := facts[text]
		if len(given) == 0 {
			return nil, nil
		}
		res, err := c.(*libClient).mem.Remember(ctx, hippo.RememberInput{Text: text, Facts: given})
		if err != nil {
			return nil, err
		}
		return learnedIDs(res), nil
	}
}

// TestConversationSetsGiven runs the conversation sets that have facts
// written for them with each message's facts given to remember_facts by
// the caller (the offline classifier checking them), with the text kept
// and without, and logs the outcome.
func TestConversationSetsGiven(t *testing.T) {
	e := firstContactEmbedder()
	for _, set := range everyConversationSet {
		facts, ok := givenFacts(t, set)
		if !ok {
			continue
		}
		for _, discard := range []bool{false, true} {
			o := libraryLearned(t, set, e, evalConfig(true), rememberGiven(facts), discard)
			how := "text kept"
			if discard {
				how = "facts alone"
			}
			t.Logf("%s via library (%s), facts given by the caller, %s: %v", set, e.Model(), how, o)
			if set == conversationSetA && !discard {
				for _, m := range o.misses {
					t.Logf("  miss: %s", m)
				}
			}
		}
	}
}
