package llm

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/convo-cli/convo/pkg/transcript"
)

// Record hides the keys r holds in the text of rec before it is stored or
// printed: its contents, tool calls (names and arguments) and aux values,
// whatever wrote them (a person, a provider's answer, an import). Provider
// data is not text: it goes back to its provider byte for byte, so a key
// in it is refused (a *transcript.InputError naming the item), never
// rewritten. rec is left unchanged when the error is returned.
func (r Redactor) Record(rec *transcript.Record) error {
	if len(r.keys) == 0 {
		return nil
	}
	for i, p := range rec.Message.ProviderData {
		if !bytes.Equal(r.Bytes(p.Item), p.Item) {
			return &transcript.InputError{
				Field: fmt.Sprintf("message.provider_data[%d]", i),
				Err: fmt.Errorf("holds a provider key convo holds (or %d characters of one); provider data goes back to %s unchanged, so the record is refused",
					minFragment, p.Provider),
			}
		}
	}
	for i, c := range rec.Message.Contents {
		rec.Message.Contents[i] = r.String(c)
	}
	for i := range rec.Message.ToolCalls {
		tc := &rec.Message.ToolCalls[i]
		tc.Name = r.String(tc.Name)
		tc.Arguments = r.String(tc.Arguments)
	}
	for k, v := range rec.Metadata.Aux {
		if red := r.Bytes(v); !bytes.Equal(red, v) {
			rec.Metadata.Aux[k] = json.RawMessage(red)
		}
	}
	return nil
}
