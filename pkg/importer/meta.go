package importer

// What a session says of itself late (Claude Code names it with an
// ai-title line after its first turns) goes to the first record's
// aux.import on a later import, by an annotation (exported again, as any).

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/transcript"
)

var errFirst = errors.New("first record read")

// updateMeta sets the title and model the session now has on conv's first
// record, where they are missing or differ.
func (im *Importer) updateMeta(ctx context.Context, conv string, m Meta) error {
	if m.Title == "" && m.Model == "" {
		return nil
	}
	var id string
	var imp map[string]json.RawMessage
	err := im.st.Read(ctx, conv, store.ReadOptions{}, func(row store.Row) error {
		var r transcript.Record
		if err := transcript.DecodeStored(row.Body, &r); err != nil {
			return err
		}
		if raw, ok := r.Metadata.Aux["import"]; ok && !r.IsFake() {
			id = r.ID
			_ = json.Unmarshal(raw, &imp)
		}
		return errFirst
	})
	if err != nil && !errors.Is(err, errFirst) {
		if errors.Is(err, store.ErrNotFound) {
			return nil
		}
		return err
	}
	if id == "" || imp["session"] == nil {
		return nil // not the first record of an import
	}
	changed := false
	for k, v := range map[string]string{"title": m.Title, "model": m.Model} {
		if v != "" && string(imp[k]) != string(quote(v)) {
			imp[k], changed = quote(v), true
		}
	}
	if !changed {
		return nil
	}
	b, err := json.Marshal(imp)
	if err != nil {
		return err
	}
	_, err = im.st.Annotate(ctx, conv, id, &transcript.Annotation{Aux: map[string]json.RawMessage{"import": b}})
	return err
}
