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

// parseDate reads the value of a time flag with hippo.ParseTime: a bare
// date stands for the start or the end of its day by edge.
func parseDate(flag, s string, edge hippo.DayEdge) (time.Time, error) {
	t, err := hippo.ParseTime("--"+flag, s, edge)
	if err != nil {
		return time.Time{}, usageErrorf("%s", hippo.ErrorMessage(err))
	}
	return t, nil
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
