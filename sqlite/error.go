package sqlite

import (
	"errors"
	"fmt"
	"time"

	"github.com/hippo-mem/hippo"

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

// isFull reports whether err is SQLITE_FULL: no room left on the disk
// (or in the file's quota) for the write.
func isFull(err error) bool {
	var e *sqlitedrv.Error
	return errors.As(err, &e) && e.Code()&0xff == sqlite3.SQLITE_FULL
}

// storageError translates the storage failures a user must act on into
// hippo.EUNAVAILABLE errors that say what happened and what to do, and
// records them for Ping (/health): a full disk. A write that succeeds
// clears the record.
func (db *DB) storageError(err error) error {
	switch {
	case err == nil:
		db.fullAt.Store(0)
		return nil
	case isCorrupt(err):
		return db.markDamaged(err)
	case isFull(err):
		db.fullAt.Store(time.Now().UnixMilli())
		return &hippo.Error{Code: hippo.EUNAVAILABLE, Message: fmt.Sprintf("the disk holding %s is full: nothing was written. "+
			"Free some space and try again; what is stored is intact", db.path)}
	}
	return err
}

// isCorrupt reports whether err is SQLITE_CORRUPT or SQLITE_NOTADB: the
// file's pages are not what SQLite wrote.
func isCorrupt(err error) bool {
	var e *sqlitedrv.Error
	if !errors.As(err, &e) {
		return false
	}
	switch e.Code() & 0xff {
	case sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB:
		return true
	}
	return false
}

// isIOError reports whether err is SQLITE_IOERR (any extended code): the
// operating system failed a read or a write.
func isIOError(err error) bool {
	var e *sqlitedrv.Error
	return errors.As(err, &e) && e.Code()&0xff == sqlite3.SQLITE_IOERR
}

// damaged is the error for a database file SQLite finds damaged: it names
// the file and says what to do.
func damaged(path string, err error) *hippo.Error {
	return &hippo.Error{Code: hippo.EUNAVAILABLE, Message: fmt.Sprintf("%s is damaged (%v): nothing was written. "+
		"Check it with `sqlite3 %s 'PRAGMA integrity_check'`, and restore it from your last export "+
		"(hippo import) or a backup; `hippo export` may still read what the damage spared", path, err, path)}
}

// markDamaged records that the file is damaged: writes are refused and
// Ping reports it from now on.
func (db *DB) markDamaged(err error) error {
	d := damaged(db.path, err)
	db.damage.CompareAndSwap(nil, d)
	return d
}

// StorageError is err as a user should read it when it comes from this
// database: a damaged file or a full disk, named, with what to do
// (EUNAVAILABLE); any other error as it is. The CLI passes the errors
// of its commands through it, reads included.
func (db *DB) StorageError(err error) error {
	if err == nil {
		return nil
	}
	return db.storageError(err)
}
