package export

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// tableName is what DynamoDB accepts as a table name.
var tableName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_.-]{3,255}$`) })

// ParseTo reads a --to destination other than otlp+http:// (which the
// OTLP exporter reads): file://PATH or dynamodb://TABLE; "" is stdout.
// The error names --to (cmd makes it a usage error).
func ParseTo(to string) (file, dynamoTable string, err error) {
	if path, ok := strings.CutPrefix(to, "file://"); ok {
		if path == "" {
			return "", "", fmt.Errorf("--to %q: want file://PATH", to)
		}
		return path, "", nil
	}
	if to == "" {
		return "", "", nil
	}
	if table, ok := strings.CutPrefix(to, "dynamodb://"); ok && tableName().MatchString(table) {
		return "", table, nil
	}
	return "", "", fmt.Errorf("--to %q: want file://PATH, dynamodb://TABLE (TABLE of 3 to 255 letters, digits, '_', '-' or '.') or otlp+http://HOST:PORT", to)
}
