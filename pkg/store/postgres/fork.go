package postgres

// A fork inside the store as set operations (sqlstore.StatementForker):
// one INSERT ... SELECT writes every copy, its body rewritten in SQL, and
// one UPDATE remaps the summaries' summaryIds. A body is canonical JSON
// (transcript.AppendJSON): most are copied as text with the id,
// conversation and aux spliced in (forkPlain); the others are put
// together from the json type's texts of their parts, which are exactly
// as they stand in the body, in AppendJSON's order. Either way the bytes
// are ForkBody's and ForkRemap's (storetest's ForkBodyBytes compares).

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
		SELECT row_number() OVER (ORDER BY pos, sub) AS n, pos, sub, role, created, terms, body
		FROM records WHERE conversation = ?1 AND (pos, sub) <= (?3, ?4)
	), ins AS (
		INSERT INTO records (docid, terms, conversation, id, pos, sub, role, created, seq, body)
		SELECT (least(greatest(s.created, 0), ` + fmt.Sprint(maxSlotMillis) + `) << 20) + nextval('records_docid') % 1048576,
			s.terms, ?2, s.nid, s.pos, s.sub, s.role, s.created, s.n,
			'{"id":"' || s.nid || '","conversation":' || ?5 || CASE WHEN ` + forkPlain("s.body") + `
			THEN substr(s.body, s.mp, length(s.body) - s.mp - 1) || ',"aux":{"` + transcript.AuxForkedFrom + `":' || s.old || '}}}'
			ELSE ` + forkJSON("s") + ` END
		FROM (SELECT src.*, ` + id("n") + ` AS nid, strpos(body, ',"message":') AS mp,
			substr(body, 7, strpos(body, ',"conversation":') - 7) AS old FROM src) s
		ORDER BY s.n
		RETURNING octet_length(body) AS size
	)
	SELECT count(*), coalesce(max(size), 0) FROM ins`
}

// forkPlain is the condition on a body that it holds no provider items
// and no aux, as most do: its message holds no JSON but strings and tool
// calls, so that the first "},"aux":{" would be the metadata's, and its
// copy is its text from ',"message":' with aux added before the last two
// braces. In a JSON string every quote is escaped, so that no string holds
// ',"' and no id or conversation hides ',"message":' or ',"conversation":'.
func forkPlain(body string) string {
	return `strpos(` + body + `, ',"provider_data":') = 0 AND strpos(` + body + `, '},"aux":{') = 0`
}

// forkJSON is the copy of any other body (in s.body; s.mp where its
// message starts, s.old its id's JSON text), put together from the json
// type's texts of its metadata.
func forkJSON(s string) string {
	return `(SELECT substr(` + s + `.body, ` + s + `.mp, length(` + s + `.body) - length(md::text) - ` + s + `.mp)
			|| '{' || coalesce('"attribute":' || (md -> 'attribute')::text || ',', '')
			|| coalesce('"summaryIds":' || (md -> 'summaryIds')::text || ',', '')
			|| '"timing":' || (md -> 'timing')::text
			|| ',"aux":{' || (SELECT string_agg(kv, ',' ORDER BY k COLLATE "C") FROM (
				SELECT a.key AS k, ` + jsonString("a.key") + ` || ':' || a.value::text AS kv
				FROM json_each(md -> 'aux') a WHERE a.key <> '` + transcript.AuxForkedFrom + `'
				UNION ALL SELECT '` + transcript.AuxForkedFrom + `', '"` + transcript.AuxForkedFrom + `":' || ` + s + `.old) x)
			|| '}}}'
		FROM (SELECT CAST(` + s + `.body AS json) -> 'metadata' AS md) m)`
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
