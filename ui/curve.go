package ui

import (
	"fmt"
	"strings"
	"time"

	"github.com/hippo-mem/hippo"
)

// Curve is a chunk's projected strength over the next CurveDays days, as
// SVG polyline points in a CurveWidth × CurveHeight box (strength 1 at the
// top), with the strength floor's height.
type Curve struct {
	Points string
	FloorY float64
	// FadesIn is the number of days until the strength crosses the floor
	// untouched, or -1 when it stays above it for the whole span.
	FadesIn int
}

const (
	CurveDays   = 90
	CurveWidth  = 120.0
	CurveHeight = 28.0
	curveSteps  = 30
)

// projectCurve projects a chunk's strength from now, strength, on: what
// it keeps if nothing recalls it (hippo.Config.EffectiveStrength). Under
// the active clock only hours the agent is active count: the curve is
// then how it fades if the agent is active every hour, the fastest.
func projectCurve(cfg hippo.Config, c *hippo.Chunk, strength float64) Curve {
	var b strings.Builder
	fades := -1
	for i := 0; i <= curveSteps; i++ {
		d := time.Duration(float64(CurveDays*24*time.Hour) * float64(i) / curveSteps)
		s := strength * hippo.Decay(1, cfg.DecayRate(c.RunningIntensity, c.AccessCount), d.Hours())
		if fades < 0 && s < cfg.StrengthFloor {
			fades = int(d.Hours() / 24)
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%.1f,%.1f", CurveWidth*float64(i)/curveSteps, yOf(s))
	}
	return Curve{Points: b.String(), FloorY: yOf(cfg.StrengthFloor), FadesIn: fades}
}

// yOf maps a strength in [0, 1] to the curve box's y (1 at the top).
func yOf(s float64) float64 {
	s = min(1, max(0, s))
	return 1 + (CurveHeight-2)*(1-s)
}
