// Package eval measures how well Hippo recalls, in ways that cannot
// flatter it: questions split by a hash of their ID into a tune half, the
// only one α is ever chosen on, and a held-out half, the one reported;
// paraphrase questions checked to share no content word with their
// answers; distractor memories checked to share as many words with their
// questions as the answers do. It holds tests only; see README.md here.
//
// With every go test (quick: about 20 s under -race):
//
//	go test ./eval/
//
// runs the own set's property checks (TestOwnSetProperties), a quick
// comparison of vector, BM25 and hybrid recall on its held-out half
// (TestOwnSetQuick), the first-contact check through the library
// (TestFirstContact) and a check of the shared LongMemEval data
// (TestLongMemEvalData; skipped when the data is missing, failed under CI).
//
// Behind flags:
//
//	go test ./eval/ -run OwnSetEval -eval -v                      # own set tables
//	go test ./eval/ -run 'LongMemEval$' -longmemeval -v -timeout 3h # LongMemEval, library
//	go test ./eval/ -run LongMemEvalMCP -longmemeval-mcp -v -timeout 3h # LongMemEval, hippo serve over MCP
//	go test ./eval/ -run FirstContact -bin -v                     # first contact via library, CLI and MCP
//	go test ./eval/ -run FirstContact -firstcontact-target -v     # assert the first-contact target
//
// -embedder glove|minilm chooses the embedder of the library runs (glove
// by default; the first-contact check uses the default embedder, MiniLM,
// and the binary runs the binary's default). HIPPO_EVAL_TARGET=1 is the same as -firstcontact-target.
// HIPPO_EVAL_DATA overrides where the shared data is looked for
// (../shared/eval beside the repository).
package eval
