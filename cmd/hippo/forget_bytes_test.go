package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestForgottenTextLeavesNoBytesCLI forgets through the commands people
// and agents use, `hippo forget --force`, `hippo delete --force`, `hippo
// purge --force` and forget_memory on a running `hippo serve` (which
// keeps the database open), and greps the database file and its WAL for
// the forgotten text after each. sqlite/forget_bytes_test.go covers every
// way of forgetting in the library.
func TestForgottenTextLeavesNoBytesCLI(t *testing.T) {
	c := newCLI(t)
	secret := func() string {
		b := make([]byte, 8)
		rand.Read(b)
		return "zq" + hex.EncodeToString(b) + "7"
	}
	onDisk := func(needle string) []string {
		var in []string
		for _, suffix := range []string{"", "-wal", "-shm"} {
			data, err := os.ReadFile(c.db + suffix)
			if err == nil && bytes.Contains(bytes.ToLower(data), []byte(needle)) {
				in = append(in, "hippo.db"+suffix)
			}
		}
		return in
	}
	for i := range 5 {
		c.ok("store", "--agent", "alice", "filler note number "+strings.Repeat("x", i)+" about the garden")
	}

	// hippo forget --force
	s := secret()
	c.ok("store", "--agent", "alice", "The vault code is "+s)
	if len(onDisk(s)) == 0 {
		t.Fatal("the grep does not see stored text")
	}
	c.ok("forget", "--agent", "alice", "--force", "The vault code is "+s)
	if in := onDisk(s); len(in) > 0 {
		t.Errorf("after hippo forget --force the text is in %v", in)
	}

	// hippo delete --force
	s = secret()
	var stored struct{ Chunk struct{ ID string } }
	c.jsonLoose(&stored, "store", "--agent", "alice", "My passport number is "+s)
	c.ok("delete", "--force", stored.Chunk.ID)
	if in := onDisk(s); len(in) > 0 {
		t.Errorf("after hippo delete --force the text is in %v", in)
	}

	// hippo purge --force: a superseded fact. The place is a word the
	// offline embedder knows: with a random token the two facts' similarity
	// depends on the token's hashed n-grams, and about one in twelve fell
	// below the "new fact" threshold, so nothing was superseded.
	s = "valparaiso"
	// The texts are not kept: a kept text stays current when its fact
	// is superseded, so purge would leave it.
	c.ok("remember", "--agent", "alice", "--discard-text", "I live in Valparaiso.")
	c.ok("remember", "--agent", "alice", "--discard-text", "I live in Lisbon.")
	var purged struct{ Count int }
	c.jsonLoose(&purged, "purge", "--force")
	if purged.Count != 1 {
		t.Fatalf("purge removed %d chunks, want the superseded fact", purged.Count)
	}
	if in := onDisk(s); len(in) > 0 {
		t.Errorf("after hippo purge --force the text is in %v", in)
	}

	// forget_memory on a server that keeps the database open.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.Command(hippoBin, "serve", "--transport", "stdio")
	cmd.Env = c.env
	session, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()
	s = secret()
	for _, step := range []struct {
		tool string
		args map[string]any
	}{
		{"store_memory", map[string]any{"agent_id": "alice", "content": "The alarm PIN is " + s}},
		{"recall_memories", map[string]any{"agent_id": "alice", "query": "alarm PIN"}},
		{"forget_memory", map[string]any{"agent_id": "alice", "description": "The alarm PIN is " + s}},
	} {
		res, err := session.CallTool(ctx, &sdk.CallToolParams{Name: step.tool, Arguments: step.args})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %v", step.tool, err, res)
		}
	}
	if in := onDisk(s); len(in) > 0 {
		t.Errorf("after forget_memory on a running server the text is in %v", in)
	}
}
