package main

import (
	"fmt"
	"io"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version overrides the module version when set at build time with
// -ldflags "-X main.version=...".
var version = ""

// versionInfo is what this binary was built from.
type versionInfo struct {
	// Version is the module version: a tag such as v1.2.0 for
	// `go install ...@v1.2.0`, "(devel)" for a build from a checkout.
	Version string `json:"version"`
	// Revision is the VCS commit of a build from a checkout ("" when the
	// build recorded none), Modified whether the tree had local changes.
	Revision string `json:"revision,omitempty"`
	Time     string `json:"time,omitempty"`
	Modified bool   `json:"modified,omitempty"`
	Go       string `json:"go"`
}

// buildVersion reads the version from the binary's build information.
func buildVersion() versionInfo {
	bi, _ := debug.ReadBuildInfo()
	return versionFrom(bi)
}

// versionFrom is the version recorded in bi (nil when the binary has no
// build information).
func versionFrom(bi *debug.BuildInfo) versionInfo {
	v := versionInfo{Version: "(unknown)"}
	if bi != nil {
		v.Go = bi.GoVersion
		if bi.Main.Version != "" {
			v.Version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				v.Revision = s.Value
			case "vcs.time":
				v.Time = s.Value
			case "vcs.modified":
				v.Modified = s.Value == "true"
			}
		}
	}
	if version != "" {
		v.Version = version
	}
	return v
}

// String is the one-line form: version, then the revision when known.
func (v versionInfo) String() string {
	s := v.Version
	if v.Revision != "" {
		s += " (revision " + v.Revision
		if v.Modified {
			s += ", modified"
		}
		if v.Time != "" {
			s += ", " + v.Time
		}
		s += ")"
	}
	return s
}

func (a *app) newVersionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the module version and VCS revision hippo was built from",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			v := buildVersion()
			return a.emit(v, func(w io.Writer) error {
				_, err := fmt.Fprintf(w, "hippo %s %s\n", v, v.Go)
				return err
			})
		},
	}
}
