package format

import "github.com/convo-cli/convo/pkg/transcript"

// AddJSON feeds the next record as its JSON text, e.g. a stored body,
// decoded by transcript.DecodeStored: rendering a long stored conversation
// is mostly decoding, and that decoder skips encoding/json's reflection.
func (r *Renderer) AddJSON(body []byte) error {
	if err := transcript.DecodeStored(body, &r.rec); err != nil {
		return err
	}
	return r.Add(&r.rec)
}
