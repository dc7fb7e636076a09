package sqlite

import "context"

// FillDisk makes the database as full as a full disk would: its write
// connection may grow the file by no page more (max_page_count), so every
// write that needs one fails with SQLITE_FULL.
func (db *DB) FillDisk(ctx context.Context) error {
	var pages int64
	if err := db.write.QueryRowContext(ctx, `PRAGMA page_count`).Scan(&pages); err != nil {
		return err
	}
	_, err := db.write.ExecContext(ctx, `PRAGMA max_page_count = `+itoa(pages))
	return err
}

func itoa(n int64) string {
	b := []byte{}
	for {
		b = append([]byte{byte('0' + n%10)}, b...)
		if n /= 10; n == 0 {
			return string(b)
		}
	}
}
