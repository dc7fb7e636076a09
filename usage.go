package hippo

// LLMCall is what one LLM call of a remember_facts cost, as the provider
// reported it (its "usage"): the agent sees its cost as well as the
// operator.
type LLMCall struct {
	// Purpose is what the call was for: "extract" or "classify".
	Purpose          string `json:"purpose"`
	Model            string `json:"model"`
	PromptTokens     int    `json:"prompt_tokens"`
	CompletionTokens int    `json:"completion_tokens"`
}
