package sqlite_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/sqlite"
)

// TestDecayModelRecorded: the model is chosen by Options.Decay or
// Config.Decay, recorded in the file for every later open, kept by opens
// that name none (a default Config included), and an unknown one is
// refused, given or recorded.
func TestDecayModelRecorded(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "hippo.db")
	reopen := func(opts sqlite.Options) hippo.DecayModel {
		t.Helper()
		db, err := sqlite.Open(ctx, path, opts)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if db.Config().Decay != db.DecayModel() {
			t.Errorf("Config().Decay %q, DecayModel() %q", db.Config().Decay, db.DecayModel())
		}
		return db.DecayModel()
	}
	def := hippo.DefaultConfig()
	ebb := hippo.DefaultConfig()
	ebb.Decay = hippo.DecayEbbinghaus
	for i, tt := range []struct {
		opts sqlite.Options
		want hippo.DecayModel
	}{
		{sqlite.Options{}, hippo.DecayHippo},
		{sqlite.Options{Config: &ebb}, hippo.DecayEbbinghaus},
		{sqlite.Options{}, hippo.DecayEbbinghaus},
		{sqlite.Options{Config: &def}, hippo.DecayEbbinghaus},
		{sqlite.Options{Decay: hippo.DecayHippo, Config: &ebb}, hippo.DecayHippo}, // the option wins
		{sqlite.Options{Decay: hippo.DecayEbbinghaus}, hippo.DecayEbbinghaus},
	} {
		if got := reopen(tt.opts); got != tt.want {
			t.Errorf("open %d: model %q, want %q", i, got, tt.want)
		}
	}
	if _, err := sqlite.Open(ctx, path, sqlite.Options{Decay: "linear"}); hippo.ErrorCode(err) != hippo.EINVALID {
		t.Errorf("unknown model: %v, want EINVALID", err)
	}
	raw, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if _, err := raw.Exec(`UPDATE hippo_meta SET value = 'linear' WHERE key = 'decay_model'`); err != nil {
		t.Fatal(err)
	}
	if _, err := sqlite.Open(ctx, path, sqlite.Options{}); hippo.ErrorCode(err) != hippo.EINVALID || !strings.Contains(hippo.ErrorMessage(err), `"linear"`) {
		t.Errorf("recorded unknown model: %v", err)
	}
}
