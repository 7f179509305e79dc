package importer

// ChatGPT's data export: conversations.json, each conversation a tree
// (mapping: node id -> {message, parent, children}) read from the root to
// current_node; with --branches, each other leaf's path too.

import (
	"encoding/json"
	"strings"

	"github.com/convo-cli/convo/pkg/transcript"
)

type chatGPT struct{}

func (chatGPT) Name() string        { return "chatgpt" }
func (chatGPT) Growing() bool       { return false }
func (chatGPT) Match(p string) bool { return matchExport(p) }

type gptConversation struct {
	ID               string             `json:"id"`
	ConversationID   string             `json:"conversation_id"`
	Title            string             `json:"title"`
	Mapping          map[string]gptNode `json:"mapping"`
	CurrentNode      string             `json:"current_node"`
	DefaultModelSlug string             `json:"default_model_slug"`
}

type gptNode struct {
	ID       string      `json:"id"`
	Message  *gptMessage `json:"message"`
	Parent   string      `json:"parent"`
	Children []string    `json:"children"`
}

type gptMessage struct {
	ID     string `json:"id"`
	Author struct {
		Role string `json:"role"`
		Name string `json:"name"`
	} `json:"author"`
	CreateTime float64 `json:"create_time"`
	Content    struct {
		ContentType string            `json:"content_type"`
		Parts       []json.RawMessage `json:"parts"`
		Text        string            `json:"text"`
		Language    string            `json:"language"`
	} `json:"content"`
	Recipient string `json:"recipient"`
	Metadata  struct {
		ModelSlug              string          `json:"model_slug"`
		IsUserSystemMessage    bool            `json:"is_user_system_message"`
		IsVisuallyHidden       bool            `json:"is_visually_hidden_from_conversation"`
		UserContextMessageData json.RawMessage `json:"user_context_message_data"`
		FinishDetails          json.RawMessage `json:"finish_details"`
	} `json:"metadata"`
}

func (chatGPT) Decode(src *Source, emit func(*Session) error) error {
	return eachConversation(src, func(raw json.RawMessage) error {
		var c gptConversation
		if err := json.Unmarshal(raw, &c); err != nil {
			return inputErr(0, "conversation", "%v", err)
		}
		if c.ID == "" {
			c.ID = c.ConversationID
		}
		s := &Session{ID: c.ID, Meta: Meta{Title: c.Title, Model: c.DefaultModelSlug}}
		leaf := c.CurrentNode
		if _, ok := c.Mapping[leaf]; !ok {
			leaf = gptLatestLeaf(&c)
		}
		active := gptPath(&c, leaf)
		s.Walk = fixedWalk(func() ([]Entry, error) { return gptEntries(src, &c, active), nil })
		if src.Branches {
			on := map[string]bool{}
			for _, id := range active {
				on[id] = true
			}
			for id, n := range c.Mapping {
				if len(n.Children) > 0 || id == leaf || n.Message == nil {
					continue
				}
				p := gptPath(&c, id)
				for _, k := range p {
					if !on[k] {
						s.Branches = append(s.Branches, Branch{Key: k, Walk: fixedWalk(func() ([]Entry, error) { return gptEntries(src, &c, p), nil })})
						break
					}
				}
			}
		}
		return emit(s)
	})
}

// gptLatestLeaf is the leaf made last, for a conversation without current_node.
func gptLatestLeaf(c *gptConversation) string {
	best, t := "", -1.0
	for id, n := range c.Mapping {
		if len(n.Children) == 0 && n.Message != nil && (n.Message.CreateTime > t || n.Message.CreateTime == t && id > best) {
			best, t = id, n.Message.CreateTime
		}
	}
	return best
}

// gptPath is the node ids from the root to leaf.
func gptPath(c *gptConversation, leaf string) []string {
	var p []string
	for id := leaf; id != "" && len(p) <= len(c.Mapping); id = c.Mapping[id].Parent {
		if _, ok := c.Mapping[id]; !ok {
			break
		}
		p = append(p, id)
	}
	for a, b := 0, len(p)-1; a < b; a, b = a+1, b-1 {
		p[a], p[b] = p[b], p[a]
	}
	return p
}

// gptText is a message's text: its string parts, other parts noted.
func gptText(src *Source, m *gptMessage) string {
	var out []string
	if m.Content.Text != "" {
		out = append(out, m.Content.Text)
	}
	for _, p := range m.Content.Parts {
		var s string
		if json.Unmarshal(p, &s) == nil {
			if s != "" {
				out = append(out, s)
			}
			continue
		}
		var o struct {
			ContentType string `json:"content_type"`
		}
		_ = json.Unmarshal(p, &o)
		if o.ContentType == "" {
			o.ContentType = "part of no content_type" // not an empty name
		}
		src.Note(o.ContentType)
	}
	return strings.Join(out, "\n\n")
}

func gptEntries(src *Source, c *gptConversation, path []string) []Entry {
	var out []Entry
	calls := map[string]string{} // tool name -> the id of its latest call
	for _, id := range path {
		m := c.Mapping[id].Message
		e := Entry{ID: id}
		if m == nil {
			out = append(out, e)
			continue
		}
		e.Time = epochTime(m.CreateTime)
		text := gptText(src, m)
		ct := m.Content.ContentType
		switch role := m.Author.Role; {
		case role == "system":
			if m.Metadata.IsUserSystemMessage && len(m.Metadata.UserContextMessageData) > 0 {
				text = strings.TrimSpace(text + "\n" + userContext(m.Metadata.UserContextMessageData))
			}
			if strings.TrimSpace(text) != "" && !m.Metadata.IsVisuallyHidden || m.Metadata.IsUserSystemMessage {
				if text != "" {
					e.Records = []transcript.Record{{Message: transcript.Message{Role: transcript.RoleSystem, Contents: []string{text}}}}
				}
			}
		case ct == "thoughts" || ct == "reasoning_recap":
			src.Note(ct)
		case role == "user":
			if ct == "user_editable_context" {
				src.Note(ct)
				break
			}
			e.Records = []transcript.Record{{Message: transcript.Message{Role: transcript.RoleUser, Contents: []string{text}}}}
		case role == "assistant" && m.Recipient != "" && m.Recipient != "all":
			calls[m.Recipient] = m.ID
			r := transcript.Record{Message: transcript.Message{Role: transcript.RoleAssistant, Contents: []string{},
				ToolCalls: []transcript.ToolCall{{ID: m.ID, Name: m.Recipient, Arguments: argumentsText(text)}}}}
			gptAux(&r, m)
			e.Records = []transcript.Record{r}
		case role == "assistant":
			if text == "" {
				break
			}
			r := transcript.Record{Message: transcript.Message{Role: transcript.RoleAssistant, Contents: []string{text}}}
			gptAux(&r, m)
			e.Records = []transcript.Record{r}
		case role == "tool":
			call := calls[m.Author.Name]
			if call == "" {
				// answers a call the export does not hold (a server-side tool)
				call = "none:" + m.Author.Name
			}
			delete(calls, m.Author.Name)
			if text == "" && ct != "text" {
				raw, _ := json.Marshal(m.Content)
				text = string(raw)
			}
			e.Records = []transcript.Record{{Message: transcript.Message{Role: transcript.RoleTool, ToolCallID: call,
				Name: m.Author.Name, Contents: []string{text}}}}
		default:
			src.Note("author " + role)
		}
		out = append(out, e)
	}
	return out
}

func gptAux(r *transcript.Record, m *gptMessage) {
	r.Metadata.Aux = map[string]json.RawMessage{}
	if m.Metadata.ModelSlug != "" {
		r.Metadata.Aux["model"] = auxJSON(m.Metadata.ModelSlug)
	}
	if len(m.Metadata.FinishDetails) > 0 && string(m.Metadata.FinishDetails) != "null" {
		r.Metadata.Aux["finish_reason"] = compactRaw(m.Metadata.FinishDetails)
	}
}

// userContext is custom instructions' text: about_user_message, about_model_message.
func userContext(raw json.RawMessage) string {
	var u map[string]string
	if json.Unmarshal(raw, &u) != nil {
		return ""
	}
	var out []string
	for _, k := range []string{"about_user_message", "about_model_message"} {
		if u[k] != "" {
			out = append(out, u[k])
		}
	}
	return strings.Join(out, "\n")
}
