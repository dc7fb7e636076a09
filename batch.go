package hippo

// MaxStoreBatch is the most items one StoreMemories call takes.
const MaxStoreBatch = 1000

// StoreItemResult is what StoreMemories did with one item.
type StoreItemResult struct {
	// Index is the item's position in the call, from 0.
	Index int `json:"index"`
	// Chunk is the memory stored or strengthened; nil when the item failed.
	Chunk *Chunk `json:"chunk,omitempty"`
	// Duplicate is true when the content was already stored (before the
	// call or by an earlier item of it) and that memory was strengthened.
	Duplicate bool `json:"duplicate"`
	// Err is why the item was refused; the other items are stored.
	Err error `json:"-"`
}

// StoreBatchResult says what StoreMemories did, item by item.
type StoreBatchResult struct {
	Items []StoreItemResult `json:"items"`
	// Stored, Strengthened and Failed count the items by outcome.
	Stored       int `json:"stored"`
	Strengthened int `json:"strengthened"`
	Failed       int `json:"failed"`
}
