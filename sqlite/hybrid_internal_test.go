package sqlite

// HybridWindow is hybridWindow, for the brute-force checks of hybrid
// recall.
const HybridWindow = hybridWindow
