package domains

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/convo-cli/convo/pkg/transcript"
)

// sfact is one identifier an issue brings up: its kind, the labels a chat
// may call it by, its generator (value and, for some, an alternative
// spelling the other side may repeat it in), whether the customer says it
// first, and optional sentences of its own ({L} label, {X} value).
type sfact struct {
	kind   string
	labels []string
	gen    func(r *rand.Rand) (string, string)
	user   bool
	says   []string
}

// issue is one problem a chat works through.
type issue struct {
	topic string
	open  []string // the customer raises it
	tell  []string // the customer's side of the troubleshooting
	ask   []string // the agent's side
	facts []sfact
}

var (
	mine     = []string{"My {L} is {X}.", "Our {L} is {X}."}
	userSays = []string{
		"{X} is the {L}.", "The {L} is {X}, in case you need it.", "For your records, the {L} is {X}.",
		"I dug out the {L}: {X}.", "You'll probably want the {L} as well, which is {X}.",
		"{X} is what I have as the {L}.", "Oh, and the {L} is {X} if that helps."}
	agentSays = []string{
		"I can see the {L} is {X}.", "{X} is the {L} I have on file.", "For reference, the {L} is {X}.",
		"Please make a note of the {L}: {X}.", "The system shows {X} as the {L}.",
		"I've checked, and the {L} is {X}.", "Just so you have it, the {L} is {X}."}
	repeatLabeled = []string{
		"Just to confirm, the {L} is still {X}, right?", "Coming back to the {L} {X}: is there any news?",
		"As mentioned earlier, the {L} is {X}.", "I've added a note against {X}, the {L}.",
		"The {L} ({X}) is what I'll quote in the follow-up."}
	repeatBare = []string{
		"Any update on {X}?", "I've escalated {X} internally.", "{X} again, sorry to repeat myself.",
		"I double-checked {X} and it matches.", "Still waiting to hear about {X}.", "Noted, that's {X}."}
)

var (
	cities = []string{"Paris", "Lisbon", "Porto", "Vienna", "Kraków", "Osaka", "Barcelona", "Copenhagen", "Edinburgh", "Athens"}
	hotels = []string{"Hotel Lumen", "The Harbour Inn", "Casa do Rio", "Grand Meridian", "Pension Adler"}
	hello  = []string{"Hi there, I hope you can help me today.", "Hello! I have a few things to sort out, bear with me.",
		"Good morning. I've got several open problems and I'd like to go through them in one chat."}
	welcome = []string{"Hello and welcome to {company} support, my name is {agent}. How can I help you today?",
		"Hi, you're chatting with {agent} from {company}. What can I do for you?",
		"Good morning and thanks for contacting {company}. I'm {agent}, happy to help."}
	bye     = []string{"That's everything for now, thank you so much for your help!", "Thanks, you've been very helpful. Have a good day.", "Great, I think we're done. Thanks for your patience."}
	goodbye = []string{"You're welcome! If anything else comes up, just reply to this chat and it will reopen your case. Have a great day.",
		"Glad I could help. You'll get a transcript of this chat by email. Take care!"}
	next     = []string{"One more thing while I have you: ", "Next problem: ", "Also, separate issue. ", "Different topic now. "}
	userChat = []string{
		"Thanks for looking into this.", "I've been going back and forth on {topic} for a week now, so I'd really appreciate a proper fix this time.",
		"Sorry, I was in a meeting — I'm back now.", "Let me check with my colleague and come back to you.", "That makes sense.",
		"Is there anything else you need from me on {topic}?", "OK, I tried that and nothing changed.",
		"Could you explain what happens next with {topic}?", "Honestly the previous agent told me something different, which is why I'm confused.",
		"We have a board meeting on Friday and I need to report on {topic}, so a timeline would help.", "Fine, I'll wait.",
		"I just checked again and it's the same as before.", "Can you put that in writing in the case notes, please?",
		"Great, that's a relief.", "I'm not very technical, so bear with me.", "Our finance team keeps asking me about {topic}.",
		"Hang on, someone is at the door.", "Right, I'm following so far.", "Is this something that happens to other customers too?",
		"I'd rather not have to call, chat works better for me.", "How long does that usually take?",
		"My colleague says she saw the same thing yesterday.", "Perfect, thank you for explaining it so clearly.",
		"Sorry, the connection here is patchy, I may drop out for a minute.", "Can you send me a summary of {topic} when we're done?"}
	agentChat = []string{
		"Thanks for your patience while I look into {topic}.", "I completely understand how frustrating this is.",
		"Let me check that for you — it may take a minute or two.", "Could you confirm whether this started before or after the weekend?",
		"I've updated the case notes so nobody asks you for this again.", "I'm reading through the history on {topic} now.",
		"That's helpful, thank you.", "I'll stay on the chat while the system updates.",
		"I've asked our second-line team to take a look at {topic}; they usually answer within the hour.",
		"Nothing on our side explains that yet, so let's try one more thing.", "Is there anything else about {topic} I should know?",
		"You should receive an email confirmation shortly.", "I can see why that was confusing; the previous note was incomplete.",
		"Apologies for the delay, our tools are slow this morning.", "Let me bring up your account.",
		"I'm still here, just waiting for the other team to reply.", "That's a good question; let me find out rather than guess.",
		"I've seen this before and it's usually quick to fix.", "Thanks, that rules out the most common cause.",
		"I'll keep this case open until you confirm {topic} is sorted.", "Bear with me while I check one more thing.",
		"I've made a note to call you back if the chat disconnects."}
	// Longer paragraphs: the customer's account of events, the agent's
	// step-by-step instructions.
	stories = []string{
		"To give you the full picture: this started right after we changed suppliers, and since then every week something about {topic} goes wrong. I spent most of yesterday on the phone with three different departments, each of which told me it was someone else's responsibility, and nobody wrote anything down, so I'm starting from scratch again today.",
		"Here's what happened from my side. I first noticed the problem on Monday, reported it through the web form, got an automatic reply, and then nothing. On Wednesday I called and was told {topic} had been resolved, but when I checked in the evening nothing had changed, so I'm a bit sceptical about any promises at this point.",
		"I should mention that our team is spread over three offices and two time zones, so whatever we agree here needs to be clear enough that my colleagues can follow it without calling you. Last time the instructions assumed we all had admin rights, and half of them didn't, which cost us another day on {topic}.",
		"Just so you know, I'm not angry with you personally, but this is the third time in two months I'm writing about {topic}. Our contract renewal is coming up and my manager has asked me to keep a log of every incident, including how long each one took to resolve, so please be as precise as you can about dates and next steps."}
	steps = []string{
		"Here is what I'd suggest for {topic}, in order: first, gather every email and receipt you have about it into one reply to this chat; second, tell me which of them is the most recent, since older messages may describe an earlier state; third, give me a phone number and a time window when you can take a call, in case our specialist team needs to confirm something. With that I can move it to the front of the queue.",
		"I've gone through the history of {topic} and I can see where it went wrong: the first request was closed by an automated rule before anyone looked at it, and the follow-up was filed under a different account. I've merged both into this case, linked them to your account, and set a reminder so that it is reviewed again tomorrow morning even if I'm not on shift.",
		"Let me explain what happens next with {topic}. Our specialist team reviews the case within one business day and may contact you by email for more details. Once they confirm the cause, the fix is applied automatically and you'll receive a confirmation with a summary of what was changed. You don't need to do anything in the meantime, but do reply to that email if anything looks different from what we discussed.",
		"Thanks for bearing with me. I've checked the configuration on our side for {topic} and found two settings that don't match what your contract says. I've corrected both, but they take up to an hour to propagate to every region, so please wait until then before testing again. If anything still looks off after that, reply here and the chat will come straight back to me."}
	opsPolicy = []string{
		"Under our standard policy, refunds are issued to the original payment method within 5 to 10 business days of approval. Bank transfers can take an additional 2 to 3 days depending on your bank, and we are unable to expedite that part of the process. If the refund has not arrived after that window, reply to this thread and we will open a trace with our payments provider.",
		"For security reasons I can only discuss account details with a verified account holder. Verification is done by a one-time code sent to the email address on file; we never ask for your password or full card number in chat, by phone or by email, and any message asking for them did not come from us.",
		"Please note that our service level agreement covers availability of the production environment only. Scheduled maintenance windows are announced at least 72 hours in advance, and service credits are calculated per calendar month based on the measured uptime, as described in section 7 of your agreement.",
		"Returns are accepted within 30 days of delivery for unused items in their original packaging. Items marked as final sale, personalised items and opened software cannot be returned. Once the warehouse has inspected the return, the replacement or refund is processed automatically and you are notified at each step.",
		"Our carrier partners attempt delivery up to three times. After a failed third attempt the parcel is held at the local depot for seven days before being returned to sender. If a parcel is reported lost, the carrier needs up to 48 hours to complete its investigation before we can send a replacement.",
		"Invoices are generated on the first business day of each month and are payable within 30 days. Purchase order numbers must be supplied before the invoice is generated if they need to appear on it; we can reissue an invoice once per billing period if a PO number was missing.",
	}
	travelPolicy = []string{
		"Changes to a flexible fare can be made free of charge up to 24 hours before departure; after that a change fee applies plus any fare difference. Non-refundable fares can still be cancelled for a refund of airport taxes, which usually arrives within 14 days.",
		"Hotel bookings made at a prepaid rate are non-refundable, but most properties agree to move the dates if asked at least 48 hours before check-in. Pay-at-hotel rates can be cancelled free of charge until the evening before arrival.",
		"Delayed baggage is usually delivered within 48 hours of being located. Reasonable essential purchases made in the meantime, such as toiletries and a change of clothes, are reimbursed against receipts; luxury items and purchases made after the bag has been delivered are not covered.",
		"When a train is cancelled you are entitled to a full refund of the unused ticket, or to travel on the next available service at no extra cost. Taxi and hotel costs are covered only when no alternative was offered, up to the limits set out in the conditions of carriage.",
		"Insurance claims must be submitted within 30 days of your return, with the original receipts and a written confirmation from the carrier or hotel. Our partner reviews complete claims within ten business days and pays by bank transfer only."}
)

// Support returns n multi-issue customer support / operations chats,
// deterministic for a seed. Sizes cycle short (60-120 messages, 10-16
// identifiers), medium (150-300, 14-22) and long (400-700, 20-30); every
// fourth chat is a travel booking.
func Support(seed int64, n int) []Conversation {
	out := make([]Conversation, n)
	for i := range out {
		out[i] = supportChat(seed, i)
	}
	return out
}

type said struct {
	ex   int  // exchange index
	user bool // the customer says it
	text string
}

func supportChat(seed int64, i int) Conversation {
	return supportChatFrom(stream(seed, 1, i), stream(seed, 3, i), i, fmt.Sprintf("support-%d-%02d", seed, i))
}

// supportChatFrom is chat i (its size class and pool follow i) drawn from
// r, its facts in words from pr.
func supportChatFrom(r, pr *rand.Rand, i int, name string) Conversation {
	b := &builder{r: r}
	class := i % 3 // short and dense, medium, long
	msgs := []int{between(r, 60, 120), between(r, 150, 300), between(r, 400, 700)}[class]
	ids := []int{between(r, 10, 16), between(r, 14, 22), between(r, 20, 30)}[class]
	exchanges := msgs / 2
	pool, policy, company := opsIssues, opsPolicy, pick(r, []string{"Acme", "Northwind", "Globex", "Fabrikam"})
	if i%4 == 3 {
		pool, policy, company = travelIssues, travelPolicy, "Wayfarer Travel"
	}
	c1 := r.IntN(len(cities))
	c2 := (c1 + 1 + r.IntN(len(cities)-1)) % len(cities)
	names := strings.NewReplacer("{city}", cities[c1], "{city2}", cities[c2], "{hotel}", pick(r, hotels),
		"{company}", company, "{agent}", pick(r, []string{"Maya", "Tom", "Priya", "Jonas", "Aiko"}))

	facts, owner, chosen := chooseIssues(r, pool, ids)

	// Each issue gets a contiguous run of exchanges between the opening and
	// the goodbye; start[k] is its first.
	start := make([]int, len(chosen)+1)
	for k := range chosen {
		start[k] = 1 + k*(exchanges-2)/len(chosen)
	}
	start[len(chosen)] = exchanges - 1

	lines := placeFacts(r, b, facts, owner, start, exchanges)

	prose := supportFacts(pr, b, chosen, start, exchanges)

	topic := "this"
	for e := range exchanges {
		k := 0
		for k+1 < len(chosen) && start[k+1] <= e {
			k++
		}
		var is issue
		if len(chosen) > 0 {
			is = chosen[k]
			topic = is.topic
		}
		var u, a []string
		switch {
		case e == 0:
			u, a = []string{pick(r, hello)}, []string{pick(r, welcome)}
		case e == exchanges-1:
			u, a = []string{pick(r, bye)}, []string{pick(r, goodbye)}
		case len(chosen) > 0 && e == start[k]:
			lead := ""
			if k > 0 {
				lead = pick(r, next)
			}
			u, a = []string{lead + pick(r, is.open)}, []string{pick(r, agentChat)}
		default:
			u, a = chatter(r, 1+class, is.tell, userChat), chatter(r, 1+class, is.ask, agentChat)
		}
		if e > 0 && e < exchanges-1 && r.IntN(12-3*class) == 0 {
			u = append(u, pick(r, stories))
		}
		if e > 0 && e < exchanges-1 && r.IntN(10-3*class) == 0 {
			a = append(a, pick(r, steps))
		}
		var uf, af []string
		for _, s := range lines {
			if s.ex == e && s.user {
				uf = append(uf, s.text)
			} else if s.ex == e {
				af = append(af, s.text)
			}
		}
		rp := strings.NewReplacer("{topic}", topic)
		b.say(transcript.RoleUser, prose.place(e, true, compose(r, names.Replace(rp.Replace(strings.Join(u, " "))), uf, "", e > 0)))
		extra := ""
		if e > 0 && e < exchanges-1 && r.IntN(9-3*class) == 0 {
			extra = pick(r, policy)
		}
		b.say(transcript.RoleAssistant, prose.place(e, false, compose(r, names.Replace(rp.Replace(strings.Join(a, " "))), af, extra, e > 0)))
	}
	return b.finish(name)
}

// chooseIssues chooses issues in random order until their facts reach
// the target; the standing instructions come first and count too. owner
// is the issue index of each fact, -1 for standing ones.
func chooseIssues(r *rand.Rand, pool []issue, ids int) ([]sfact, []int, []issue) {
	var facts []sfact
	var owner []int
	for _, s := range standing[:r.IntN(3)] {
		facts, owner = append(facts, s), append(owner, -1)
	}
	var chosen []issue
	for _, k := range r.Perm(len(pool)) {
		if len(facts) >= ids {
			break
		}
		chosen = append(chosen, pool[k])
		for _, f := range pool[k].facts {
			if len(facts) < ids {
				facts, owner = append(facts, f), append(owner, len(chosen)-1)
			}
		}
	}
	return facts, owner, chosen
}

// placeFacts says each fact in an exchange of its issue, and repeats some
// of them later.
func placeFacts(r *rand.Rand, b *builder, facts []sfact, owner, start []int, exchanges int) []said {
	var lines []said
	for j, f := range facts {
		x, alt, ok := b.fresh(func() (string, string) { return f.gen(r) })
		if !ok {
			continue
		}
		l := b.label(f.labels)
		b.ask(l, x, f.kind)
		ex := 0
		if owner[j] >= 0 {
			lo, hi := start[owner[j]], start[owner[j]+1]-1
			// Biased towards the start of the issue, where a customer
			// gives references and the agent answers with its own.
			ex = lo + int(float64(max(1, hi-lo))*r.Float64()*r.Float64())
		}
		tmpls := agentSays
		if f.user {
			tmpls = userSays
		}
		if len(f.says) > 0 && (owner[j] < 0 || r.IntN(2) == 0) {
			tmpls = f.says
		}
		lines = append(lines, said{ex, f.user, fill(pick(r, tmpls), "{L}", l, "{X}", x)})
		// Repeats, later, by either side (mostly the other one), with or
		// without the label, sometimes in the other spelling.
		for range max(0, r.IntN(5)-1) {
			later := ex + 1 + r.IntN(max(1, exchanges-1-ex))
			if later >= exchanges {
				break
			}
			y := x
			if alt != "" && r.IntN(2) == 0 {
				y = alt
			}
			t := pick(r, repeatBare)
			if r.IntN(2) == 0 {
				t = pick(r, repeatLabeled)
			}
			sameSide := r.IntN(3) == 0
			lines = append(lines, said{later, f.user == sameSide, fill(t, "{L}", l, "{X}", y)})
		}
	}
	return lines
}

// placed are a chat's facts in words, by exchange, with the stream that
// places them in their messages.
type placed struct {
	r     *rand.Rand
	lines []proseLine
}

// supportFacts draws the facts in words of a chat from r, a stream of
// their own, so the identifiers and chatter are drawn as without them:
// each general fact one time in two, anywhere between the greeting and
// the goodbye; each fact of a chosen issue two times in three, within the
// issue's exchanges; and their repeats later, by either side.
func supportFacts(r *rand.Rand, b *builder, chosen []issue, start []int, exchanges int) placed {
	var lines []proseLine
	if noProse {
		return placed{}
	}
	add := func(f pfact, lo, hi int) {
		if hi < lo {
			return
		}
		said, text, first, ok := b.prose(r, f)
		if !ok {
			return
		}
		at := between(r, lo, hi)
		lines = append(lines, proseLine{at, f.user, said})
		for _, l := range repeats(r, f, text, first) {
			if at >= exchanges-2 {
				break
			}
			l.at = between(r, at+1, exchanges-2)
			lines = append(lines, l)
		}
	}
	for _, f := range supportProse {
		if r.IntN(2) == 0 {
			add(f, 1, exchanges-2)
		}
	}
	for k, is := range chosen {
		for _, f := range issueProse[is.topic] {
			if r.IntN(3) > 0 {
				add(f, max(1, start[k]), min(exchanges-2, start[k+1]-1))
			}
		}
	}
	return placed{r, lines}
}

// place puts the facts in words said at exchange e by the user (or the
// agent) into text.
func (p placed) place(e int, user bool, text string) string {
	for _, l := range p.lines {
		if l.at == e && l.user == user {
			text = insertSentence(p.r, text, l.text)
		}
	}
	return text
}

// chatter picks one to most sentences, distinct, from the issue's own
// lines two times in five: long chats are also wordier.
func chatter(r *rand.Rand, most int, own, generic []string) []string {
	var s []string
	for range between(r, 1, most) {
		t := pick(r, generic)
		if len(own) > 0 && r.IntN(5) < 2 {
			t = pick(r, own)
		}
		if !slices.Contains(s, t) {
			s = append(s, t)
		}
	}
	return s
}

// compose places the identifier sentences at the start of the message
// (when front allows) or after the chatter, and a policy paragraph last.
func compose(r *rand.Rand, chat string, facts []string, para string, front bool) string {
	text := chat
	if len(facts) > 0 {
		if front && r.IntN(3) == 0 {
			text = strings.Join(facts, " ") + " " + chat
		} else {
			text = chat + " " + strings.Join(facts, " ")
		}
	}
	if para != "" {
		text += "\n\n" + para
	}
	return text
}
