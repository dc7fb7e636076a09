package storetest

import (
	"bytes"
	"context"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hippo-mem/hippo"
)

// The memories of testDecayModels, stored with intensities 0.9, 0.6 and
// 0.3.
const (
	decayVivid = "The user was thrilled by the launch of the new observatory"
	decayMid   = "The team moved the weekly sync to Tuesday afternoons"
	decayFaint = "A grey pigeon sat on the windowsill for a while"
)

// decayModelCase is what testDecayModels expects of one decay model.
type decayModelCase struct {
	model hippo.DecayModel
	want  map[string]float64 // strength on day 20; absent: under the floor
	// intensity and accesses stored on day 20
	intensity map[string]float64
	// the middle memory's strength on day 5, before its recall
	midDay5 float64
}

// testDecayModels feeds a store under each decay model the same scripted
// history (stores, recalls, time passing on the store's clock) and checks
// the strengths recall reports against each design's formula: the seed's
// intensity × e^(−λ / (1 + ln(1 + accesses) × 0.3) × hours) with +0.02
// per recall (capped at 1), and MemoryMCP's importance × e^(−t/S) with S
// 10, 5 or 1 days by intensity, × 1.5 per recall, at most 365 days. The
// strength floor (0.05) follows the model: the faint memory is left out
// under ebbinghaus only.
func testDecayModels(t *testing.T, b Backend) {
	const (
		vivid = decayVivid
		mid   = decayMid
		faint = decayFaint
		h     = 24.0 // hours per day
	)
	hippoRate := func(access int) float64 { return 0.001 / (1 + math.Log1p(float64(access))*0.3) }
	tests := []decayModelCase{
		{
			model: hippo.DecayHippo,
			want: map[string]float64{
				// 10 recalls: 0.9 + 10 × 0.02 capped at 1; last on day 10.
				vivid: 1 * math.Exp(-hippoRate(10)*10*h),
				// 1 recall on day 5: 0.62.
				mid: 0.62 * math.Exp(-hippoRate(1)*15*h),
				// never recalled: 20 days from its creation.
				faint: 0.3 * math.Exp(-hippoRate(0)*20*h),
			},
			intensity: map[string]float64{vivid: 1, mid: 0.62, faint: 0.3},
			midDay5:   0.6 * math.Exp(-hippoRate(0)*5*h),
		},
		{
			model: hippo.DecayEbbinghaus,
			want: map[string]float64{
				// S = 10 × 1.5^10 = 577 days, capped at 365; t = 10 days.
				vivid: 0.9 * math.Exp(-10.0/365),
				// S = 5 × 1.5 = 7.5 days; t = 15 days.
				mid: 0.6 * math.Exp(-15.0/7.5),
				// S = 1 day, t = 20 days: 0.3 e^−20, under the floor.
			},
			// A recall grows the stability and leaves the importance.
			intensity: map[string]float64{vivid: 0.9, mid: 0.6, faint: 0.3},
			// R at t = S (5 days) is e^−1.
			midDay5: 0.6 * math.Exp(-1),
		},
	}
	for _, tt := range tests {
		t.Run(string(tt.model), func(t *testing.T) { checkDecayModel(t, b, tt) })
	}
}

// decayDays is n days.
func decayDays(n float64) time.Duration { return time.Duration(n * float64(24*time.Hour)) }

// checkDecayModel plays testDecayModels' history on a new store under
// tt.model and checks what it leaves on day 20.
func checkDecayModel(t *testing.T, b Backend, tt decayModelCase) {
	ctx := context.Background()
	start := time.Date(2025, 3, 1, 9, 0, 0, 0, time.UTC)
	var clock atomic.Int64
	clock.Store(start.UnixMilli())
	at := func(d float64) { clock.Store(start.Add(decayDays(d)).UnixMilli()) }
	s := openWith(t, b, b.New(t), Options{Now: func() time.Time { return time.UnixMilli(clock.Load()) }, Decay: tt.model})
	m := memory(t, s, "alice", "", nil)
	if got := m.Config().Decay; got != tt.model {
		t.Fatalf("Config().Decay = %q, want %q", got, tt.model)
	}
	for content, in := range map[string]float64{decayVivid: 0.9, decayMid: 0.6, decayFaint: 0.3} {
		if _, err := m.StoreMemory(ctx, hippo.StoreInput{Content: content, Intensity: &in}); err != nil {
			t.Fatal(err)
		}
	}
	recallDecayDays(t, m, at, tt.midDay5)
	at(20)
	checkDecayStrengths(t, m, tt.want)
	live := liveChunks(t, s, "alice", hippo.KindMemory)
	checkDecayChunks(t, m, live, tt, time.UnixMilli(clock.Load()))
	checkDecayFaded(t, m, live, tt.want, start)
	st, err := s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.DecayModel != tt.model {
		t.Errorf("Stats().DecayModel = %q, want %q", st.DecayModel, tt.model)
	}
}

// recallDecayDays recalls the vivid memory on days 1 to 10, the middle
// one on day 5 too (checking its strength before), the faint one never.
func recallDecayDays(t *testing.T, m hippo.AgentMemory, at func(day float64), midDay5 float64) {
	ctx := context.Background()
	recall := func(content string) {
		t.Helper()
		res, err := m.Recall(ctx, hippo.RecallInput{Query: content, Limit: 1})
		if err != nil {
			t.Fatal(err)
		}
		if len(res) != 1 || res[0].Chunk.Content != content {
			t.Fatalf("recall %q: %+v", content, res)
		}
	}
	for d := 1; d <= 10; d++ {
		at(float64(d))
		recall(decayVivid)
		if d == 5 {
			res, err := m.Recall(ctx, hippo.RecallInput{Query: decayMid, Limit: 1, DryRun: true})
			if err != nil {
				t.Fatal(err)
			}
			if len(res) != 1 || math.Abs(res[0].Strength-midDay5) > 1e-5 {
				t.Errorf("day 5: %+v, want the middle memory at strength %v", res, midDay5)
			}
			recall(decayMid)
		}
	}
}

// checkDecayStrengths checks the strengths recall reports: those of want,
// and no memory that want leaves out.
func checkDecayStrengths(t *testing.T, m hippo.AgentMemory, want map[string]float64) {
	res, err := m.Recall(context.Background(), hippo.RecallInput{Query: "observatory launch, weekly sync, pigeon", Limit: 10,
		MinRelevance: noFloor(), DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, r := range res {
		got[r.Chunk.Content] = r.Strength
	}
	for content, w := range want {
		if s, ok := got[content]; !ok || math.Abs(s-w) > 1e-5 {
			t.Errorf("%.20q: strength %v (recalled %v), want %v", content, s, ok, w)
		}
	}
	for content := range got {
		if _, ok := want[content]; !ok {
			t.Errorf("%.20q recalled with strength %v: it is under the floor", content, got[content])
		}
	}
}

// checkDecayChunks checks the stored chunks' accesses and intensities,
// and that a chunk's own strength at now is the one recall reports.
func checkDecayChunks(t *testing.T, m hippo.AgentMemory, live map[string]*hippo.Chunk, tt decayModelCase, now time.Time) {
	for content, access := range map[string]int{decayVivid: 10, decayMid: 1, decayFaint: 0} {
		c := live[content]
		if c == nil {
			t.Fatalf("%.20q is not stored", content)
		}
		if c.AccessCount != access || math.Abs(c.RunningIntensity-tt.intensity[content]) > 1e-9 {
			t.Errorf("%.20q: accesses %d, intensity %v; want %d, %v", content, c.AccessCount, c.RunningIntensity, access, tt.intensity[content])
		}
		if want, ok := tt.want[content]; ok {
			if s := c.Strength(m.Config(), now); math.Abs(s-want) > 1e-9 {
				t.Errorf("%.20q: Chunk.Strength %v, want %v", content, s, want)
			}
		}
	}
}

// checkDecayFaded checks that consolidation's floor follows the model:
// under ebbinghaus the faint memory has been under 0.05 since
// 0.3 e^(−t/1) crossed it, at t = ln 6 days.
func checkDecayFaded(t *testing.T, m hippo.AgentMemory, live map[string]*hippo.Chunk, want map[string]float64, start time.Time) {
	cons, err := m.Consolidate(context.Background(), hippo.ConsolidateOptions{AgentID: "alice", Grace: decayDays(7), MergeThreshold: 1, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	var faded []string
	for _, f := range cons.Faded {
		faded = append(faded, f.ID)
		if want := start.Add(decayDays(math.Log(6))); f.UnderSince.Sub(want).Abs() > time.Minute {
			t.Errorf("faded since %v, want %v", f.UnderSince, want)
		}
	}
	wantFaded := 0
	if _, ok := want[decayFaint]; !ok {
		wantFaded = 1
	}
	if len(faded) != wantFaded || (wantFaded == 1 && faded[0] != live[decayFaint].ID) {
		t.Errorf("consolidation finds faded %v, want %d (the faint memory)", faded, wantFaded)
	}
}

// testDecayExportImport checks that an export carries its decay model and
// that an import into a database of another model is refused, changing
// nothing, while one of the same model goes in.
func testDecayExportImport(t *testing.T, b Backend) {
	ctx := context.Background()
	models := map[hippo.DecayModel]Store{}
	for _, model := range hippo.DecayModels() {
		models[model] = openWith(t, b, b.New(t), Options{Decay: model})
	}
	for from, src := range models {
		if _, err := memory(t, src, "alice", "", nil).StoreMemory(ctx, hippo.StoreInput{Content: "Exported under " + string(from)}); err != nil {
			t.Fatal(err)
		}
		var file bytes.Buffer
		if _, err := src.Export(ctx, &file, hippo.ExportOptions{}); err != nil {
			t.Fatal(err)
		}
		for to := range models {
			dst := openWith(t, b, b.New(t), Options{Decay: to})
			_, err := dst.Import(ctx, bytes.NewReader(file.Bytes()), hippo.ImportOptions{})
			n, cerr := dst.CountChunks(ctx, hippo.ChunkFilter{})
			if cerr != nil {
				t.Fatal(cerr)
			}
			switch {
			case from == to && (err != nil || n != 1):
				t.Errorf("%s into %s: %v, %d chunks; want it imported", from, to, err, n)
			case from != to && (hippo.ErrorCode(err) != hippo.ECONFLICT || n != 0):
				t.Errorf("%s into %s: %v, %d chunks; want ECONFLICT and nothing imported", from, to, err, n)
			case from != to && !strings.Contains(hippo.ErrorMessage(err), "decay model"):
				t.Errorf("%s into %s: %q does not name the decay model", from, to, hippo.ErrorMessage(err))
			}
		}
	}
}

// testDecayModelRecorded: the model is chosen by Options.Decay or
// Config.Decay, recorded in the store for every later open, kept by opens
// that name none (a default Config included), and an unknown one is
// refused.
func testDecayModelRecorded(t *testing.T, b Backend) {
	ctx := context.Background()
	name := b.New(t)
	reopen := func(o Options) hippo.DecayModel {
		t.Helper()
		s := openWith(t, b, name, o)
		defer s.Close()
		st, err := s.Stats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if s.Config().Decay != st.DecayModel {
			t.Errorf("Config().Decay %q, Stats().DecayModel %q", s.Config().Decay, st.DecayModel)
		}
		return st.DecayModel
	}
	def := hippo.DefaultConfig()
	ebb := hippo.DefaultConfig()
	ebb.Decay = hippo.DecayEbbinghaus
	for i, tt := range []struct {
		opts Options
		want hippo.DecayModel
	}{
		{Options{}, hippo.DecayHippo},
		{Options{Config: &ebb}, hippo.DecayEbbinghaus},
		{Options{}, hippo.DecayEbbinghaus},
		{Options{Config: &def}, hippo.DecayEbbinghaus},
		{Options{Decay: hippo.DecayHippo, Config: &ebb}, hippo.DecayHippo}, // the option wins
		{Options{Decay: hippo.DecayEbbinghaus}, hippo.DecayEbbinghaus},
	} {
		if got := reopen(tt.opts); got != tt.want {
			t.Errorf("open %d: model %q, want %q", i, got, tt.want)
		}
	}
	if _, err := b.OpenWith(t, name, Options{Decay: "linear"}); hippo.ErrorCode(err) != hippo.EINVALID {
		t.Errorf("unknown model: %v, want EINVALID", err)
	}
}

func testActiveDecayClockFreezesIdleTime(t *testing.T, b Backend) {
	ctx := context.Background()
	for _, tt := range []struct {
		clock string
		want  float64 // strength of a 0.5 memory after an idle month, then 10 busy hours
	}{
		{"wall", 0.5 * math.Exp(-0.001*(30*24+10))},
		{"active", 0.5 * math.Exp(-0.001*10)},
	} {
		t.Run(tt.clock, func(t *testing.T) {
			e := newEnv(t, b)
			name := b.New(t)
			db := openWith(t, b, name, Options{Now: e.clock.Now, DecayClock: tt.clock})
			if db.DecayClock() != tt.clock {
				t.Fatalf("clock = %s", db.DecayClock())
			}
			m, other := e.memoryOf(db, "a"), e.memoryOf(db, "b")
			target := store(t, m, "the memory that should not fade")
			// A month in which agent a is idle (agent b is busy: its
			// activity does not count for a).
			for range 30 {
				e.clock.Advance(24 * time.Hour)
				store(t, other, "b keeps working "+e.clock.Now().String())
			}
			// Then ten hours in which agent a works, without touching the
			// target.
			for range 10 {
				e.clock.Advance(time.Hour)
				if _, err := m.SetBlock(ctx, "scratch", e.clock.Now().String()); err != nil {
					t.Fatal(err)
				}
			}
			res, err := m.Recall(ctx, hippo.RecallInput{Query: "the memory that should not fade", Limit: 1})
			if err != nil || len(res) != 1 || res[0].Chunk.ID != target.ID {
				t.Fatalf("recall = %+v, %v", res, err)
			}
			if got := res[0].Strength; math.Abs(got-tt.want) > 1e-6 {
				t.Errorf("strength = %.6f, want %.6f", got, tt.want)
			}
			// The choice is recorded: a second opener follows it.
			if db2 := b.Open(t, name); db2.DecayClock() != tt.clock {
				t.Errorf("second opener clock = %s, want %s", db2.DecayClock(), tt.clock)
			}
		})
	}
	_, err := b.OpenWith(t, b.New(t), Options{DecayClock: "lunar"})
	mustCode(t, err, hippo.EINVALID)
}

// testLookingRecordsNoActivity: under the active decay clock, reads
// through a memory bound for looking (MemoryOptions.Look: the web UI's
// pages) record no hour of activity, so looking ages nothing; the same
// reads through a memory bound without it do.
func testLookingRecordsNoActivity(t *testing.T, b Backend) {
	ctx := context.Background()
	e := newEnv(t, b)
	db := e.open(b.New(t), Options{DecayClock: "active"})
	m := e.memoryOf(db, "agent-a")
	look := e.memoryOf(db, "agent-a", func(o *hippo.MemoryOptions) { o.Look = true })
	c := store(t, m, "The deploy key is in the team vault")
	hours := func() float64 {
		t.Helper()
		clk, err := db.DecayClockAt(ctx, "agent-a", e.clock.Now())
		if err != nil {
			t.Fatal(err)
		}
		return clk(c.LastAccessedAt.UnixMilli())
	}
	e.clock.Advance(5 * time.Hour)
	before := hours()
	if _, err := look.Recall(ctx, hippo.RecallInput{Query: "deploy key", DryRun: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := look.FactHistory(ctx, "deploy key", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := look.Forget(ctx, hippo.ForgetInput{Description: "deploy key", DryRun: true}); err != nil {
		t.Fatal(err)
	}
	if after := hours(); after != before {
		t.Errorf("active hours %v after looking, want %v as before", after, before)
	}
	if _, err := m.FactHistory(ctx, "deploy key", ""); err != nil {
		t.Fatal(err)
	}
	if after := hours(); !(after > before) {
		t.Errorf("active hours %v after a read that is not a look, want more than %v", after, before)
	}
}

// testActiveClockAcrossHandles records activity through one handle
// under the active decay clock: the other handle's next recall counts it.
func testActiveClockAcrossHandles(t *testing.T, b Backend) {
	ctx := context.Background()
	name := b.New(t)
	var mu sync.Mutex
	hour := time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC)
	now := func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		return hour
	}
	a := openWith(t, b, name, Options{DecayClock: "active", Now: now})
	other := openWith(t, b, name, Options{Now: now})
	if other.DecayClock() != "active" {
		t.Fatalf("second handle's clock %q, want the recorded %q", other.DecayClock(), "active")
	}
	if _, err := memory(t, a, "alice", "", nil).StoreMemory(ctx, hippo.StoreInput{Content: "Standup is at ten"}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	hour = hour.Add(5 * time.Hour) // idle hours do not count
	mu.Unlock()
	res, err := memory(t, other, "alice", "", nil).Recall(ctx, hippo.RecallInput{Query: "standup", MinRelevance: noFloor()})
	if err != nil || len(res) != 1 {
		t.Fatalf("recall: %v %v", res, err)
	}
	clock, err := a.DecayClockAt(ctx, "alice", now())
	if err != nil {
		t.Fatal(err)
	}
	if got := clock(now().Add(-5 * time.Hour).UnixMilli()); got != 1 {
		t.Errorf("active hours since the store: %v, want 1 (the recall's hour)", got)
	}
}
