package providertest

// The providers' batch APIs, from the request file to the result file:
//   OpenAI Batch (https://platform.openai.com/docs/guides/batch): request
//   lines {"custom_id","method","url","body"}; result lines {"id",
//   "custom_id","response":{"status_code","request_id","body"},"error"},
//   an expired request with "response": null and "error": {"code":
//   "batch_expired","message"}.
//   Anthropic Message Batches
//   (https://docs.anthropic.com/en/docs/build-with-claude/batch-processing):
//   requests {"custom_id","params"}; result lines {"custom_id","result":
//   {"type":"succeeded","message"}}, {"type":"errored","error"} or
//   {"type":"expired"}.
// Neither promises the results in the order of the requests: the fake
// writes them in reverse.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// BatchReply is the fate of one batch request: answered (Answer), errored
// (Error, with Status 400 unless set), or Expired.
type BatchReply struct {
	Answer  *Answer
	Error   string
	Status  int
	Expired bool
}

// customID is what both APIs accept (Anthropic's documented limit; OpenAI
// takes it too).
var customID = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// BatchResults answers a batch request file as the provider's result file
// would: reply chooses the fate of the i-th request (from 1). Requests
// are checked as the APIs check them: unique custom_ids of the allowed
// form, a known endpoint, a body the live endpoint would accept.
func BatchResults(requests []byte, reply func(i int, customID string) BatchReply) ([]byte, error) {
	var lines []string
	seen := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(requests))
	sc.Buffer(nil, 64<<20)
	for i := 1; sc.Scan(); i++ {
		var req struct {
			CustomID string         `json:"custom_id"`
			Method   string         `json:"method"`
			URL      string         `json:"url"`
			Body     map[string]any `json:"body"`
			Params   map[string]any `json:"params"`
		}
		if err := json.Unmarshal(sc.Bytes(), &req); err != nil {
			return nil, fmt.Errorf("request line %d: %w", i, err)
		}
		if !customID.MatchString(req.CustomID) || seen[req.CustomID] {
			return nil, fmt.Errorf("request line %d: custom_id %q: want a unique ^[a-zA-Z0-9_-]{1,64}$", i, req.CustomID)
		}
		seen[req.CustomID] = true
		provider, body := "anthropic", req.Params
		if req.Params == nil {
			provider, body = map[string]string{"/v1/chat/completions": "openai", "/v1/responses": "openai-responses"}[req.URL], req.Body
			if provider == "" || req.Method != "POST" {
				return nil, fmt.Errorf("request line %d: %s %s: no such batch endpoint", i, req.Method, req.URL)
			}
		}
		if msg := batchCheck(provider, body); msg != "" {
			return nil, fmt.Errorf("request line %d: %s", i, msg)
		}
		model, _ := body["model"].(string)
		lines = append(lines, batchResult(provider, model, i, req.CustomID, reply(i, req.CustomID)))
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	var out strings.Builder
	for i := len(lines) - 1; i >= 0; i-- {
		out.WriteString(lines[i] + "\n")
	}
	return []byte(out.String()), nil
}

// batchCheck is what the live endpoint checks of a body, and a batch
// refuses streaming.
func batchCheck(provider string, body map[string]any) string {
	if body == nil {
		return "no request body"
	}
	if body["stream"] == true {
		return "stream is not supported in a batch"
	}
	if model, _ := body["model"].(string); model == "" {
		return "model: Field required"
	}
	msgs, _ := body["messages"].([]any)
	if provider == "anthropic" {
		if _, ok := body["max_tokens"].(float64); !ok {
			return "max_tokens: Field required"
		}
	}
	if provider != "openai-responses" && len(msgs) == 0 {
		return "messages: Field required"
	}
	return ""
}

func batchResult(provider, model string, i int, id string, r BatchReply) string {
	status := cmp(r.Status, 400)
	if provider == "anthropic" {
		result := map[string]any{"type": "expired"}
		switch {
		case r.Expired:
		case r.Error != "":
			result = map[string]any{"type": "errored", "error": json.RawMessage(ErrorBody(provider, status, r.Error))}
		default:
			result = map[string]any{"type": "succeeded", "message": json.RawMessage(Body(provider, model, answerOf(r)))}
		}
		return mustJSON(map[string]any{"custom_id": id, "result": result})
	}
	line := map[string]any{"id": fmt.Sprintf("batch_req_%04d", i), "custom_id": id, "response": nil, "error": nil}
	switch {
	case r.Expired:
		line["error"] = map[string]any{"code": "batch_expired", "message": "This request could not be executed before the completion window expired."}
	case r.Error != "":
		line["response"] = map[string]any{"status_code": status, "request_id": fmt.Sprintf("req_%04d", i), "body": json.RawMessage(ErrorBody("openai", status, r.Error))}
	default:
		line["response"] = map[string]any{"status_code": 200, "request_id": fmt.Sprintf("req_%04d", i), "body": json.RawMessage(Body(provider, model, answerOf(r)))}
	}
	return mustJSON(line)
}

func answerOf(r BatchReply) *Answer {
	if r.Answer != nil {
		return r.Answer
	}
	return &Answer{Text: "OK."}
}
