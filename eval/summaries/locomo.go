package main

// Reading LoCoMo's published file into samples.

import (
	"archive/zip"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"

	"github.com/convo-cli/convo/eval/domains"
	"github.com/convo-cli/convo/pkg/transcript"
)

// turn is one LoCoMo message; qa one question with its answer (absent
// for the adversarial items).
type turn struct {
	Speaker, Text string
}

type qa struct {
	Answer any `json:"answer"`
}

// loadLoCoMo reads the conversations and QA items from the zip, in name
// order: speaker A as user, speaker B as assistant, each message "Name:
// text" as the store keeps a named speaker's; every answer a question.
func loadLoCoMo(path string) ([]domains.Conversation, error) {
	z, err := zip.OpenReader(path)
	if err != nil {
		return nil, fmt.Errorf("open dataset: %w (give EVAL_DATA=PATH to make eval)", err)
	}
	defer z.Close()
	var out []domains.Conversation
	for _, f := range z.File {
		if !strings.HasSuffix(f.Name, ".json") {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			return nil, err
		}
		body, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			return nil, err
		}
		var raw map[string]json.RawMessage
		if err := json.Unmarshal(body, &raw); err != nil {
			return nil, fmt.Errorf("%s: %w", f.Name, err)
		}
		var turns []turn
		var qas []qa
		for i := 1; ; i++ {
			sess, ok := raw[fmt.Sprintf("session_%d", i)]
			if !ok {
				break
			}
			var ts []turn
			if err := json.Unmarshal(sess, &ts); err != nil {
				return nil, fmt.Errorf("%s session %d: %w", f.Name, i, err)
			}
			turns = append(turns, ts...)
		}
		if err := json.Unmarshal(raw["qa"], &qas); err != nil {
			return nil, fmt.Errorf("%s qa: %w", f.Name, err)
		}
		if len(turns) == 0 {
			continue
		}
		c := domains.Conversation{Name: "locomo-" + strings.TrimSuffix(filepath.Base(f.Name), ".json")}
		for _, t := range turns {
			role := transcript.RoleAssistant
			if t.Speaker == turns[0].Speaker {
				role = transcript.RoleUser
			}
			c.Messages = append(c.Messages, transcript.Message{Role: role, Contents: []string{t.Speaker + ": " + t.Text}})
		}
		for _, q := range qas {
			if q.Answer != nil { // adversarial items carry no answer
				c.Questions = append(c.Questions, domains.Question{Answer: fmt.Sprint(q.Answer), Kind: "qa", Turn: -1})
			}
		}
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}
