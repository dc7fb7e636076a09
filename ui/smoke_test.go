package ui_test

import (
	"io"
	"net/http"
	"testing"
)

func TestSmokeDump(t *testing.T) {
	e := newEnv(t, "")
	e.seed(t)
	for _, p := range []string{"/ui/", "/ui/memory?agent=ada", "/ui/memory?agent=ada&sort=strength", "/ui/overview?agent=ada", "/ui/recall?agent=ada&q=deploy+key", "/ui/history?agent=ada&q=where+do+I+live&as_of=2000-01-01", "/ui/blocks?agent=ada", "/ui/block?agent=ada&key=persona", "/ui/forget?agent=ada&description=pizza+lunch", "/ui/export?agent=ada"} {
		res, err := http.Get(e.srv.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		t.Logf("%s %d %d bytes\n%s", p, res.StatusCode, len(b), b[:min(len(b), 3000)])
	}
}
