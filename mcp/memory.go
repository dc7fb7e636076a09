package mcp

import (
	"context"

	"github.com/hippo-mem/hippo"
)

// memoryKey is the context key of the memory a tool call works on.
type memoryKey struct{}

// withMemory returns ctx carrying m.
func withMemory(ctx context.Context, m hippo.MemoryService) context.Context {
	return context.WithValue(ctx, memoryKey{}, m)
}

// contextMemory resolves a tool call's memory from its context: the tools
// are built once, and each call binds its own agent and scope.
func contextMemory(ctx context.Context) (hippo.MemoryService, error) {
	m, ok := ctx.Value(memoryKey{}).(hippo.MemoryService)
	if !ok || m == nil {
		return nil, hippo.Errorf(hippo.EINTERNAL, "mcp: no memory bound to the tool call")
	}
	return m, nil
}
