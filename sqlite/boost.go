package sqlite

import (
	"database/sql/driver"
	"fmt"

	"github.com/hippo-mem/hippo"
	sqlitedrv "modernc.org/sqlite"
)

// boostFunc is the SQL function a recall's boost runs in its UPDATE:
// hippo_boost(running_intensity, boost) is hippo.Boosted, so the cap lives
// in one place and the boost still costs one statement.
const boostFunc = "hippo_boost"

// decayRateFunc is the SQL form of hippo.Config.DecayRate, so that the
// strengths SQL computes (browsing, ChunkStrengths) follow the one decay
// function under either model: hippo_decay_rate(model, λ, resistance
// factor, running_intensity, access_count).
const decayRateFunc = "hippo_decay_rate"

func init() {
	sqlitedrv.MustRegisterDeterministicScalarFunction(decayRateFunc, 5,
		func(_ *sqlitedrv.FunctionContext, args []driver.Value) (driver.Value, error) {
			model, ok := args[0].(string)
			if !ok {
				return nil, fmt.Errorf("%s: argument 1 is %T, not a model name", decayRateFunc, args[0])
			}
			var v [4]float64
			for i, a := range args[1:] {
				switch x := a.(type) {
				case float64:
					v[i] = x
				case int64:
					v[i] = float64(x)
				default:
					return nil, fmt.Errorf("%s: argument %d is %T, not a number", decayRateFunc, i+2, a)
				}
			}
			cfg := hippo.Config{Decay: hippo.DecayModel(model), Lambda: v[0], ResistanceFactor: v[1]}
			return cfg.DecayRate(v[2], int(v[3])), nil
		})
	sqlitedrv.MustRegisterDeterministicScalarFunction(boostFunc, 2,
		func(_ *sqlitedrv.FunctionContext, args []driver.Value) (driver.Value, error) {
			var v [2]float64
			for i, a := range args {
				switch x := a.(type) {
				case float64:
					v[i] = x
				case int64:
					v[i] = float64(x)
				default:
					return nil, fmt.Errorf("%s: argument %d is %T, not a number", boostFunc, i+1, a)
				}
			}
			return hippo.Boosted(v[0], v[1]), nil
		})
}
