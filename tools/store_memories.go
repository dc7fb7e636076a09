package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/hippo-mem/hippo"
)

// StoreMemoriesInput is the input of store_memories.
type StoreMemoriesInput struct {
	Items []StoreMemoriesItem `json:"items" jsonschema:"The memories to store, each as store_memory takes it."`
}

// StoreMemoriesItem is one memory of a store_memories call.
type StoreMemoriesItem struct {
	Content   string          `json:"content" jsonschema:"The content to keep, verbatim."`
	Metadata  json.RawMessage `json:"metadata,omitempty" jsonschema:"Optional JSON object describing the content: source, tags, category, and any other keys."`
	Intensity *float64        `json:"intensity,omitempty" jsonschema:"Optional: how much the content matters, from 0 to 1 (default 0.5)."`
	Source    string          `json:"source,omitempty" jsonschema:"Optional: where the content came from (a message ID, a URL, a file)."`
}

// storeManyDetails is the Details of store_memories.
type storeManyDetails struct {
	Stored       int               `json:"stored"`
	Strengthened int               `json:"strengthened"`
	Failed       int               `json:"failed"`
	Items        []storeItemDetail `json:"items"`
}

// storeItemDetail is what became of one item.
type storeItemDetail struct {
	Index int `json:"index"`
	// ID is the memory stored or strengthened; absent when the item failed.
	ID        string `json:"id,omitempty"`
	Duplicate bool   `json:"duplicate"`
	// Error says why the item failed, naming it (items[3].content: …).
	Error string `json:"error,omitempty"`
}

// maxListedFailures bounds the failures a store_memories text lists; the
// details list them all.
const maxListedFailures = 10

func storeMemories(r resolver, cfg hippo.Config) Tool {
	schema := inputSchema[StoreMemoriesInput](func(p map[string]*jsonschema.Schema) {
		items := p["items"]
		items.MinItems, items.MaxItems = jsonschema.Ptr(1), jsonschema.Ptr(hippo.MaxStoreBatch)
		// An item is checked by the service, so that one bad item fails
		// alone: the schema gives the types and what the limits are.
		item := items.Items
		item.Properties["content"].Description += fmt.Sprintf(" At most %d characters.", cfg.MaxContent)
		item.Properties["source"].Description += fmt.Sprintf(" At most %d characters.", hippo.MaxSourceLength)
		item.Properties["metadata"] = &jsonschema.Schema{Types: []string{"object", "string"}, Description: item.Properties["metadata"].Description}
		item.Properties["intensity"].Minimum, item.Properties["intensity"].Maximum = jsonschema.Ptr(0.0), jsonschema.Ptr(1.0)
	})
	return newTool(r, Tool{
		Name:         "store_memories",
		OutputSchema: outputSchema[storeManyDetails](),
		Description: fmt.Sprintf(`Store many memories in one call, each as store_memory stores it: for bringing in a chat history, notes or documents in bulk. Items are {content, metadata?, intensity?, source?}, at most %d a call, embedded together and written in one transaction.

A content already stored, or repeated in the same call, strengthens the existing memory instead of adding a copy. An item that is not valid (empty content, metadata that is not an object, …) fails alone, named by its index; the others are stored. Returns, for each item, its index, its memory id and whether it was new or already known, or why it failed. content: at most %d characters an item.`, hippo.MaxStoreBatch, cfg.MaxContent),
	}, schema, storeMany)
}

// storeMany stores the items of a store_memories call: the service takes
// the valid ones in one batch, and each item gets its outcome.
func storeMany(ctx context.Context, svc hippo.MemoryService, in StoreMemoriesInput) (*Result, error) {
	if n := len(in.Items); n == 0 || n > hippo.MaxStoreBatch {
		return nil, hippo.Invalidf("items", "give 1 to %d items, got %d", hippo.MaxStoreBatch, n)
	}
	// Metadata is read here (a string may hold the object) and the
	// intensity checked; an item that fails fails alone.
	d := storeManyDetails{Items: make([]storeItemDetail, len(in.Items))}
	var items []hippo.StoreInput
	var at []int
	fail := func(i int, err error) {
		d.Items[i] = storeItemDetail{Index: i, Error: itemError(i, err)}
		d.Failed++
	}
	for i, it := range in.Items {
		meta, err := metadataObject(it.Metadata)
		if err != nil {
			fail(i, err)
			continue
		}
		if it.Intensity != nil && !(*it.Intensity >= 0 && *it.Intensity <= 1) {
			fail(i, hippo.Invalidf("intensity", "must be from 0 to 1, got %v", *it.Intensity))
			continue
		}
		items = append(items, hippo.StoreInput{Content: it.Content, Metadata: meta, Intensity: it.Intensity, Source: it.Source})
		at = append(at, i)
	}
	if len(items) > 0 {
		res, err := svc.StoreMemories(ctx, items)
		if err != nil {
			return nil, err
		}
		for k, it := range res.Items {
			i := at[k]
			switch {
			case it.Err != nil:
				fail(i, it.Err)
			case it.Duplicate:
				d.Items[i] = storeItemDetail{Index: i, ID: it.Chunk.ID, Duplicate: true}
				d.Strengthened++
			default:
				d.Items[i] = storeItemDetail{Index: i, ID: it.Chunk.ID}
				d.Stored++
			}
		}
	}
	var failures []string
	for _, it := range d.Items {
		if it.Error != "" {
			failures = append(failures, it.Error)
		}
	}
	text := fmt.Sprintf("Stored %s, strengthened %s already known", plural(d.Stored, "new memory", "new memories"),
		plural(d.Strengthened, "memory", "memories"))
	if d.Failed > 0 {
		listed := failures[:min(len(failures), maxListedFailures)]
		text += fmt.Sprintf("; %d failed: %s", d.Failed, strings.Join(listed, "; "))
		if len(failures) > len(listed) {
			text += fmt.Sprintf("; and %d more (see the details)", len(failures)-len(listed))
		}
	}
	return &Result{Text: text + ".", Details: d}, nil
}

// itemError is err about item i of a batch: items[3].content: … when it
// names a field, else items[3]: ….
func itemError(i int, err error) string {
	var e *hippo.Error
	if errors.As(err, &e) && e.Field != "" {
		return fmt.Sprintf("items[%d].%s", i, hippo.ErrorMessage(err))
	}
	return fmt.Sprintf("items[%d]: %s", i, hippo.ErrorMessage(err))
}
