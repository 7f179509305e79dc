package importer

import (
	"github.com/convo-cli/convo/pkg/transcript"
)

// cutMark ends a text cut to fit the record size limit.
const cutMark = " [cut by convo import]"

// cut shortens r's longest texts until it fits the record size limit.
func cut(r *transcript.Record) {
	for range 64 {
		over := transcript.RecordSize(r) - transcript.MaxRecordBytes
		if over <= 0 {
			return
		}
		m := &r.Message
		// The longest text: a content, else the provider data goes.
		best, size := -1, 0
		for i, c := range m.Contents {
			if len(c) > size {
				best, size = i, len(c)
			}
		}
		if best < 0 || size < len(cutMark)+64 {
			if len(m.ProviderData) > 0 {
				m.ProviderData = m.ProviderData[:len(m.ProviderData)-1]
				continue
			}
			for i := range m.ToolCalls {
				m.ToolCalls[i].Arguments = "{}"
			}
			continue
		}
		// Escapes count double or more: cut twice what is over, at a rune start.
		keep := max(size-2*over-len(cutMark), 0)
		c := m.Contents[best]
		for keep > 0 && keep < len(c) && c[keep]&0xC0 == 0x80 {
			keep--
		}
		m.Contents[best] = c[:keep] + cutMark
	}
}
