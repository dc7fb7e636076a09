// Package tools holds Hippo's agent tools as framework-neutral values: a
// name, a description an LLM can act on, the JSON Schema of the input and a
// handler that turns JSON input into text for the model plus structured
// details. The MCP server, the CLI and agent frameworks all serve these same
// tools; each tool lives in its own file.
package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/hippo-mem/hippo"
)

// MaxInputBytes bounds the raw JSON input of a tool call. It is checked
// before anything is decoded.
const MaxInputBytes = 1 << 20

// Tool is one agent tool.
type Tool struct {
	// Name is the tool's name, such as "recall_memories".
	Name string
	// Description tells a model when to use the tool, what it returns and
	// its limits.
	Description string
	// InputSchema is the JSON Schema of the input: always an object whose
	// properties are the tool's arguments.
	InputSchema *jsonschema.Schema
	// OutputSchema is the JSON Schema of the Details of a successful call:
	// always an object. Failed calls carry an ErrorDetails instead (see
	// ErrorSchema).
	OutputSchema *jsonschema.Schema
	// Aliases maps argument names the tool also accepts, though its schema
	// does not list them, to the schema's names: append_memory_block takes
	// "content" for "text", as the TypeScript Hippo's does. Giving both
	// names in one call is an error.
	Aliases map[string]string
	// ReadOnly is true for tools that only look things up. (Recalling
	// strengthens what it finds, but changes no content.)
	ReadOnly bool
	// Destructive is true for tools that delete or overwrite content.
	Destructive bool
	// Handler runs the tool on raw JSON input. Expected failures (bad
	// input, a missing block, text not found) come back as a Result with
	// IsError set; a Go error means something broke inside Hippo or its
	// providers.
	Handler func(ctx context.Context, input json.RawMessage) (*Result, error)

	// serve is Handler with the memory found from arguments a server adds:
	// see Serve.
	serve func(ctx context.Context, input json.RawMessage, extra []string, memory func([]json.RawMessage) (hippo.MemoryService, error)) (*Result, error)
}

// Serve runs the tool for a server that adds arguments of its own to
// every tool's, such as the MCP server's agent_id and scope (InputSchema
// does not list them). The input is read once: the raw values of the
// arguments named in extra go to memory, in that order (nil for one not
// given or null), which returns the memory the call works on; the rest
// are the tool's. memory runs before the tool's own arguments are
// checked, so that its errors come first. Only the tools of this package
// can be served.
func (t Tool) Serve(ctx context.Context, input json.RawMessage, extra []string, memory func(values []json.RawMessage) (hippo.MemoryService, error)) (*Result, error) {
	if t.serve == nil {
		return nil, fmt.Errorf("tools: %s was not made by package tools and cannot be served", t.Name)
	}
	return t.serve(ctx, input, extra, memory)
}

// Result is what a tool call returns.
type Result struct {
	// Text is for the model (or a person) to read.
	Text string
	// Details is the same outcome as a JSON-serialisable value with
	// snake_case field names.
	Details any
	// IsError reports an expected failure; Text then says what was wrong
	// and Details is an ErrorDetails.
	IsError bool
}

// ErrorDetails is the Details of a failed call.
type ErrorDetails struct {
	// Error is the hippo error code: "invalid", "not_found", "conflict" or
	// "unavailable" (the store's disk is full, or its file damaged).
	Error string `json:"error"`
	// Field names the offending input field, when there is one.
	Field   string `json:"field,omitempty"`
	Message string `json:"message"`
}

// ErrorSchema returns the JSON Schema of ErrorDetails, the Details of a
// failed call.
func ErrorSchema() *jsonschema.Schema { return outputSchema[ErrorDetails]() }

// Options configures New.
type Options struct {
	// Conversation includes recall_conversation; set it only when the
	// service has a messages table configured.
	Conversation bool
	// Config supplies the limits quoted in descriptions and schemas. It
	// should be the service's own configuration; the zero value means
	// hippo.DefaultConfig().
	Config hippo.Config
}

// Set is a list of tools that can be called by name.
type Set []Tool

// New returns the tools over svc, which must not be nil, in a stable order:
// write tools first, then read tools.
func New(svc hippo.MemoryService, opts Options) Set {
	return NewResolved(func(context.Context) (hippo.MemoryService, error) { return svc, nil }, opts)
}

// Resolver finds the memory a tool call works on, such as the agent named
// in a request.
type Resolver func(ctx context.Context) (hippo.MemoryService, error)

type resolver = Resolver

// NewResolved returns the tools with the memory of each call found by r:
// one tool set serves many agents. r may be nil for tools run only
// through Serve, which gets each call's memory itself; their Handler then
// fails.
func NewResolved(r Resolver, opts Options) Set {
	if r == nil {
		r = func(context.Context) (hippo.MemoryService, error) {
			return nil, errors.New("tools: no Resolver; run these tools with Serve")
		}
	}
	cfg := opts.Config
	if cfg == (hippo.Config{}) {
		cfg = hippo.DefaultConfig()
	}
	set := Set{
		rememberFacts(r, cfg),
		storeMemory(r, cfg),
		storeMemories(r, cfg),
		recallMemories(r, cfg),
		forgetMemory(r, cfg),
		recallMemoryBlock(r, cfg),
		replaceMemoryBlock(r, cfg),
		appendMemoryBlock(r, cfg),
		listMemoryBlocks(r, cfg),
		deleteMemoryBlock(r, cfg),
		getContext(r, cfg),
		factHistory(r, cfg),
		memorySource(r, cfg),
		reinforceMemory(r, cfg),
		updateMemory(r, cfg),
	}
	if opts.Conversation {
		set = append(set, recallConversation(r, cfg))
	}
	return set
}

// Parameters returns the input schema as generic JSON (a map of its
// keywords), the form in which agent frameworks take a function's
// parameters.
func (t Tool) Parameters() map[string]any {
	return schemaMap(t.InputSchema)
}

// schemaMap turns s into generic JSON.
func schemaMap(s *jsonschema.Schema) map[string]any {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err) // the schemas are built here and always marshal
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		panic(err)
	}
	return m
}

// Names returns the names of the tools, in order.
func (s Set) Names() []string {
	names := make([]string, len(s))
	for i, t := range s {
		names[i] = t.Name
	}
	return names
}

// Lookup returns the tool called name.
func (s Set) Lookup(name string) (Tool, bool) {
	for _, t := range s {
		if t.Name == name {
			return t, true
		}
	}
	return Tool{}, false
}

// Call runs the tool called name on input. An unknown name is an expected
// failure, reported in the Result.
func (s Set) Call(ctx context.Context, name string, input json.RawMessage) (*Result, error) {
	t, ok := s.Lookup(name)
	if !ok {
		return errorResult(hippo.Errorf(hippo.ENOTFOUND, "unknown tool %q; the tools are %s",
			name, strings.Join(s.Names(), ", "))), nil
	}
	return t.Handler(ctx, input)
}

// newTool builds a Tool whose handler decodes the input into In, strictly
// and against schema, finds the call's memory with r and passes both to
// run.
func newTool[In any](r Resolver, t Tool, schema *jsonschema.Schema, run func(context.Context, hippo.MemoryService, In) (*Result, error)) Tool {
	t.InputSchema = schema
	d := newDecoder(reflect.TypeFor[In](), schema, t.Aliases)
	name := t.Name
	serve := func(ctx context.Context, input json.RawMessage, extra []string, memory func([]json.RawMessage) (hippo.MemoryService, error)) (*Result, error) {
		var in In
		var values []json.RawMessage
		if len(extra) > 0 {
			values = make([]json.RawMessage, len(extra))
		}
		bad, err := d.read(input, reflect.ValueOf(&in).Elem(), extra, values)
		if err == nil && len(extra) == 0 {
			err = bad // the tool's arguments are all there is to check first
		}
		if err != nil {
			return errorResult(err), nil
		}
		svc, err := memory(values)
		if err == nil && bad != nil {
			err = bad
		}
		if err == nil {
			var res *Result
			if res, err = run(ctx, svc, in); err == nil {
				return res, nil
			}
		}
		if expected(err) {
			return errorResult(err), nil
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	t.serve = serve
	t.Handler = func(ctx context.Context, input json.RawMessage) (*Result, error) {
		return serve(ctx, input, nil, func([]json.RawMessage) (hippo.MemoryService, error) { return r(ctx) })
	}
	return t
}

// expected reports whether err is a failure the caller can fix, to be
// reported in a Result rather than returned.
func expected(err error) bool {
	switch hippo.ErrorCode(err) {
	case hippo.EINVALID, hippo.ENOTFOUND, hippo.ECONFLICT, hippo.EUNAVAILABLE:
		return true
	}
	return false
}

// errorResult turns an expected failure into a Result.
func errorResult(err error) *Result {
	d := ErrorDetails{Error: hippo.ErrorCode(err), Message: hippo.ErrorMessage(err)}
	var e *hippo.Error
	if errors.As(err, &e) {
		d.Field = e.Field
	}
	return &Result{Text: d.Message, Details: d, IsError: true}
}

// inputSchema infers the schema of In from its json and jsonschema tags,
// then lets edit add what tags cannot say (limits, enums, defaults).
// Optional pointer fields get a plain type rather than [null, type]: models
// handle single types best, and decode accepts null for them anyway.
func inputSchema[In any](edit func(props map[string]*jsonschema.Schema)) *jsonschema.Schema {
	s, err := jsonschema.For[In](nil)
	if err != nil {
		panic(err) // the input structs are fixed at build time
	}
	for _, p := range s.Properties {
		if len(p.Types) == 2 && p.Types[0] == "null" {
			p.Type, p.Types = p.Types[1], nil
		}
	}
	if edit != nil {
		edit(s.Properties)
	}
	return s
}

// outputSchema infers the schema of a tool's Details type Out from its json
// tags: fields without omitempty are required, and no other property is
// allowed. Metadata (raw JSON) is an object.
func outputSchema[Out any]() *jsonschema.Schema {
	s, err := jsonschema.For[Out](&jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[json.RawMessage](): {Type: "object"},
	}})
	if err != nil {
		panic(err) // the details types are fixed at build time
	}
	return s
}

// limitSchema sets the bounds and default of a result limit property.
func limitSchema(p *jsonschema.Schema, cfg hippo.Config) {
	p.Minimum = jsonschema.Ptr(1.0)
	p.Maximum = jsonschema.Ptr(float64(cfg.MaxLimit))
	p.Default = json.RawMessage(fmt.Sprint(cfg.DefaultLimit))
}

// textSchema sets the length bounds of a required text property.
func textSchema(p *jsonschema.Schema, max int) {
	p.MinLength = jsonschema.Ptr(1)
	if max > 0 {
		p.MaxLength = jsonschema.Ptr(max)
	}
}

// keySchema sets the bounds of a block key property.
func keySchema(p *jsonschema.Schema) {
	textSchema(p, hippo.MaxIDLength)
}

// checkLimit rejects an explicit limit of 0, which the service would read as
// "the default"; other values are checked by the service.
func checkLimit(limit *int, cfg hippo.Config) (int, error) {
	if limit == nil {
		return 0, nil
	}
	if *limit == 0 {
		return 0, hippo.Invalidf("limit", "must be between 1 and %d, got 0", cfg.MaxLimit)
	}
	return *limit, nil
}

// chunkDetails is a stored fact or memory as the tools report it.
type chunkDetails struct {
	ID               string          `json:"id"`
	Kind             hippo.Kind      `json:"kind"`
	Scope            string          `json:"scope"`
	Content          string          `json:"content"`
	Metadata         json.RawMessage `json:"metadata,omitempty"`
	RunningIntensity float64         `json:"running_intensity"`
	EncounterCount   int             `json:"encounter_count"`
	AccessCount      int             `json:"access_count"`
	CreatedAt        string          `json:"created_at"`
	LastAccessedAt   string          `json:"last_accessed_at"`
	// Suspicious marks content that reads as instructions to the agent.
	Suspicious       bool   `json:"suspicious,omitempty"`
	SuspiciousReason string `json:"suspicious_reason,omitempty"`
}

func newChunkDetails(c *hippo.Chunk) chunkDetails {
	d := chunkDetails{
		ID: c.ID, Kind: c.Kind, Scope: c.Scope, Content: c.Content,
		RunningIntensity: c.RunningIntensity, EncounterCount: c.EncounterCount, AccessCount: c.AccessCount,
		CreatedAt: timeString(c.CreatedAt), LastAccessedAt: timeString(c.LastAccessedAt),
		Suspicious: c.Suspicious, SuspiciousReason: c.SuspiciousReason,
	}
	if len(c.Metadata) > 0 && json.Valid(c.Metadata) {
		d.Metadata = c.Metadata
	}
	return d
}

// timeString formats t as RFC 3339 in UTC, or "" for the zero time.
func timeString(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// plural returns "1 fact" or "2 facts".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
