package export

import (
	"strings"
	"testing"
)

func TestParseTo(t *testing.T) {
	for _, tc := range []struct {
		to, file, table, err string
	}{
		{to: ""},
		{to: "file://out.jsonl", file: "out.jsonl"},
		{to: "dynamodb://convo.records-1", table: "convo.records-1"},
		{to: "file://", err: `--to "file://": want file://PATH`},
		{to: "dynamodb://ab", err: "want file://PATH, dynamodb://TABLE"},    // too short
		{to: "dynamodb://a b c", err: "want file://PATH, dynamodb://TABLE"}, // a space
		{to: "s3://bucket", err: "want file://PATH, dynamodb://TABLE"},
	} {
		file, table, err := ParseTo(tc.to)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) || file != "" || table != "" {
				t.Errorf("ParseTo(%q) = %q, %q, %v; want an error with %q", tc.to, file, table, err, tc.err)
			}
			continue
		}
		if err != nil || file != tc.file || table != tc.table {
			t.Errorf("ParseTo(%q) = %q, %q, %v; want %q, %q", tc.to, file, table, err, tc.file, tc.table)
		}
	}
}
