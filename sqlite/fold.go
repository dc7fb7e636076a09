package sqlite

import (
	"database/sql/driver"

	sqlitedrv "modernc.org/sqlite"

	"github.com/hippo-mem/hippo"
)

// foldFunc is the SQL function that folds text for ChunkFilter.Text
// (hippo.Fold): fold(content) contains fold(text).
const foldFunc = "hippo_fold"

func init() {
	sqlitedrv.MustRegisterDeterministicScalarFunction(foldFunc, 1,
		func(_ *sqlitedrv.FunctionContext, args []driver.Value) (driver.Value, error) {
			switch v := args[0].(type) {
			case string:
				return hippo.Fold(v), nil
			case []byte:
				return hippo.Fold(string(v)), nil
			}
			return args[0], nil // NULL stays NULL
		})
}
