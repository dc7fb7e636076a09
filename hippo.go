// Package hippo is persistent memory for AI agents: facts and memories with
// a strength that decays unless used, recalled semantically, forgotten on
// command, plus named memory blocks and past-conversation search.
//
// # Where to start
//
// Open a database with sqlite.Open and get an agent's memory with
// DB.Memory: a *sqlite.Memory has the methods an agent needs
// (RememberFacts, StoreMemory, Recall, Forget, the Block methods, Context).
// The sqlite package's Example is a complete program to copy. For an
// embedder, local/minilm.NewEmbedder is the offline default,
// local.NewEmbedder a faster and weaker offline one, and
// openai.NewEmbedder any OpenAI-compatible API; local.NewExtractor and
// local.NewClassifier learn facts offline, llm.NewExtractor with an
// openai.NewLLM does it with a model (with local.NewExtractor as
// MemoryOptions.FallbackExtractor for when the model fails). To give the operations to a model as
// tools, use tools.New (or serve them over MCP with mcp.NewServer, which is
// what `hippo serve` runs).
//
// This root package holds the domain those packages share: types
// (Chunk, Block, RecallInput, ...), the strength and scoring math (Config,
// Fuse), the coded Error and the interfaces (Embedder, Extractor,
// Classifier, LLM, MemoryService) that the storage, provider and tool
// packages implement or consume. It imports nothing from the project.
package hippo
