package sqlite

import "github.com/hippo-mem/hippo"

// ConsolidateOptions is hippo.ConsolidateOptions.
type ConsolidateOptions = hippo.ConsolidateOptions

// ConsolidateResult is hippo.ConsolidateResult.
type ConsolidateResult = hippo.ConsolidateResult

// FadedChunk is hippo.FadedChunk.
type FadedChunk = hippo.FadedChunk

// MergedMemory is hippo.MergedMemory.
type MergedMemory = hippo.MergedMemory
