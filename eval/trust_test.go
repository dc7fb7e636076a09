package eval_test

import (
	"testing"

	"github.com/hippo-mem/hippo/trust"
)

// TestTrustOnConversations runs the trust rules over every LongMemEval turn:
// real conversations between a user and an assistant, full of advice in
// the imperative ("Remove any jewelry", "you should rest") and none of it
// an instruction planted for the agent. Each flag is a false positive, and
// a flagged memory is left out of recall and get_context by default, so
// the rate is recall lost. Measured (rules tuned on the tune half of the
// turns, split by turn ID): 0.04% tune, 0.11% held-out, from 10.9% before
// the rules required a target for a bare imperative. The held-out rate
// must stay under 0.5%.
func TestTrustOnConversations(t *testing.T) {
	if raceEnabled {
		t.Skip("reading the turns takes seconds under -race; the rules' own tests run there")
	}
	d := loadLME(t, needData(t), false)
	var n, flagged [2]int
	var examples []string
	for _, tr := range d.turns {
		h := splitOf(tr.ID)
		n[h]++
		if v := trust.Check(tr.Text); v.Suspicious {
			flagged[h]++
			if h == heldOut && len(examples) < 5 {
				examples = append(examples, tr.ID+" ("+v.Reason()+")")
			}
		}
	}
	rate := func(h half) float64 { return float64(flagged[h]) / float64(max(1, n[h])) }
	t.Logf("trust flags on LongMemEval turns: tune %d of %d (%.2f%%), held-out %d of %d (%.2f%%); held-out examples %v",
		flagged[tune], n[tune], 100*rate(tune), flagged[heldOut], n[heldOut], 100*rate(heldOut), examples)
	if rate(heldOut) > 0.005 {
		t.Errorf("held-out false-positive rate %.2f%% over 0.5%%", 100*rate(heldOut))
	}
}

// TestTrustOnOwnSet checks that none of the own set's memories, an agent's
// notes about its user and their projects (procedures such as "Run make
// proto after editing any .proto file" among them), is flagged: each would
// vanish from recall.
func TestTrustOnOwnSet(t *testing.T) {
	s := loadOwnSet(t)
	for _, id := range s.ids {
		if v := trust.Check(s.content[id]); v.Suspicious {
			t.Errorf("memory %s flagged (%s): %s", id, v.Reason(), s.content[id])
		}
	}
}
