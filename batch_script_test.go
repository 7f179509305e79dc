package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/convo-cli/convo/internal/providertest"
)

// batchResultsCmd is the script command "batchresults REQUESTS RESULTS
// [errored=N] [expired=N]": the provider's batch API answering the request
// file REQUESTS (summarize --batch-out's) with the result file RESULTS, in
// reverse order, through the shared fake (internal/providertest). The N-th
// request errors or expires; every other one is answered "Summary N: ...".
func batchResultsCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: batchresults REQUESTS RESULTS [errored=N] [expired=N]")
	}
	fate := map[int]providertest.BatchReply{}
	for _, a := range args[2:] {
		k, v, _ := strings.Cut(a, "=")
		n, err := strconv.Atoi(v)
		if err != nil {
			ts.Fatalf("batchresults: %s: want errored=N or expired=N", a)
		}
		switch k {
		case "errored":
			fate[n] = providertest.BatchReply{Error: "messages: text content blocks must be non-empty"}
		case "expired":
			fate[n] = providertest.BatchReply{Expired: true}
		default:
			ts.Fatalf("batchresults: %s: want errored=N or expired=N", a)
		}
	}
	out, err := providertest.BatchResults([]byte(ts.ReadFile(args[0])), func(i int, _ string) providertest.BatchReply {
		if r, ok := fate[i]; ok {
			return r
		}
		return providertest.BatchReply{Answer: &providertest.Answer{Text: fmt.Sprintf("Summary %d: the user and the assistant planned a trip.", i)}}
	})
	ts.Check(err)
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), out, 0o644))
}
