// Command hippo inspects and manages Hippo databases: statistics, browsing,
// text search, deletion, purging, export and import. It only wires flags to
// hippo's Store interfaces; open.go is the one place that opens a backend.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/dsn"
	"github.com/hippo-mem/hippo/metrics"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Exit codes.
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run executes the command line args and returns the exit code: 0 on
// success, 1 on failure, 2 on a usage error.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	a := &app{stdin: stdin, stdout: stdout, stderr: stderr}
	root := a.newRootCommand()
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	cmd, err := root.ExecuteContextC(ctx)
	if err == nil {
		return exitOK
	}
	// Cobra fails before a command runs only over flags, arguments or an
	// unknown command: all usage errors.
	var uerr *usageError
	code := exitFailure
	if !a.ran || errors.As(err, &uerr) {
		code = exitUsage
	}
	if len(a.stores) == 1 { // with two (copy), which file it concerns is not known here
		err = a.stores[0].StorageError(err) // a damaged file or a full disk, named, with what to do
	}
	a.printError(cmd, err, code)
	return code
}

// app holds the global flags and the streams every command writes to.
type app struct {
	stdin          io.Reader
	stdout, stderr io.Writer

	dbPath string
	agent  string
	scope  string
	json   bool

	providers providers
	// metrics, when set (hippo serve), counts provider calls, retries and
	// tokens.
	metrics *metrics.Metrics
	// decay, when set (hippo init --decay), chooses the decay model the
	// database records.
	decay hippo.DecayModel
	// agentStats is --agent-text-statistics: each agent's full-text
	// scores use its own statistics (hippo.Config.AgentTextStatistics).
	agentStats bool
	// indexMemory bounds the resident indexes' bytes (hippo serve
	// --index-memory); 0 sets no bound.
	indexMemory int64
	// serving is set by hippo serve; adopt opens a SQLite file that holds
	// another application's tables (serve --messages-table: the messages
	// table lives beside Hippo's).
	serving, adopt bool
	// stores translate the errors of the SQLite databases a command opened.
	stores []interface{ StorageError(error) error }

	root *cobra.Command
	ran  bool // a command's RunE was reached
}

func (a *app) newRootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:   "hippo",
		Short: "Persistent memory for AI agents: inspect, search, remember, recall, forget",
		Long: `hippo inspects and manages Hippo databases: persistent memory for AI agents.

The database is --db, else $HIPPO_DB, else $XDG_DATA_HOME/hippo/hippo.db
(~/.local/share/hippo/hippo.db). Only the commands that add data (init,
remember, store, block set/append/describe, import, serve) create it; every
other command fails on a missing file, naming it.
Every command accepts --json for machine-readable output on stdout; errors
go to stderr. Exit codes: 0 success, 1 failure, 2 usage error.`,
		Version:       buildVersion().String(),
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	root.SetVersionTemplate("hippo {{.Version}}\n")
	a.root = root
	f := root.PersistentFlags()
	f.StringVar(&a.dbPath, "db", defaultDBPath(), "database: a file path, a file: URI or a postgres:// URL (env HIPPO_DB)")
	f.StringVar(&a.agent, "agent", os.Getenv("HIPPO_AGENT"), "agent ID (env HIPPO_AGENT)")
	f.StringVar(&a.scope, "scope", "", `scope ("" is the global scope; default: all scopes where a command lists)`)
	f.BoolVar(&a.json, "json", false, "print machine-readable JSON")
	a.providers.addProviderFlags(f)
	f.BoolVar(&a.agentStats, "agent-text-statistics", false, "score full-text matches with each agent's own word statistics, not the whole database's, so that no agent's scores move with, or tell of, another agent's memories (env HIPPO_AGENT_TEXT_STATISTICS=1)")

	root.AddCommand(
		a.newInitCommand(),
		a.newStatsCommand(),
		a.newAgentsCommand(),
		a.newChunksCommand(),
		a.newBlocksCommand(),
		a.newBlockCommand(),
		a.newSearchCommand(),
		a.newDeleteCommand(),
		a.newPurgeCommand(),
		a.newExportCommand(),
		a.newImportCommand(),
		a.newCopyCommand(),
		a.newReembedCommand(),
		a.newRememberCommand(),
		a.newPendingCommand(),
		a.newStoreCommand(),
		a.newRecallCommand(),
		a.newForgetCommand(),
		a.newServeCommand(),
		a.newHistoryCommand(),
		a.newSourceCommand(),
		a.newTrustCommand(),
		a.newContextCommand(),
		a.newReinforceCommand(),
		a.newEditCommand(),
		a.newConsolidateCommand(),
		a.newVersionCommand(),
	)
	root.InitDefaultCompletionCmd()
	rejectUnknownSubcommands(root)
	redactFlagDefaults(root)
	nameArgs(root)
	a.markRuns(root)
	return root
}

// rejectUnknownSubcommands makes command groups (like "completion") fail
// with a usage error on an unknown subcommand; cobra would print the help
// and succeed.
func rejectUnknownSubcommands(cmd *cobra.Command) {
	for _, sub := range cmd.Commands() {
		if sub.HasSubCommands() && !sub.Runnable() {
			sub.Args = cobra.ArbitraryArgs
			sub.RunE = func(c *cobra.Command, args []string) error {
				if len(args) == 0 {
					return c.Help()
				}
				return usageErrorf("unknown command %q for %q", args[0], c.CommandPath())
			}
		}
		rejectUnknownSubcommands(sub)
	}
}

// redactFlagDefaults redacts the credentials in the defaults --help shows:
// several defaults come from the environment (HIPPO_DB, HIPPO_EMBED_URL,
// HIPPO_LLM_URL), which may hold a password or a key. Only what is shown
// changes; the values stay.
func redactFlagDefaults(cmd *cobra.Command) {
	redact := func(f *pflag.Flag) { f.DefValue = dsn.Redact(f.DefValue) }
	cmd.Flags().VisitAll(redact)
	cmd.PersistentFlags().VisitAll(redact)
	for _, sub := range cmd.Commands() {
		redactFlagDefaults(sub)
	}
}

// markRuns wraps every command's RunE to record that it was reached, which
// tells usage errors (raised before) from failures.
func (a *app) markRuns(cmd *cobra.Command) {
	if run := cmd.RunE; run != nil {
		cmd.RunE = func(c *cobra.Command, args []string) error {
			a.ran = true
			return run(c, args)
		}
	}
	for _, sub := range cmd.Commands() {
		a.markRuns(sub)
	}
}

// scopeFilter is the --scope value when it was given, else nil (all scopes).
func (a *app) scopeFilter() (*string, error) {
	if !a.root.PersistentFlags().Changed("scope") {
		return nil, nil
	}
	if err := hippo.ValidateScope(a.scope); err != nil {
		return nil, usageErrorf("%s", hippo.ErrorMessage(err))
	}
	s := a.scope
	return &s, nil
}

// agentArg is the agent named by args[i], else by --agent/HIPPO_AGENT,
// for commands whose first argument is an optional [agent].
func (a *app) agentArg(args []string, i int) (string, error) {
	agent := a.agent
	if i < len(args) {
		agent = args[i]
	}
	if agent == "" {
		return "", usageErrorf("no agent given: pass it as the first argument, or set --agent or HIPPO_AGENT")
	}
	return checkAgent(agent)
}

// agentFlag is the agent named by --agent/HIPPO_AGENT, for commands that
// take no agent argument.
func (a *app) agentFlag() (string, error) {
	if a.agent == "" {
		return "", usageErrorf("no agent given: set --agent or HIPPO_AGENT")
	}
	return checkAgent(a.agent)
}

func checkAgent(agent string) (string, error) {
	if err := hippo.ValidateAgentID(agent); err != nil {
		return "", usageErrorf("%s", hippo.ErrorMessage(err))
	}
	return agent, nil
}

// usageError is a command line the command cannot act on: exit code 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usageErrorf(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// printError reports err on stderr, as JSON under --json.
func (a *app) printError(cmd *cobra.Command, err error, code int) {
	msg := hippo.ErrorMessage(err)
	kind := hippo.ErrorCode(err)
	var uerr *usageError
	if code == exitUsage {
		kind, msg = "usage", err.Error()
		if errors.As(err, &uerr) {
			msg = uerr.msg
		}
	}
	if a.json {
		_ = writeJSON(a.stderr, map[string]any{"error": map[string]any{"code": kind, "message": msg}})
		return
	}
	fmt.Fprintf(a.stderr, "hippo: %s\n", escapeControls(msg))
	if code == exitUsage && cmd != nil {
		fmt.Fprintf(a.stderr, "Run '%s --help' for usage.\n", cmd.CommandPath())
	}
}
