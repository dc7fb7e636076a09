package main

import (
	"fmt"
	"log/slog"
	"net"
	"os"
	"strings"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/mcp"
	"github.com/hippo-mem/hippo/sqlite"
	"github.com/hippo-mem/hippo/ui"
	"github.com/spf13/cobra"
)

func (a *app) newServeCommand() *cobra.Command {
	var (
		transport, addr, token, messages string
		origins                          []string
		insecure                         bool
	)
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the memory tools over MCP (stdio, Streamable HTTP and SSE)",
		Long: `Serve Hippo's tools to MCP clients (Claude, Cursor, ...). Every tool call
names its agent_id (and optionally a scope), so one server serves many agents.

--transport http (default) serves Streamable HTTP at /mcp, the legacy SSE
transport at GET /sse + POST /messages?sessionId=, GET /health and a web
UI at /ui/ (with --auth-token, open the one-time sign-in link it prints), on
127.0.0.1:3100 unless --addr says otherwise. --transport stdio speaks MCP on
standard input and output. With no HIPPO_EMBED_* / HIPPO_LLM_* settings the
offline defaults are used: no key, no network.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			if transport != "http" && transport != "stdio" {
				return usageErrorf("--transport must be http or stdio, got %q", transport)
			}
			if token == "" {
				token = os.Getenv("HIPPO_AUTH_TOKEN")
			}
			emb, err := a.embedder()
			if err != nil {
				return err
			}
			extractor, classifier, err := a.factModels()
			if err != nil {
				return err
			}
			db, err := a.openDBFor(ctx, emb, createDB)
			if err != nil {
				return err
			}
			defer db.Close()
			if emb, err = a.embedderFor(ctx, db); err != nil {
				return err
			}
			if err := db.VerifyEmbeddingModel(ctx, emb.Model(), emb.Dimension()); err != nil {
				return err
			}
			if messages != "" {
				if err := sqlite.ValidateTableName(messages); err != nil {
					return usageErrorf("%v", err)
				}
			}
			log := slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
			embedDesc, llmDesc := a.describeProviders(emb)
			log.Info("hippo serve", "version", buildVersion().String(), "db", db.Path(), "embedder", embedDesc, "llm", llmDesc,
				"transport", transport, "auth", token != "")
			web, err := ui.New(ui.Config{Store: db, Token: token, Logger: log,
				Memory: func(agent, scope string) (hippo.MemoryService, error) {
					return db.Memory(sqlite.MemoryOptions{AgentID: agent, Scope: scope, MessagesTable: messages,
						Embedder: emb, Extractor: extractor, Classifier: classifier})
				}})
			if err != nil {
				return err
			}
			s, err := mcp.NewServer(mcp.Config{
				DB: db, Embedder: emb, Extractor: extractor, Classifier: classifier,
				MessagesTable: messages, AuthToken: token, AllowedOrigins: origins, Insecure: insecure,
				Logger: log, Version: buildVersion().Version, UI: web,
			})
			if err != nil {
				return err
			}
			if transport == "stdio" {
				return s.ServeStdio(ctx, a.stdin, a.stdout)
			}
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				return fmt.Errorf("listen on %s: %w", addr, err)
			}
			url := "http://" + ln.Addr().String()
			fmt.Fprintf(a.stderr, "Hippo MCP server on %s/mcp (SSE: %s/sse, health: %s/health)\n", url, url, url)
			fmt.Fprintf(a.stderr, "Client configuration:\n  {\"mcpServers\": {\"hippo\": {\"url\": \"%s/mcp\"%s}}}\n", url, authHint(token))
			fmt.Fprintf(a.stderr, "Web UI: %s%s\n", url, web.SignInPath())
			return s.Serve(ctx, ln)
		},
	}
	f := cmd.Flags()
	f.StringVar(&transport, "transport", envOr("HIPPO_TRANSPORT", "http"), "http or stdio (env HIPPO_TRANSPORT)")
	f.StringVar(&addr, "addr", defaultAddr(), "listen address (env HIPPO_PORT sets the port)")
	f.StringVar(&token, "auth-token", "", "require Authorization: Bearer <token> (env HIPPO_AUTH_TOKEN)")
	f.StringSliceVar(&origins, "allow-origin", nil, "browser origins allowed besides loopback")
	f.BoolVar(&insecure, "insecure", false, "allow a non-loopback address without --auth-token")
	f.StringVar(&messages, "messages-table", os.Getenv("HIPPO_MESSAGES_TABLE"), "enable recall_conversation over this table and its <table>_fts index")
	return cmd
}

func authHint(token string) string {
	if token == "" {
		return ""
	}
	return `, "headers": {"Authorization": "Bearer $HIPPO_AUTH_TOKEN"}`
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

// defaultAddr is 127.0.0.1:3100, or 127.0.0.1:$HIPPO_PORT. HIPPO_PORT may
// also be a full host:port.
func defaultAddr() string {
	p := os.Getenv("HIPPO_PORT")
	switch {
	case p == "":
		return mcp.DefaultAddr
	case strings.Contains(p, ":"):
		return p
	}
	return "127.0.0.1:" + p
}
