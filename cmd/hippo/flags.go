package main

import (
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/spf13/cobra"
)

// parseKind checks a --kind value; "" means both kinds.
func parseKind(s string) (hippo.Kind, error) {
	k := hippo.Kind(s)
	if s != "" && !k.Valid() {
		return "", usageErrorf("--kind must be %q or %q, got %q", hippo.KindFact, hippo.KindMemory, s)
	}
	return k, nil
}

// checkPaging checks --limit and --offset.
func checkPaging(limit, offset int) error {
	if limit < 0 || offset < 0 {
		return usageErrorf("--limit and --offset must not be negative")
	}
	return nil
}

// parseDate reads a --before value: a date (midnight UTC) or an RFC 3339
// time.
func parseDate(flag, s string) (time.Time, error) {
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t.UTC(), nil
	}
	return time.Time{}, usageErrorf("--%s must be a date (2025-01-31) or an RFC 3339 time, got %q", flag, s)
}

// completeAgents completes the first argument with the agents of an
// existing database; it never creates one.
func (a *app) completeAgents(cmd *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	db, err := a.openDB(cmd.Context(), existingDB)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	defer db.Close()
	agents, err := db.Agents(cmd.Context())
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	names := make([]string, len(agents))
	for i, ag := range agents {
		names[i] = ag.AgentID
	}
	return names, cobra.ShellCompDirectiveNoFileComp
}
