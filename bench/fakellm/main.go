// Command fakellm is an OpenAI-compatible Chat Completions server on
// loopback that answers every request after a fixed delay: the yardstick
// for `summarize --all` throughput. It prints its base URL, then serves
// until killed or until -lifetime passes.
package main

import (
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"sync/atomic"
	"time"
)

func main() {
	delay := flag.Duration("delay", 50*time.Millisecond, "time to answer")
	lifetime := flag.Duration("lifetime", 10*time.Minute, "exit after this long")
	flag.Parse()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("http://%s/v1\n", ln.Addr())
	os.Stdout.Sync()
	var n atomic.Int64
	go func() {
		time.Sleep(*lifetime)
		os.Exit(0)
	}()
	log.Fatal(http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(*delay)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"chatcmpl-%d","object":"chat.completion","model":"fake","choices":[{"index":0,"message":{"role":"assistant","content":"- The user and the assistant planned a trip."},"finish_reason":"stop"}],"usage":{"prompt_tokens":100,"completion_tokens":10,"total_tokens":110}}`, n.Add(1))
	})))
}
