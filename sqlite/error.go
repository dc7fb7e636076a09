package sqlite

import (
	"errors"

	sqlitedrv "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// isUniqueViolation reports whether err is the driver's report of a
// UNIQUE or PRIMARY KEY constraint failing, by its extended result code:
// the store translates it into hippo.ECONFLICT at its boundary, and no
// caller reads the message's text.
func isUniqueViolation(err error) bool {
	var e *sqlitedrv.Error
	if !errors.As(err, &e) {
		return false
	}
	switch e.Code() {
	case sqlite3.SQLITE_CONSTRAINT_UNIQUE, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY:
		return true
	}
	return false
}

// isBusy reports whether err is SQLITE_BUSY (any extended code): another
// connection holds a lock that the busy handler could not wait out.
func isBusy(err error) bool {
	var e *sqlitedrv.Error
	return errors.As(err, &e) && e.Code()&0xff == sqlite3.SQLITE_BUSY
}
