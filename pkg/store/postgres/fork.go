package postgres

// A fork inside the store as set operations (sqlstore.StatementForker):
// one INSERT ... SELECT writes every copy, its body rewritten by
// PostgreSQL's json functions, and one UPDATE remaps the summaries'
// summaryIds. A body is canonical JSON (transcript.AppendJSON), and the
// json type's operators give a value's text exactly as it stands in the
// body: the copy is put together from those texts in AppendJSON's order,
// the same bytes as ForkBody's and ForkRemap's.

import (
	"fmt"
	"strings"

	"github.com/convo-cli/convo/pkg/transcript"
)

// ForksInSQL: a fork is ForkStatement and ForkRemap.
func (*dialect) ForksInSQL() bool { return true }

// ForkStatement copies the records of ?1 up to (?3, ?4) into ?2 (?5: ?2
// as a JSON string), the n-th with the id id(n): its id and conversation
// replaced, forkedFrom set in aux at its sorted place (aux keys sort by
// their bytes, as Go's strings do, hence COLLATE "C"), everything else the
// original's text. The terms are the original's: they are its message's.
// It returns the rows written and the longest body.
func (*dialect) ForkStatement(id func(n string) string) string {
	return `WITH src AS (
		SELECT row_number() OVER (ORDER BY pos, sub) AS n, pos, sub, role, created, terms, body::json AS b
		FROM records WHERE conversation = ?1 AND (pos, sub) <= (?3, ?4)
	), ins AS (
		INSERT INTO records (docid, terms, conversation, id, pos, sub, role, created, seq, body)
		SELECT (least(greatest(s.created, 0), ` + fmt.Sprint(maxSlotMillis) + `) << 20) + nextval('records_docid') % 1048576,
			s.terms, ?2, s.nid, s.pos, s.sub, s.role, s.created, s.n,
			'{"id":"' || s.nid || '","conversation":' || ?5 || ',"message":' || (s.b -> 'message')::text
			|| ',"metadata":{' || coalesce('"attribute":' || (s.md -> 'attribute')::text || ',', '')
			|| coalesce('"summaryIds":' || (s.md -> 'summaryIds')::text || ',', '')
			|| '"timing":' || (s.md -> 'timing')::text
			|| ',"aux":{' || (SELECT string_agg(kv, ',' ORDER BY k COLLATE "C") FROM (
				SELECT a.key AS k, ` + jsonString("a.key") + ` || ':' || a.value::text AS kv
				FROM json_each(s.md -> 'aux') a WHERE a.key <> '` + transcript.AuxForkedFrom + `'
				UNION ALL SELECT '` + transcript.AuxForkedFrom + `', '"` + transcript.AuxForkedFrom + `":' || (s.b -> 'id')::text) x)
			|| '}}}'
		FROM (SELECT src.*, ` + id("n") + ` AS nid, b -> 'metadata' AS md FROM src) s
		ORDER BY s.n
		RETURNING octet_length(body) AS size
	)
	SELECT count(*), coalesce(max(size), 0) FROM ins`
}

// ForkRemap maps the summaryIds of ?2's summaries copied from ?1: an id
// of a record of ?1 whose place in ?2 holds its copy becomes the copy's,
// any other stays.
func (*dialect) ForkRemap() string {
	return `UPDATE records r SET body = '{"id":' || (b -> 'id')::text || ',"conversation":' || (b -> 'conversation')::text
			|| ',"message":' || (b -> 'message')::text
			|| ',"metadata":{' || coalesce('"attribute":' || (md -> 'attribute')::text || ',', '')
			|| '"summaryIds":[' || (SELECT string_agg(coalesce('"' || d.id || '"', e.v::text), ',' ORDER BY e.o)
				FROM json_array_elements(md -> 'summaryIds') WITH ORDINALITY e(v, o)
				LEFT JOIN records s ON s.conversation = ?1 AND s.id = e.v #>> '{}'
				LEFT JOIN records d ON d.conversation = ?2 AND d.pos = s.pos AND d.sub = s.sub)
			|| '],"timing":' || (md -> 'timing')::text || ',"aux":' || (md -> 'aux')::text || '}}'
		FROM (SELECT id, body::json AS b, body::json -> 'metadata' AS md FROM records
			WHERE conversation = ?2 AND role = 'summary') f
		WHERE r.conversation = ?2 AND r.id = f.id AND f.md -> 'summaryIds' IS NOT NULL`
}

// maxSlotMillis is sqlstore.DocSlot's bound on a creation time.
const maxSlotMillis = 1<<42 - 1

// jsonString is the SQL of the text x written as transcript.AppendString
// writes it: most keys hold nothing it escapes, and go in quotes as
// they are.
func jsonString(x string) string {
	special := `'"\` + `' || chr(8232) || chr(8233)`
	var ctl strings.Builder
	for c := 1; c < 0x20; c++ {
		fmt.Fprintf(&ctl, " || chr(%d)", c)
	}
	esc := fmt.Sprintf(`replace(replace(%s, '\', '\\'), '"', '\"')`, x)
	for c := 1; c < 0x20; c++ {
		var to string
		switch c {
		case '\n':
			to = `\n`
		case '\r':
			to = `\r`
		case '\t':
			to = `\t`
		default:
			to = fmt.Sprintf(`\u%04x`, c)
		}
		esc = fmt.Sprintf(`replace(%s, chr(%d), '%s')`, esc, c, to)
	}
	esc = fmt.Sprintf(`replace(replace(%s, chr(8232), '\u2028'), chr(8233), '\u2029')`, esc)
	return fmt.Sprintf(`'"' || CASE WHEN translate(%s, %s%s, '') = %s THEN %s ELSE %s END || '"'`,
		x, special, ctl.String(), x, x, esc)
}
