package hippo

// ForgetInput is the input of Forget.
type ForgetInput struct {
	Description string
	// Threshold is the minimum similarity in (0, 1]; 0 means
	// Config.ForgetThreshold.
	Threshold float64
	// DryRun finds what would be deleted and deletes nothing.
	DryRun bool
}

// ForgetResult lists what Forget deleted (or would delete).
type ForgetResult struct {
	Deleted []Forgotten `json:"deleted"`
	// Resurrected are IDs of chunks that a deleted chunk had superseded and
	// that are live again.
	Resurrected []string `json:"resurrected,omitempty"`
}

// Forgotten is one chunk removed by Forget.
type Forgotten struct {
	ID         string  `json:"id"`
	Kind       Kind    `json:"kind"`
	Content    string  `json:"content"`
	Similarity float64 `json:"similarity"`
	// Via, for a text kept by remember_facts, is the forgotten fact
	// learned from it: the text said it too, so it goes with it.
	Via string `json:"via,omitempty"`
}
