// SQLite's C API from Debian's libsqlite3-dev (libsqlite3-0 at run time): the one library under podq's store.
#include <sqlite3.h>

// SQLITE_TRANSIENT is a cast of -1 to a function pointer, which Swift cannot import: a bound text or blob is
// copied by SQLite before the call returns.
static inline sqlite3_destructor_type podq_sqlite_transient(void) { return SQLITE_TRANSIENT; }
