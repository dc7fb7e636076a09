package mcp

import (
	"context"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/sqlite"
)

// memoryKey is the context key of the memory a tool call works on.
type memoryKey struct{}

// withMemory returns ctx carrying m.
func withMemory(ctx context.Context, m *sqlite.Memory) context.Context {
	return context.WithValue(ctx, memoryKey{}, m)
}

// contextMemory is a hippo.MemoryService that forwards each call to the
// memory in the call's context: the tools are built once over it, and each
// call binds its own agent and scope.
type contextMemory struct{}

var _ hippo.MemoryService = contextMemory{}

func (contextMemory) memory(ctx context.Context) (*sqlite.Memory, error) {
	m, ok := ctx.Value(memoryKey{}).(*sqlite.Memory)
	if !ok || m == nil {
		return nil, hippo.Errorf(hippo.EINTERNAL, "mcp: no memory bound to the tool call")
	}
	return m, nil
}

func (c contextMemory) StoreMemory(ctx context.Context, in hippo.StoreInput) (*hippo.StoreResult, error) {
	m, err := c.memory(ctx)
	if err != nil {
		return nil, err
	}
	return m.StoreMemory(ctx, in)
}

func (c contextMemory) RememberFacts(ctx context.Context, text string) (*hippo.RememberResult, error) {
	m, err := c.memory(ctx)
	if err != nil {
		return nil, err
	}
	return m.RememberFacts(ctx, text)
}

func (c contextMemory) Recall(ctx context.Context, in hippo.RecallInput) ([]hippo.Recalled, error) {
	m, err := c.memory(ctx)
	if err != nil {
		return nil, err
	}
	return m.Recall(ctx, in)
}

func (c contextMemory) Forget(ctx context.Context, in hippo.ForgetInput) (*hippo.ForgetResult, error) {
	m, err := c.memory(ctx)
	if err != nil {
		return nil, err
	}
	return m.Forget(ctx, in)
}

func (c contextMemory) Block(ctx context.Context, key string) (*hippo.Block, error) {
	m, err := c.memory(ctx)
	if err != nil {
		return nil, err
	}
	return m.Block(ctx, key)
}

func (c contextMemory) AppendBlock(ctx context.Context, key, text string) (*hippo.Block, error) {
	m, err := c.memory(ctx)
	if err != nil {
		return nil, err
	}
	return m.AppendBlock(ctx, key, text)
}

func (c contextMemory) ReplaceBlock(ctx context.Context, key, old, new string) (*hippo.Block, int, error) {
	m, err := c.memory(ctx)
	if err != nil {
		return nil, 0, err
	}
	return m.ReplaceBlock(ctx, key, old, new)
}

func (c contextMemory) SearchConversation(ctx context.Context, query string, limit int) ([]hippo.ConversationHit, error) {
	m, err := c.memory(ctx)
	if err != nil {
		return nil, err
	}
	return m.SearchConversation(ctx, query, limit)
}
