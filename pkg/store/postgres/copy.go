package postgres

// New records in bulk through COPY FROM (sqlstore.RecordCopier): append,
// copy's load and a fork record by record send their batches here instead
// of 1,024-row INSERTs, which the server parsed and planned each time.

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/convo-cli/convo/pkg/store/sqlstore"
)

// copyBatch records a COPY: large enough that its two round trips (the
// docids' sequence values, then the rows) cost nothing per record, small
// enough that a batch of large records stays a few MiB.
const copyBatch = 4096

// CopyBatch: see copyBatch.
func (*dialect) CopyBatch() int { return copyBatch }

const copyRecords = `COPY records (conversation, id, pos, sub, role, created, seq, body, docid, terms) FROM STDIN`

// CopyRecords writes rows in one COPY in the text format, inside the
// transaction open on c. Each row's docid is its slot plus a value of the
// records_docid sequence, as searchIndex's docid value gives an INSERT's,
// the values taken in the rows' order.
func (*dialect) CopyRecords(ctx context.Context, c *sql.Conn, conv string, rows []sqlstore.CopyRow) error {
	if len(rows) == 0 {
		return nil
	}
	return c.Raw(func(dc any) error {
		sc, ok := dc.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("copy records: the connection is a %T, not pgx's", dc)
		}
		pc := sc.Conn()
		seqs, err := docidValues(ctx, pc, len(rows))
		if err != nil {
			return err
		}
		b := copyText(nil, conv, rows, seqs)
		if _, err := pc.PgConn().CopyFrom(ctx, bytes.NewReader(b), copyRecords); err != nil {
			return fmt.Errorf("copy records: %w", err)
		}
		return nil
	})
}

// docidValues takes n values of the records_docid sequence.
func docidValues(ctx context.Context, pc *pgx.Conn, n int) ([]int64, error) {
	rows, err := pc.Query(ctx, `SELECT nextval('records_docid') FROM generate_series(1, $1::int)`, n)
	if err != nil {
		return nil, fmt.Errorf("copy records: docids: %w", err)
	}
	seqs, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, fmt.Errorf("copy records: docids: %w", err)
	}
	if len(seqs) != n {
		return nil, fmt.Errorf("copy records: %d docids for %d records", len(seqs), n)
	}
	return seqs, nil
}

// docidSpread is the modulus of searchIndex's docid value.
const docidSpread = 1 << 20

// copyText appends rows to b as COPY's text format: tab-separated, one
// line each.
func copyText(b []byte, conv string, rows []sqlstore.CopyRow, seqs []int64) []byte {
	n := 0
	for _, r := range rows {
		n += len(conv) + len(r.ID) + len(r.Role) + len(r.Body) + len(r.Terms) + 100
	}
	if b == nil {
		b = make([]byte, 0, n+n/16)
	}
	for i, r := range rows {
		b = appendCopyField(b, conv)
		b = append(b, '\t')
		b = appendCopyField(b, r.ID)
		b = append(b, '\t')
		b = strconv.AppendInt(b, r.Pos, 10)
		b = append(b, '\t')
		b = strconv.AppendInt(b, r.Sub, 10)
		b = append(b, '\t')
		b = appendCopyField(b, r.Role)
		b = append(b, '\t')
		b = strconv.AppendInt(b, r.Created, 10)
		b = append(b, '\t')
		b = strconv.AppendInt(b, r.Seq, 10)
		b = append(b, '\t')
		b = appendCopyField(b, r.Body)
		b = append(b, '\t')
		b = strconv.AppendInt(b, r.Slot+seqs[i]%docidSpread, 10)
		b = append(b, '\t')
		b = appendCopyField(b, r.Terms)
		b = append(b, '\n')
	}
	return b
}

// appendCopyField appends s escaped for COPY's text format: the backslash
// and the characters that end a field or a line.
func appendCopyField(b []byte, s string) []byte {
	from := 0
	for i := 0; i < len(s); i++ {
		var esc byte
		switch s[i] {
		case '\\':
			esc = '\\'
		case '\t':
			esc = 't'
		case '\n':
			esc = 'n'
		case '\r':
			esc = 'r'
		default:
			continue
		}
		b = append(b, s[from:i]...)
		b = append(b, '\\', esc)
		from = i + 1
	}
	return append(b, s[from:]...)
}
