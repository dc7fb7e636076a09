// Package engine is Hippo's behaviour written once over any store: Memory,
// the hippo.AgentMemory of one agent over a Store; the per-agent in-memory
// index (the int8 vector index with the fields recall filters and scores
// on, filled from a store's rows and kept current from its change feed)
// and its cache (Indexes); the recall scan that fuses vector and
// full-text relevance with strength and recency into the exact top k; the
// fact pipeline; Export, Import and Reembed.
//
// It imports no SQL driver: a store hands it rows and their changes (Feed,
// Snapshot), vectors by ID, per-query BM25 scores (RecallStore.TextScores)
// and transactions (Store.Update, Store.View). The store contract is in
// docs/ARCHITECTURE.md.
package engine
