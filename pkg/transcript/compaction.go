package transcript

import "encoding/json"

// A provider compaction (Anthropic's compaction block, OpenAI's compaction
// item) is stored as a summary record: its text the readable summary the
// provider gave, or CompactionMarker when it gave none; its provider data
// the provider's items byte for byte, which render sends that provider in
// place of the records the summary covers. Rule 2 does not apply after it:
// the answer that came with it follows it with no placeholder user record
// (the provider's own history resumes with its item, first).

// CompactionMarker is the text of a compaction summary whose provider gave
// no readable summary (OpenAI's encrypted item, an Anthropic block whose
// content is null): a summary record needs one content string, and this
// one says why there is nothing to read.
const CompactionMarker = "[provider compaction: no readable summary]"

// IsCompaction reports whether r is a summary standing for a provider's
// compaction: a summary record carrying provider data.
func (r *Record) IsCompaction() bool {
	return r.Message.Role == RoleSummary && len(r.Message.ProviderData) > 0
}

// CompactionProvider is the provider whose compaction r is, "" when r is
// none.
func (r *Record) CompactionProvider() string {
	if !r.IsCompaction() {
		return ""
	}
	return r.Message.ProviderData[0].Provider
}

// Readable reports whether a compaction's text is a summary a model can
// read (not CompactionMarker).
func (r *Record) Readable() bool {
	c := r.Message.Contents
	return len(c) > 0 && !(len(c) == 1 && c[0] == CompactionMarker)
}

// Unreadable reports whether r is a compaction with no readable summary
// made by another provider than provider, or one that failed (Failed):
// rendered for provider, the records it covers stand in its place.
func (r *Record) Unreadable(provider string) bool {
	return r.IsCompaction() && !r.Readable() && (r.CompactionProvider() != provider || r.Failed())
}

// Failed reports whether r is a compaction that failed: an Anthropic
// compaction block whose content is null (@anthropic-ai/sdk 1.17
// BetaCompactionBlockParam: "When content is None, the block represents a
// failed compaction. The server treats these as no-ops."). It stands for
// nothing: the records it covers stay the view, for its own provider too,
// as the SDK's own tool runner keeps the conversation as it is.
func (r *Record) Failed() bool {
	if r.CompactionProvider() != "anthropic" || r.Readable() {
		return false
	}
	for _, d := range r.Message.ProviderData {
		var it struct {
			Type    string          `json:"type"`
			Content json.RawMessage `json:"content"`
		}
		if json.Unmarshal(d.Item, &it) == nil && it.Type == "compaction" && string(it.Content) == "null" {
			return true
		}
	}
	return false
}

// CompactionCovers reports whether a provider compaction answering a
// request rendered from the view replaces r, a record of that view (the
// latest summary and the records after it): the provider replaces all it
// was sent, so every record but system prompts (sent apart, never
// summarized) and rule 2's placeholders (never covered, rule 5).
func CompactionCovers(r *Record) bool {
	return r.Message.Role != RoleSystem && !r.IsFake()
}
