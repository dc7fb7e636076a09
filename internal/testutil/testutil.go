// Package testutil holds helpers shared by tests of several packages.
package testutil

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/hippo-mem/hippo"
)

// ExportWithout is the export of the whole database without the records
// (one a line) of agent actor: what actor's calls must leave as it is.
func ExportWithout(t testing.TB, db hippo.Exporter, actor string) []byte {
	t.Helper()
	var b bytes.Buffer
	if _, err := db.Export(context.Background(), &b, hippo.ExportOptions{}); err != nil {
		t.Fatal(err)
	}
	id, _ := json.Marshal(actor)
	mine := []byte(`"agent_id":` + string(id) + `,`)
	var out []byte
	for _, line := range bytes.SplitAfter(b.Bytes(), []byte("\n")) {
		if !bytes.Contains(line, mine) {
			out = append(out, bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte(","))...)
			out = append(out, '\n')
		}
	}
	return out
}
