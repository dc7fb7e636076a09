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

// TestDecayModelRecordedUnknown: a model recorded in the file that this
// version does not know is refused at open, naming it (storetest's
// DecayModelRecorded checks the recording itself on every store).
func TestDecayModelRecordedUnknown(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "hippo.db")
	db, err := sqlite.Open(ctx, path, sqlite.Options{Decay: hippo.DecayEbbinghaus})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
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
