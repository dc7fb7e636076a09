package hippo

// Orders of a BrowseQuery.
const (
	OrderCreated  = "created"  // newest first
	OrderStrength = "strength" // strongest first, by the decay clock
	OrderAccessed = "accessed" // most recently recalled first
)

// BrowseQuery selects a page of one agent's chunks for browsing (the web
// UI): ChunkFilter's selection, a few metadata filters, an order and a
// page (ChunkFilter.Limit and Offset).
type BrowseQuery struct {
	ChunkFilter
	// OnlySuperseded keeps superseded chunks only (it implies Superseded).
	OnlySuperseded bool
	// Tag keeps chunks whose metadata "tags" holds it; Category those whose
	// metadata "category" equals it. "" does not filter.
	Tag, Category string
	// Order is OrderCreated (""), OrderStrength or OrderAccessed.
	Order string
}

// Browsed is a chunk with its effective strength now, by the database's
// decay clock.
type Browsed struct {
	Chunk    *Chunk
	Strength float64
}

// ChunkCounts is an overview of one agent's chunks.
type ChunkCounts struct {
	Live, Superseded int
	ByKind, ByScope  map[string]int
	// Strength counts live chunks by effective strength in equal bands
	// from 0 to 1: Strength[i] holds those in [i/n, (i+1)/n).
	Strength []int
}
