package sqlite

import (
	"database/sql/driver"
	"fmt"
	"sync"
	"unsafe"

	"github.com/convo-cli/convo/pkg/store/sqlstore"
	"modernc.org/sqlite"
)

// A fork inside the store is one INSERT ... SELECT (sqlstore/forkset.go):
// these functions rewrite each record's body and give its docid there.

// ForksInSQL: the connections carry the fork's functions.
func (dialect) ForksInSQL() bool { return true }

// registerFork registers convo_fork_body(body, id, conversation),
// convo_fork_remap(body, map) and convo_fork_docid(run, n, created). The
// last is not deterministic: it numbers the statement's rows as they come.
var registerFork = sync.OnceValue(func() error {
	if err := sqlite.RegisterDeterministicScalarFunction("convo_fork_body", 3,
		func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
			body, err := textArg("convo_fork_body", "body", args[0])
			if err != nil {
				return nil, err
			}
			id, ok1 := args[1].(string)
			conv, ok2 := args[2].(string)
			if !ok1 || !ok2 {
				return nil, fmt.Errorf("convo_fork_body: id and conversation must be text")
			}
			return sqlstore.ForkBody(body, id, conv)
		}); err != nil {
		return err
	}
	if err := sqlite.RegisterDeterministicScalarFunction("convo_fork_remap", 2,
		func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
			body, err := textArg("convo_fork_remap", "body", args[0])
			if err != nil {
				return nil, err
			}
			var m []byte
			if args[1] != nil {
				if m, err = textArg("convo_fork_remap", "map", args[1]); err != nil {
					return nil, err
				}
			}
			return sqlstore.ForkRemap(body, m)
		}); err != nil {
		return err
	}
	return sqlite.RegisterScalarFunction("convo_fork_docid", 3,
		func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
			var v [3]int64
			for i, a := range args {
				n, ok := a.(int64)
				if !ok {
					return nil, fmt.Errorf("convo_fork_docid: argument %d is %T, not an integer", i+1, a)
				}
				v[i] = n
			}
			return sqlstore.ForkDocID(v[0], v[1], v[2])
		})
})

// textArg is a text argument's bytes, which the caller must not change.
func textArg(fn, name string, v driver.Value) ([]byte, error) {
	switch b := v.(type) {
	case string:
		// Read only, for the call: no copy of every body.
		return unsafe.Slice(unsafe.StringData(b), len(b)), nil
	case []byte:
		return b, nil
	}
	return nil, fmt.Errorf("%s: %s is %T, not text", fn, name, v)
}
