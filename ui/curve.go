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

// projectCurve projects c's strength from now on under the wall clock: the
// strength it keeps if nothing recalls it. Under the active clock only
// hours the agent is active count, so the wall-clock curve is the fastest
// it can fade.
func projectCurve(cfg hippo.Config, c *hippo.Chunk, now time.Time) Curve {
	var b strings.Builder
	fades := -1
	for i := 0; i <= curveSteps; i++ {
		d := time.Duration(float64(CurveDays*24*time.Hour) * float64(i) / curveSteps)
		s := c.Strength(cfg, now.Add(d))
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
