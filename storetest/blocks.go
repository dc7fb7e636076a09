package storetest

import (
	"context"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/hippo-mem/hippo"
)

func testBlockEdits(t *testing.T, bk Backend) {
	e := newEnv(t, bk)
	ctx := context.Background()
	m := e.memory("agent-a")
	if b, err := m.Block(ctx, "persona"); b != nil || err != nil {
		t.Fatalf("missing block = %v, %v; want nil, nil", b, err)
	}
	b, err := m.AppendBlock(ctx, "persona", "I am helpful.")
	if err != nil || b.Value != "I am helpful." {
		t.Fatalf("append creates: %+v, %v", b, err)
	}
	b, _ = m.AppendBlock(ctx, "persona", "I am terse.")
	if b.Value != "I am helpful.\nI am terse." {
		t.Errorf("append = %q", b.Value)
	}
	b, n, err := m.ReplaceBlock(ctx, "persona", "I am", "You are")
	if err != nil || n != 2 || b.Value != "You are helpful.\nYou are terse." {
		t.Errorf("replace all = %q, %d, %v", b.Value, n, err)
	}
	_, _, err = m.ReplaceBlock(ctx, "persona", "not there", "x")
	mustCode(t, err, hippo.ENOTFOUND)
	if !strings.Contains(err.Error(), "not found") {
		t.Errorf("error %q", err)
	}
	_, _, err = m.ReplaceBlock(ctx, "nope", "a", "b")
	mustCode(t, err, hippo.ENOTFOUND)
	_, _, err = m.ReplaceBlock(ctx, "persona", "", "b")
	mustCode(t, err, hippo.EINVALID)
	// Replacing with nothing deletes the text.
	b, _, err = m.ReplaceBlock(ctx, "persona", "\nYou are terse.", "")
	if err != nil || b.Value != "You are helpful." {
		t.Errorf("replace with empty = %q, %v", b.Value, err)
	}
	for _, key := range []string{"", "  ", "a\tb", strings.Repeat("k", 129)} {
		_, err := m.AppendBlock(ctx, key, "x")
		mustCode(t, err, hippo.EINVALID)
	}
	_, err = m.AppendBlock(ctx, "persona", "")
	mustCode(t, err, hippo.EINVALID)
	got, _ := m.Block(ctx, "persona")
	if got.Value != "You are helpful." {
		t.Errorf("failed calls changed the block: %q", got.Value)
	}
}

func testListAndDeleteBlocks(t *testing.T, bk Backend) {
	e := newEnv(t, bk)
	ctx := context.Background()
	m := e.memory("agent-a")
	m.SetBlock(ctx, "persona", "abc")
	m.SetBlock(ctx, "objectives", "ship")
	list, err := m.Blocks(ctx)
	if err != nil || len(list) != 2 || list[0].Key != "objectives" || list[1].Chars != 3 {
		t.Fatalf("blocks = %+v, %v", list, err)
	}
	if err := e.memory("agent-b").DeleteBlock(ctx, "persona"); hippo.ErrorCode(err) != hippo.ENOTFOUND {
		t.Errorf("agent-b deleted agent-a's block: %v", err)
	}
	if err := m.DeleteBlock(ctx, "persona"); err != nil {
		t.Fatal(err)
	}
	if b, _ := m.Block(ctx, "persona"); b != nil {
		t.Error("deleted block still there")
	}
	mustCode(t, m.DeleteBlock(ctx, "persona"), hippo.ENOTFOUND)
}

func testBlockDescription(t *testing.T, bk Backend) {
	e := newEnv(t, bk)
	ctx := context.Background()
	m := e.memory("agent-a")
	if _, err := m.AppendBlock(ctx, "objectives", "ship v1"); err != nil {
		t.Fatal(err)
	}
	b, err := m.DescribeBlock(ctx, "objectives", "what we are working towards")
	if err != nil || b.Description != "what we are working towards" || b.Value != "ship v1" {
		t.Fatalf("describe = %+v, %v", b, err)
	}
	// Changing the value keeps the description.
	b, _ = m.AppendBlock(ctx, "objectives", "then v2")
	if b.Description != "what we are working towards" {
		t.Errorf("append dropped the description: %+v", b)
	}
	list, _ := m.Blocks(ctx)
	if len(list) != 1 || list[0].Description != "what we are working towards" {
		t.Errorf("list = %+v", list)
	}
	c, _ := m.Context(ctx, hippo.ContextInput{})
	if !strings.Contains(c.Text, "## objectives (what we are working towards)") {
		t.Errorf("context:\n%s", c.Text)
	}
	// A description alone creates an empty block.
	if b, err := m.DescribeBlock(ctx, "human", "who the user is"); err != nil || b.Value != "" {
		t.Errorf("describe a new block = %+v, %v", b, err)
	}
	_, err = m.DescribeBlock(ctx, "human", strings.Repeat("x", 1001))
	mustCode(t, err, hippo.EINVALID)
}

func testContextBudget(t *testing.T, b Backend) {
	e := newEnv(t, b)
	ctx := context.Background()
	m := e.memory("agent-a")
	m.SetBlock(ctx, "persona", "I am a careful assistant.")
	m.SetBlock(ctx, "human", strings.Repeat("likes long walks. ", 20))
	for _, s := range []string{"the user drinks tea", "the user drinks coffee at night", "tea is green"} {
		store(t, m, s)
	}
	full, err := m.Context(ctx, hippo.ContextInput{Query: "what does the user drink"})
	if err != nil {
		t.Fatal(err)
	}
	if len(full.Blocks) != 2 || len(full.Memories) != 3 || full.OmittedRecalls != 0 {
		t.Fatalf("full context = %+v", full)
	}
	if !strings.Contains(full.Text, "## persona") || !strings.Contains(full.Text, "- the user drinks tea") {
		t.Errorf("text:\n%s", full.Text)
	}
	for _, budget := range []int{40, 120, 420, 500} {
		c, err := m.Context(ctx, hippo.ContextInput{Query: "what does the user drink", MaxChars: budget})
		if err != nil {
			t.Fatal(err)
		}
		if n := utf8.RuneCountInString(c.Text); n > budget || n != c.Chars {
			t.Errorf("budget %d: text of %d characters (reported %d)", budget, n, c.Chars)
		}
		if len(c.Blocks)+len(c.OmittedBlocks) != 2 || len(c.Memories)+c.OmittedRecalls != 3 {
			t.Errorf("budget %d: included/omitted do not add up: %+v", budget, c)
		}
	}
	small, _ := m.Context(ctx, hippo.ContextInput{Query: "drink", MaxTokens: 30})
	if small.Budget != 120 || len(small.OmittedBlocks) == 0 {
		t.Errorf("30 tokens = %+v", small)
	}
	_, err = m.Context(ctx, hippo.ContextInput{MaxChars: 10, MaxTokens: 10})
	mustCode(t, err, hippo.EINVALID)
}

func testBlocks(t *testing.T, b Backend) {
	ctx := context.Background()
	s := open(t, b)
	m := memory(t, s, "alice", "", nil)
	if blk, err := m.Block(ctx, "persona"); err != nil || blk != nil {
		t.Errorf("missing block: %+v, %v", blk, err)
	}
	if _, err := m.AppendBlock(ctx, "persona", "I am terse."); err != nil {
		t.Fatal(err)
	}
	if _, err := m.AppendBlock(ctx, "persona", "I cite sources."); err != nil {
		t.Fatal(err)
	}
	blk, n, err := m.ReplaceBlock(ctx, "persona", "terse", "brief")
	if err != nil || n != 1 || !strings.Contains(blk.Value, "I am brief.") || !strings.Contains(blk.Value, "I cite sources.") {
		t.Errorf("replace: %+v, %d, %v", blk, n, err)
	}
	_, _, err = m.ReplaceBlock(ctx, "persona", "absent", "x")
	wantCode(t, err, hippo.ENOTFOUND)
	if _, err := m.SetBlock(ctx, "human", "Ann"); err != nil {
		t.Fatal(err)
	}
	if _, err := m.DescribeBlock(ctx, "human", "who the user is"); err != nil {
		t.Fatal(err)
	}
	infos, err := m.Blocks(ctx)
	if err != nil || len(infos) != 2 {
		t.Fatalf("blocks: %+v, %v", infos, err)
	}
	if got, err := m.Block(ctx, "human"); err != nil || got.Value != "Ann" || got.Description != "who the user is" {
		t.Errorf("human: %+v, %v", got, err)
	}
	if err := m.DeleteBlock(ctx, "human"); err != nil {
		t.Fatal(err)
	}
	wantCode(t, m.DeleteBlock(ctx, "human"), hippo.ENOTFOUND)
	if got, err := memory(t, s, "bob", "", nil).Block(ctx, "persona"); err != nil || got != nil {
		t.Errorf("bob sees alice's block: %+v, %v", got, err)
	}
}

func testContext(t *testing.T, b Backend) {
	ctx := context.Background()
	s := open(t, b)
	m := memory(t, s, "alice", "", nil)
	if _, err := m.SetBlock(ctx, "persona", "I am terse."); err != nil {
		t.Fatal(err)
	}
	if _, err := m.StoreMemory(ctx, hippo.StoreInput{Content: "The user drinks espresso every morning"}); err != nil {
		t.Fatal(err)
	}
	c, err := m.Context(ctx, hippo.ContextInput{Query: "espresso in the morning"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(c.Blocks, []string{"persona"}) || len(c.Memories) != 1 ||
		!strings.Contains(c.Text, "I am terse.") || !strings.Contains(c.Text, "espresso every morning") {
		t.Errorf("context: %+v", c)
	}
	small, err := m.Context(ctx, hippo.ContextInput{Query: "espresso in the morning", MaxChars: 10})
	if err != nil {
		t.Fatal(err)
	}
	if small.Chars > 10 || len(small.OmittedBlocks) != 1 {
		t.Errorf("budget 10: %+v", small)
	}
}
