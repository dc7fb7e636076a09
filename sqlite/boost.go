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

func init() {
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
