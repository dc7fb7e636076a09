package minilm

import (
	"context"
	"slices"
	"testing"

	"github.com/hippo-mem/hippo/internal/calibrate"
	"github.com/hippo-mem/hippo/local"
)

// The calibration sets are the offline package's: labelled fact pairs and
// forget_memory requests (../testdata).
const (
	pairsFile  = "../testdata/pairs.tsv"
	forgetFile = "../testdata/forget.json"
)

// TestCalibration prints how MiniLM's cosines separate the labelled pairs
// (calibrate.FactLabels, with the offline classifier deciding inside the
// band), sweeps the duplicate and new thresholds, and checks that the
// chosen ones are as good as the sweep's best and beat trivial ones
// (calibrate.CheckFactThresholds).
func TestCalibration(t *testing.T) {
	pairs, err := calibrate.LoadFactPairs(context.Background(), NewEmbedder(), local.NewClassifier(), pairsFile)
	if err != nil {
		t.Fatal(err)
	}
	dup, nu, _ := NewEmbedder().Thresholds()
	calibrate.CheckFactThresholds(t, pairs, dup, nu)
}

// TestForgetCalibration checks the forget threshold on forgetFile: each
// description must delete exactly the facts listed for it, and the chosen
// threshold must get at least as many requests right as seed 000's.
func TestForgetCalibration(t *testing.T) {
	set, err := calibrate.ReadForgetSet(forgetFile)
	if err != nil {
		t.Fatal(err)
	}
	texts := slices.Clone(set.Facts)
	for _, r := range set.Requests {
		texts = append(texts, r.Description)
	}
	vecs, err := NewEmbedder().Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	_, _, forget := NewEmbedder().Thresholds()
	set.Score(vecs[:len(set.Facts)], vecs[len(set.Facts):]).Check(t, forget, false)
}
