package sqlite

// The statement journal: SQLite copies each page a statement changes
// that existed before it (in a bulk insert, the last leaf and its parents
// of the table and of each index) to a journal of the statement, so that
// a failed statement can be undone alone. Every multi-row INSERT of
// convo's takes one (SQLite opens it for any statement that writes
// several rows and gives a rowid, as a record's INSERT does), and past 64
// KiB, 8 of the 8 KiB pages, SQLite spills it to a temporary file: two
// writes per page, a tenth of a bulk append's CPU. Held in memory up to
// 4 MiB, it is never written for convo's inserts; a statement that
// changes more (a large UPDATE) still spills past that.

import (
	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"
)

// stmtJournalSpill is how large a statement journal grows in memory.
const stmtJournalSpill = 4 << 20

// stmtJournalSet says SQLite took it.
var stmtJournalSet bool

// init sets it before the process opens any connection: SQLite takes its
// configuration only then (sqlite3_config refuses it after), and no test
// or command opens one before the packages' inits are done.
func init() {
	tls := libc.NewTLS()
	defer tls.Close()
	va := libc.Xmalloc(tls, 8)
	if va == 0 {
		return // out of memory: SQLite's own 64 KiB then
	}
	defer libc.Xfree(tls, va)
	// Not SQLITE_OK only when SQLite is initialized already (another
	// package opened a connection in its init): the default stays.
	rc := sqlite3.Xsqlite3_config(tls, sqlite3.SQLITE_CONFIG_STMTJRNL_SPILL, libc.VaList(va, int32(stmtJournalSpill)))
	stmtJournalSet = rc == sqlite3.SQLITE_OK
}
