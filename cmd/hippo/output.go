package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/hippo-mem/hippo"
	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// emit prints v as JSON under --json, else calls text. Human output goes
// through a terminalWriter: stored text is an agent's, and its control
// characters must not drive the terminal. JSON stays exact.
func (a *app) emit(v any, text func(w io.Writer) error) error {
	if a.json {
		return writeJSON(a.stdout, v)
	}
	tw := &terminalWriter{w: a.stdout}
	if err := text(tw); err != nil {
		return err
	}
	return tw.Flush()
}

// note prints a human remark on stderr, never under --json.
func (a *app) note(format string, args ...any) {
	if !a.json {
		fmt.Fprint(a.stderr, escapeControls(fmt.Sprintf(format, args...))+"\n")
	}
}

// terminalWriter writes text with its control characters escaped (see
// escapeControls). A rune split across writes is held until it is whole.
type terminalWriter struct {
	w       io.Writer
	pending []byte
}

func (t *terminalWriter) Write(p []byte) (int, error) {
	b := append(t.pending, p...)
	t.pending = nil
	// Hold back an incomplete rune at the end: at most 3 bytes.
	for i := len(b) - 1; i >= 0 && i >= len(b)-3; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				t.pending = append([]byte(nil), b[i:]...)
				b = b[:i]
			}
			break
		}
	}
	if _, err := io.WriteString(t.w, escapeControls(string(b))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes what an incomplete rune left held back, escaped.
func (t *terminalWriter) Flush() error {
	if len(t.pending) == 0 {
		return nil
	}
	s := escapeControls(string(t.pending))
	t.pending = nil
	_, err := io.WriteString(t.w, s)
	return err
}

// escapeControls shows the characters a terminal would act on as escapes:
// C0 controls but newline and tab (ESC, BEL, CR, backspace: window titles,
// OSC 52 clipboard writes, erased lines), DEL, C1 controls (U+009B is a
// CSI), the bidirectional overrides that reorder what is shown, and bytes
// that are not UTF-8. Everything else, newlines and tabs included, is kept.
func escapeControls(s string) string {
	if !needsEscape(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case escapedRune(r):
			switch {
			case r < 0x80:
				fmt.Fprintf(&b, `\x%02x`, r)
			default:
				fmt.Fprintf(&b, `\u%04x`, r)
			}
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

func needsEscape(s string) bool {
	if !utf8.ValidString(s) {
		return true
	}
	for _, r := range s {
		if escapedRune(r) {
			return true
		}
	}
	return false
}

func escapedRune(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20, r >= 0x7f && r < 0xa0:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// table writes tab-separated rows as aligned columns.
func table(w io.Writer, header string, rows [][]string) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, header)
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	return tw.Flush()
}

// chunkView is a chunk as the CLI shows it: every stored field but the
// vector, absent values as null, plus its effective strength now.
type chunkView struct {
	ID               string          `json:"id"`
	AgentID          string          `json:"agent_id"`
	Scope            string          `json:"scope"`
	Kind             hippo.Kind      `json:"kind"`
	Content          string          `json:"content"`
	ContentHash      *string         `json:"content_hash"`
	Metadata         json.RawMessage `json:"metadata"`
	RunningIntensity float64         `json:"running_intensity"`
	EncounterCount   int             `json:"encounter_count"`
	AccessCount      int             `json:"access_count"`
	LastAccessedAt   time.Time       `json:"last_accessed_at"`
	Superseded       bool            `json:"superseded"`
	SupersededBy     *string         `json:"superseded_by"`
	SupersededAt     *time.Time      `json:"superseded_at"`
	CreatedAt        time.Time       `json:"created_at"`
	Strength         float64         `json:"strength"`
	// Suspicious marks content that reads as instructions to the agent.
	Suspicious       bool              `json:"suspicious"`
	SuspiciousReason string            `json:"suspicious_reason,omitempty"`
	Provenance       *hippo.Provenance `json:"provenance"`
	// ContextOf is the memory this follow-up was read after
	// (hippo.Chunk.ContextOf).
	ContextOf string `json:"context_of,omitempty"`
}

// viewChunks shows chunks with their strength by strength.
func viewChunks(cs []*hippo.Chunk, strength func(*hippo.Chunk) float64) []chunkView {
	out := make([]chunkView, len(cs))
	for i, c := range cs {
		meta := c.Metadata
		if len(meta) == 0 {
			meta = nil // null, not an empty (invalid) JSON text
		}
		out[i] = chunkView{
			ID: c.ID, AgentID: c.AgentID, Scope: c.Scope, Kind: c.Kind, Content: c.Content,
			ContentHash: nullable(c.ContentHash), Metadata: meta,
			RunningIntensity: c.RunningIntensity, EncounterCount: c.EncounterCount, AccessCount: c.AccessCount,
			LastAccessedAt: c.LastAccessedAt, Superseded: c.SupersededBy != "", SupersededBy: nullable(c.SupersededBy),
			SupersededAt: c.SupersededAt, CreatedAt: c.CreatedAt, Strength: strength(c),
			Suspicious: c.Suspicious, SuspiciousReason: c.SuspiciousReason, Provenance: c.Provenance, ContextOf: c.ContextOf,
		}
	}
	return out
}

// strengthAt is each chunk's effective strength at its own last access:
// its intensity, for a chunk just stored or recalled.
func strengthAt(cfg hippo.Config) func(*hippo.Chunk) float64 {
	return func(c *hippo.Chunk) float64 { return c.Strength(cfg, c.LastAccessedAt) }
}

// clockReader gives the decay clock of an agent at a time.
type clockReader interface {
	Config() hippo.Config
	DecayClockAt(ctx context.Context, agentID string, now time.Time) (hippo.DecayClock, error)
}

// strengthNow is each chunk's effective strength now, by the decay clock
// of the database (wall time, or its agent's active hours); a clock that
// cannot be read falls back to wall time.
func strengthNow(ctx context.Context, db clockReader) func(*hippo.Chunk) float64 {
	cfg, now := db.Config(), time.Now()
	clocks := map[string]hippo.DecayClock{}
	return func(c *hippo.Chunk) float64 {
		clock, ok := clocks[c.AgentID]
		if !ok {
			var err error
			if clock, err = db.DecayClockAt(ctx, c.AgentID, now); err != nil {
				clock = hippo.WallHours(now.UnixMilli())
			}
			clocks[c.AgentID] = clock
		}
		return cfg.StrengthBy(c, clock)
	}
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// chunkRows renders chunks for table, with an AGENT column when withAgent.
func chunkRows(cs []chunkView, withAgent bool) (string, [][]string) {
	header := "ID\tKIND\tSCOPE\tSTRENGTH\tCREATED\tCONTENT"
	if withAgent {
		header = "ID\tAGENT\tKIND\tSCOPE\tSTRENGTH\tCREATED\tCONTENT"
	}
	rows := make([][]string, len(cs))
	for i, c := range cs {
		content := oneLine(c.Content, 72)
		if c.Superseded {
			content = "[superseded by " + *c.SupersededBy + "] " + content
		}
		if c.Suspicious {
			content = "[suspicious: " + c.SuspiciousReason + "] " + content
		}
		r := []string{c.ID}
		if withAgent {
			r = append(r, c.AgentID)
		}
		rows[i] = append(r, string(c.Kind), showScope(c.Scope), fmt.Sprintf("%.2f", c.Strength),
			c.CreatedAt.Format("2006-01-02 15:04"), content)
	}
	return header, rows
}

// describeProvenance says where a chunk came from in a few words:
// "remember_facts via cli, source msg-42".
func describeProvenance(p *hippo.Provenance) string {
	if p == nil {
		return "unknown (stored before Hippo kept provenance)"
	}
	s := p.Origin
	if p.Caller != "" {
		s += " via " + p.Caller
	}
	if p.Source != "" {
		s += ", source " + p.Source
	}
	if p.InputHash != "" {
		s += ", input " + p.InputHash[:12]
	}
	if st := p.Stated(); st != "" {
		s += ", " + st
	}
	return s
}

// oneLine flattens whitespace and cuts s to max characters.
func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)
	return string(r[:max-1]) + "…"
}

func showScope(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// formatBytes renders n bytes in decimal units.
func formatBytes(n int64) string {
	const unit = 1000
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %cB", float64(n)/float64(div), "kMGTPE"[exp])
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// listIDs shows at most max IDs, then how many more.
func listIDs(ids []string, max int) string {
	if len(ids) <= max {
		return strings.Join(ids, ", ")
	}
	return strings.Join(ids[:max], ", ") + fmt.Sprintf(", … and %d more (--json lists all)", len(ids)-max)
}

// progress returns a progress bar on stderr when it is a terminal and
// output is not JSON, else nil. total -1 is a spinner.
func (a *app) progress(total int64, desc string, bytes bool) *progressbar.ProgressBar {
	f, ok := a.stderr.(*os.File)
	if a.json || !ok || !term.IsTerminal(int(f.Fd())) {
		return nil
	}
	opts := []progressbar.Option{
		progressbar.OptionSetWriter(f),
		progressbar.OptionSetDescription(desc),
		progressbar.OptionThrottle(100 * time.Millisecond),
		progressbar.OptionShowCount(),
		progressbar.OptionSetWidth(30),
		progressbar.OptionClearOnFinish(),
	}
	if bytes {
		opts = append(opts, progressbar.OptionShowBytes(true))
	}
	return progressbar.NewOptions64(total, opts...)
}
