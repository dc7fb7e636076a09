// Package engine is Hippo's behaviour written once over any store: the
// per-agent in-memory index (the int8 vector index with the fields recall
// filters and scores on, filled from a store's rows and kept current from
// its change feed) and the recall scan that fuses vector and full-text
// relevance with strength and recency into the exact top k.
//
// It imports no SQL driver: a store hands it rows (Index.Add), vectors by
// ID (the index's loader) and per-query BM25 scores (Scan.BM25). The store
// contract is in docs/ARCHITECTURE.md.
package engine
