package cmd

import (
	"os"
	"strings"
	"time"

	"github.com/convo-cli/convo/internal/exitcode"
	"github.com/convo-cli/convo/pkg/llm"
)

// parseRate reads --rate N/PERIOD (llm.ParseRate): the interval between
// two requests, 0 for none; a bad value is a usage error.
func parseRate(v string) (time.Duration, error) {
	d, err := llm.ParseRate(v)
	if err != nil {
		return 0, exitcode.Usagef("--rate %v", err)
	}
	return d, nil
}

// textOrFile reads a TEXT|@FILE flag value.
func textOrFile(flag, v string) (string, error) {
	if name, ok := strings.CutPrefix(v, "@"); ok {
		b, err := os.ReadFile(name)
		if err != nil {
			return "", exitcode.Usagef("%s: %v", flag, err)
		}
		return string(b), nil
	}
	return v, nil
}
