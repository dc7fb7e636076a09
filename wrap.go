package hippo

// Wrapped is the base of an Embedder that wraps another, such as one that
// caches, counts or batches its calls: it passes the wrapped embedder's
// model, dimension, thresholds, hybrid weight and relevance levels
// through (the defaults where the wrapped one has none), so that a
// database configures recall the same with the wrapper as without it. A
// wrapper embeds Wrapped and defines Embed.
type Wrapped struct{ Embedder }

// Thresholds are the wrapped embedder's, or the defaults.
func (w Wrapped) Thresholds() (duplicate, new, forget float64) {
	cfg := DefaultConfig().ForEmbedder(w.Embedder)
	return cfg.DuplicateThreshold, cfg.NewThreshold, cfg.ForgetThreshold
}

// HybridAlpha is the wrapped embedder's, or the default.
func (w Wrapped) HybridAlpha() float64 { return DefaultConfig().ForEmbedder(w.Embedder).HybridAlpha }

// RelevanceLevels are the wrapped embedder's, or the defaults.
func (w Wrapped) RelevanceLevels() (unrelated, strong float64) {
	cfg := DefaultConfig().ForEmbedder(w.Embedder)
	return cfg.CosineUnrelated, cfg.CosineStrong
}

var (
	_ Calibrated          = Wrapped{}
	_ Hybrid              = Wrapped{}
	_ RelevanceCalibrated = Wrapped{}
)
