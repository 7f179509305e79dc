// Command fakellm is the shared fake provider (internal/providertest) on
// loopback, answering every request after a fixed delay: the yardstick for
// `summarize --all` throughput. It prints the OpenAI-compatible base URL
// (the other providers' endpoints answer on the same server), then serves
// until killed or until -lifetime passes.
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/convo-cli/convo/internal/providertest"
)

func main() {
	delay := flag.Duration("delay", 50*time.Millisecond, "time to answer")
	lifetime := flag.Duration("lifetime", 10*time.Minute, "exit after this long")
	flag.Parse()
	s := providertest.Start(providertest.Options{Forget: true, Steps: []providertest.Step{
		{Delay: *delay, Answer: &providertest.Answer{Text: "- The user and the assistant planned a trip."}},
	}})
	fmt.Println(s.BaseURL("openai"))
	os.Stdout.Sync()
	time.Sleep(*lifetime)
	s.Close()
}
