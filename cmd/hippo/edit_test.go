package main

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestEdit(t *testing.T) {
	c := newCLI(t)
	var learned struct {
		Facts []struct {
			ChunkID string `json:"chunk_id"`
		} `json:"facts"`
	}
	c.jsonLoose(&learned, "--agent", "me", "remember", "I live in Berlin.")
	if len(learned.Facts) != 1 {
		t.Fatalf("remember = %+v", learned)
	}
	old := learned.Facts[0].ChunkID
	type edited struct {
		Chunk struct {
			ID             string         `json:"id"`
			Content        string         `json:"content"`
			Metadata       map[string]any `json:"metadata"`
			EncounterCount int            `json:"encounter_count"`
		} `json:"chunk"`
		PreviousID string   `json:"previous_id"`
		Merged     bool     `json:"merged"`
		Changed    []string `json:"changed"`
		Reinforce  string   `json:"reinforce"`
	}
	var out edited
	c.jsonLoose(&out, "--agent", "me", "edit", old, "--content", "User lives in Lisbon", "--tags", "home,city",
		"--context", "moving house, 2025", "--category", "personal")
	if out.Chunk.ID == old || out.PreviousID != old || out.Chunk.Content != "User lives in Lisbon" || out.Reinforce != "up" ||
		out.Chunk.EncounterCount != 2 || out.Chunk.Metadata["category"] != "personal" ||
		len(out.Chunk.Metadata["tags"].([]any)) != 2 || len(out.Chunk.Metadata["context"].([]any)) != 1 {
		t.Fatalf("edit a fact: %+v", out)
	}
	var hist struct {
		History []struct {
			Content string `json:"content"`
			Current bool   `json:"current"`
		} `json:"history"`
	}
	c.jsonLoose(&hist, "--agent", "me", "history", "--id", out.Chunk.ID)
	if len(hist.History) != 2 || hist.History[0].Content == "User lives in Lisbon" || hist.History[0].Current ||
		hist.History[1].Content != "User lives in Lisbon" || !hist.History[1].Current {
		t.Errorf("history after the edit: %+v", hist)
	}
	lisbon := out.Chunk.ID
	out = edited{}
	c.jsonLoose(&out, "--agent", "me", "edit", lisbon, "--tags", "", "--category", "", "--reinforce", "none", "--intensity", "0.25")
	if out.Chunk.ID != lisbon || out.Chunk.Metadata["tags"] != nil || out.Chunk.Metadata["category"] != nil || out.Reinforce != "none" {
		t.Errorf("clear tags and category: %+v", out)
	}
	if r := c.ok("--agent", "me", "edit", lisbon, "--context", ""); !strings.Contains(r.stdout, "Updated fact") && !strings.Contains(r.stdout, "Updated") {
		t.Errorf("edit text: %s", r)
	}

	// A memory keeps its ID; its content can come from standard input.
	var stored struct {
		Chunk struct {
			ID string `json:"id"`
		} `json:"chunk"`
	}
	c.jsonLoose(&stored, "--agent", "me", "store", "We deploy on Fridays")
	r := c.runIn("We deploy on Thursdays\n", nil, "--agent", "me", "edit", stored.Chunk.ID, "--content", "-", "--json")
	if r.code != 0 {
		t.Fatalf("edit from stdin: %s", r)
	}
	out = edited{}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatal(err)
	}
	if out.Chunk.ID != stored.Chunk.ID || out.Chunk.Content != "We deploy on Thursdays" || out.PreviousID != "" {
		t.Errorf("edit a memory: %+v", out)
	}

	c.fails(2, "nothing to change", "--agent", "me", "edit", lisbon)
	c.fails(2, "--reinforce must be", "--agent", "me", "edit", lisbon, "--tags", "x", "--reinforce", "sideways")
	c.fails(2, "missing <id>", "--agent", "me", "edit")
	c.fails(1, "not found", "--agent", "me", "edit", "01NOSUCHCHUNK0000000000000", "--tags", "x")
	c.fails(1, "not found", "--agent", "other", "edit", lisbon, "--content", "hijacked")
	c.fails(1, "superseded", "--agent", "me", "edit", old, "--content", "User lives in Oslo")
	c.fails(1, "intensity", "--agent", "me", "edit", lisbon, "--intensity", "2")
}
