// Package storetest is the behaviour suite every Hippo store runs: one
// Run(t, backend) that drives a store through hippo's interfaces only and
// checks what recall, store, facts, forget, blocks, context, decay,
// isolation, admin, browse, export and import do, and the concurrency
// cases a backend must get right. Its models are the offline embedder,
// extractor and classifier, or the real OpenAI client talking to a fake
// server (mock) whose vectors and replies a test scripts. The files are by
// topic; a store's own tests keep to its SQL, migrations and durability.
// A backend's test calls it:
//
//	func TestStore(t *testing.T) { storetest.Run(t, backend) }
package storetest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/local"
)

// Store is what the suite needs of a store: the interfaces the CLI, the
// MCP server and the web UI use.
type Store interface {
	hippo.Store
	hippo.Admin
	hippo.Exporter
	hippo.Importer
	hippo.Reembedder
	// Chunk reads one chunk with its embedding, of agentID when it is
	// set: ENOTFOUND when there is none.
	Chunk(ctx context.Context, agentID, id string) (*hippo.Chunk, error)
	// The web UI's reads (ui.Store).
	BrowseChunks(ctx context.Context, q hippo.BrowseQuery) ([]hippo.Browsed, int, error)
	ChunkStrengths(ctx context.Context, agentID string, ids []string) (map[string]float64, error)
	CountAgentChunks(ctx context.Context, agentID string, bins int) (*hippo.ChunkCounts, error)
	// DecayClock is the clock the store decays by: "wall" or "active".
	DecayClock() string
	hippo.IndexReporter
}

// Options are the options of a store's opener that the suite sets; the
// zero value opens as Backend.Open does.
type Options struct {
	// Config replaces hippo.DefaultConfig().
	Config *hippo.Config
	// Now is the store's clock; nil means time.Now.
	Now func() time.Time
	// Decay and DecayClock choose the decay model and clock, recorded in
	// the store ("" keeps the recorded one).
	Decay      hippo.DecayModel
	DecayClock string
	// IndexMemory bounds the bytes of the in-memory indexes (0: none).
	IndexMemory int64
}

// Backend makes stores for the suite.
type Backend struct {
	// New returns the name of a new, empty store (a path, a DSN).
	New func(t *testing.T) string
	// Open opens a handle on the store called name, closed when the test
	// ends. Two handles on one store behave like two processes.
	Open func(t *testing.T, name string) Store
	// OpenWith opens a handle like Open (closed when the test ends) with
	// the options o, returning the opener's error.
	OpenWith func(t *testing.T, name string, o Options) (Store, error)
	// Parallel is how many tests run at once (each on stores of its
	// own); 0 runs one at a time. A server store spends most of a test
	// creating and dropping its database, waiting rather than computing,
	// so its tests run side by side beyond -parallel (GOMAXPROCS).
	Parallel int
}

// suite is every test Run runs, by topic (the file each is in).
var suite = []struct {
	name string
	fn   func(*testing.T, Backend)
}{
	// Storing, editing and voting (memory.go)
	{"StoreMemoryRepeat", testStoreMemoryRepeat},
	{"StoreMemoryConcurrentDuplicates", testStoreMemoryConcurrentDuplicates},
	{"StoreMemoryBadInput", testStoreMemoryBadInput},
	{"UpdateAndDeleteChunk", testUpdateAndDeleteChunk},
	{"EditChecksTrust", testEditChecksTrust},
	{"ReinforceVotes", testReinforceVotes},
	{"StoreMemoryDedup", testStoreMemoryDedup},
	{"Reinforce", testReinforce},
	{"EmbeddingModelLock", testEmbeddingModelLock},
	// Batches (batch.go)
	{"StoreMemories", testStoreMemories},
	{"StoreMemoriesRace", testStoreMemoriesRace},
	{"StoreMemoriesRefused", testStoreMemoriesRefused},
	// Recall (recall.go)
	{"RecallRanksAndBoosts", testRecallRanksAndBoosts},
	{"RecallLimitsAndKind", testRecallLimitsAndKind},
	{"RecallExcludesChunksBelowFloor", testRecallExcludesChunksBelowFloor},
	{"RecallConsidersEveryChunk", testRecallConsidersEveryChunk},
	{"Scopes", testScopes},
	{"RecallFilters", testRecallFilters},
	{"RecallPagingAndDistribution", testRecallPagingAndDistribution},
	{"RecallAsOf", testRecallAsOf},
	{"RecallDryRunChangesNothing", testRecallDryRunChangesNothing},
	{"RecallOneVoice", testRecallOneVoice},
	{"RecallAndBoost", testRecallAndBoost},
	{"BoostFirstResultsWeakRest", testBoostFirstResultsWeakRest},
	{"Conversation", testConversation},
	{"BoostMatchesDomain", testBoostMatchesDomain},
	// Relevance and its floor (relevance.go)
	{"RecallUnrelatedFindsNothing", testRecallUnrelatedFindsNothing},
	{"RecallSharedWordIsNotFullRelevance", testRecallSharedWordIsNotFullRelevance},
	{"RelevanceFloorFromEmbedder", testRelevanceFloorFromEmbedder},
	{"RecallMinRelevanceInput", testRecallMinRelevanceInput},
	{"HistoryAndContextLeaveOutUnrelated", testHistoryAndContextLeaveOutUnrelated},
	{"RecallDiscountsLongContent", testRecallDiscountsLongContent},
	// Hybrid recall: vectors and BM25 (hybrid.go)
	{"HybridAlphaZeroIsVectorRecall", testHybridAlphaZeroIsVectorRecall},
	{"HybridAlphaOneRanksByBM25", testHybridAlphaOneRanksByBM25},
	{"HybridExplainFields", testHybridExplainFields},
	{"HybridKeepsToTheAgent", testHybridKeepsToTheAgent},
	{"HybridScoresAreTheAgents", testHybridScoresAreTheAgents},
	{"HybridQueriesWithFTSSyntax", testHybridQueriesWithFTSSyntax},
	{"HybridFiltersMatchVectorRecall", testHybridFiltersMatchVectorRecall},
	{"HybridAlphaInput", testHybridAlphaInput},
	// Facts (facts.go)
	{"RememberFactsSeedExample", testRememberFactsSeedExample},
	{"RememberFactsBands", testRememberFactsBands},
	{"RememberFactsBatchCosts", testRememberFactsBatchCosts},
	{"RememberFactsFailuresStoreNothing", testRememberFactsFailuresStoreNothing},
	{"RememberFactsRetriesOn429", testRememberFactsRetriesOn429},
	{"RememberFactsLLMFallback", testRememberFactsLLMFallback},
	{"RememberFactsNoFallback", testRememberFactsNoFallback},
	{"RememberFactsClassifyFallback", testRememberFactsClassifyFallback},
	{"RememberFactsConcurrentIdenticalCalls", testRememberFactsConcurrentIdenticalCalls},
	{"RememberFactsNoFactsAndBadInput", testRememberFactsNoFactsAndBadInput},
	{"FactHistoryChain", testFactHistoryChain},
	{"RememberFactsChangesOfStateOffline", testRememberFactsChangesOfStateOffline},
	{"RememberFactsFormerHistory", testRememberFactsFormerHistory},
	{"RememberFactsNoFactsReasonOffline", testRememberFactsNoFactsReasonOffline},
	{"RememberFactsReportsLLMCalls", testRememberFactsReportsLLMCalls},
	{"RememberFacts", testRememberFacts},
	{"RememberGivenFacts", testRememberGivenFacts},
	{"GivenFactReplaces", testGivenFactReplaces},
	{"SiblingFactsDoNotSupersede", testSiblingFactsDoNotSupersede},
	{"PartsFindOneSentence", testPartsFindOneSentence},
	{"FollowUpReadAfter", testFollowUpReadAfter},
	{"FollowUpAfterKeptText", testFollowUpAfterKeptText},
	{"RememberGivenFactsBadInput", testRememberGivenFactsBadInput},
	{"RememberGivenFactsOffline", testRememberGivenFactsOffline},
	{"FactHistory", testFactHistory},
	{"OfflineDefaultsSeedScenario", testOfflineDefaultsSeedScenario},
	// The text remember_facts keeps (kept.go)
	{"RememberKeepsText", testRememberKeepsText},
	{"RecallOneOfGroup", testRecallOneOfGroup},
	{"KeptTextStays", testKeptTextStays},
	{"CorrectionAboveText", testCorrectionAboveText},
	{"NewerCorrectionFirst", testNewerCorrectionFirst},
	{"NewerLinkedByWord", testNewerLinkedByWord},
	{"NewerLinkCountsTexts", testNewerLinkCountsTexts},
	{"OfflineFactRanksAsText", testOfflineFactRanksAsText},
	{"ClassifyFailureKeepsText", testClassifyFailureKeepsText},
	{"ForgetKeptText", testForgetKeptText},
	// Async remember_facts (pending.go)
	{"RememberAsync", testRememberAsync},
	{"LearnPendingNeedsExtractor", testLearnPendingNeedsExtractor},
	{"ForgetQueuedText", testForgetQueuedText},
	// Forgetting and consolidation (forget.go)
	{"ForgetByDescription", testForgetByDescription},
	{"SupersededFactLeavesRecallAndReturnsWhenSuccessorForgotten", testSupersededFactLeavesRecallAndReturnsWhenSuccessorForgotten},
	{"Consolidate", testConsolidate},
	{"Forget", testForget},
	// Blocks and context (blocks.go)
	{"BlockEdits", testBlockEdits},
	{"ListAndDeleteBlocks", testListAndDeleteBlocks},
	{"BlockDescription", testBlockDescription},
	{"ContextBudget", testContextBudget},
	{"Blocks", testBlocks},
	{"Context", testContext},
	// Isolation between agents and scopes (isolation.go)
	{"IsolationBetweenAgents", testIsolationBetweenAgents},
	{"IsolationProperty", testIsolationProperty},
	{"IsolationCrossAgentLinks", testIsolationCrossAgentLinks},
	{"RecallScopesAndIsolation", testRecallScopesAndIsolation},
	// Several handles, concurrency, index caches (concurrency.go)
	{"ConcurrentIdenticalFacts", testConcurrentIdenticalFacts},
	{"ConcurrentStoreMemory", testConcurrentStoreMemory},
	{"ReaderSeesOtherWriter", testReaderSeesOtherWriter},
	{"ReloadAfterBulkImport", testReloadAfterBulkImport},
	{"IndexUsage", testIndexUsage},
	{"IndexMemoryBound", testIndexMemoryBound},
	{"IndexMemoryBoundConcurrent", testIndexMemoryBoundConcurrent},
	{"ReaderFollowsWritesAndForgets", testReaderFollowsWritesAndForgets},
	// Decay models and clocks (decay.go)
	{"DecayModels", testDecayModels},
	{"DecayExportImport", testDecayExportImport},
	{"DecayModelRecorded", testDecayModelRecorded},
	{"ActiveDecayClockFreezesIdleTime", testActiveDecayClockFreezesIdleTime},
	{"LookingRecordsNoActivity", testLookingRecordsNoActivity},
	{"ActiveClockAcrossHandles", testActiveClockAcrossHandles},
	// update_memory (update.go)
	{"UpdateMemoryFact", testUpdateMemoryFact},
	{"UpdateMemory", testUpdateMemory},
	{"ConcurrentUpdateFact", testConcurrentUpdateFact},
	// Trust and provenance (provenance.go)
	{"Suspicious", testSuspicious},
	{"Provenance", testProvenance},
	{"EditTrust", testEditTrust},
	// Admin and browse (admin.go)
	{"AdminStatsAndAgents", testAdminStatsAndAgents},
	{"AdminStatsEmptyDatabase", testAdminStatsEmptyDatabase},
	{"AdminListChunks", testAdminListChunks},
	{"AdminSearch", testAdminSearch},
	{"AdminListBlocks", testAdminListBlocks},
	{"AdminPlanDeleteMatchesDelete", testAdminPlanDeleteMatchesDelete},
	{"AdminPurgeSuperseded", testAdminPurgeSuperseded},
	{"AdminPurgeKeepsOlderChunksSuperseded", testAdminPurgeKeepsOlderChunksSuperseded},
	{"BrowseStrengthMatchesRecall", testBrowseStrengthMatchesRecall},
	{"BrowseFiltersAndPages", testBrowseFiltersAndPages},
	{"TextFilterFolds", testTextFilterFolds},
	// Export and import (export.go)
	{"ExportImportRoundTrip", testExportImportRoundTrip},
	{"ExportSelectsAgentAndReportsProgress", testExportSelectsAgentAndReportsProgress},
	{"ImportSkipsAndReportsDuplicates", testImportSkipsAndReportsDuplicates},
	{"ImportRefusesAnotherModel", testImportRefusesAnotherModel},
	{"ImportIsAllOrNothing", testImportIsAllOrNothing},
	{"ImportRejectsMalformedFiles", testImportRejectsMalformedFiles},
	{"ImportTypeScriptExport", testImportTypeScriptExport},
	{"ImportAgentFallback", testImportAgentFallback},
	{"ImportReembeds", testImportReembeds},
	{"ImportProvenanceAndTrust", testImportProvenanceAndTrust},
	{"ImportReembedKeepsInputs", testImportReembedKeepsInputs},
	{"ImportLimits", testImportLimits},
	// Re-embedding (reembed.go)
	{"ReembedInterruptedAndResumed", testReembedInterruptedAndResumed},
	{"ReembedNewTargetStartsOver", testReembedNewTargetStartsOver},
	{"ReembedAcrossHandles", testReembedAcrossHandles},
}

// Run runs the whole suite against b.
func Run(t *testing.T, b Backend) {
	sem := make(chan struct{}, max(1, b.Parallel))
	var wg sync.WaitGroup
	for _, tc := range suite {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			t.Run(tc.name, func(t *testing.T) { tc.fn(t, b) })
		}()
	}
	wg.Wait()
}

// memory binds agent's memory on s with the offline models, writing to
// scope and recalling every scope.
func memory(t *testing.T, s Store, agent, scope string, ex hippo.Extractor) hippo.AgentMemory {
	t.Helper()
	if ex == nil {
		ex = local.NewExtractor()
	}
	m, err := s.Service(hippo.MemoryOptions{AgentID: agent, Scope: scope, Embedder: local.NewEmbedder(),
		Extractor: ex, Classifier: local.NewClassifier()})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func open(t *testing.T, b Backend) Store {
	t.Helper()
	return b.Open(t, b.New(t))
}

// openWith opens the store called name with the options o.
func openWith(t *testing.T, b Backend, name string, o Options) Store {
	t.Helper()
	s, err := b.OpenWith(t, name, o)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func noFloor() *float64 { z := 0.0; return &z }

// recallContents recalls query (no relevance floor) and returns the
// results' contents, best first.
func recallContents(t *testing.T, m hippo.MemoryService, in hippo.RecallInput) []string {
	t.Helper()
	if in.MinRelevance == nil {
		in.MinRelevance = noFloor()
	}
	res, err := m.Recall(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(res))
	for i, r := range res {
		out[i] = r.Chunk.Content
	}
	return out
}

// liveChunks lists an agent's live chunks of kind by content.
func liveChunks(t *testing.T, s Store, agent string, kind hippo.Kind) map[string]*hippo.Chunk {
	t.Helper()
	cs, err := s.ListChunks(context.Background(), hippo.ChunkFilter{AgentID: agent, Kind: kind})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*hippo.Chunk{}
	for _, c := range cs {
		if c.SupersededBy == "" {
			if out[c.Content] != nil {
				t.Errorf("%q is stored twice", c.Content)
			}
			out[c.Content] = c
		}
	}
	return out
}

func wantCode(t *testing.T, err error, code string) {
	t.Helper()
	if got := hippo.ErrorCode(err); got != code {
		t.Errorf("error %v: code %q, want %q", err, got, code)
	}
}
