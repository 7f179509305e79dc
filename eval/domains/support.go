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

// Generators of identifier shapes. The second value, when set, is another
// spelling of the same identifier.
func orderID(p string, n int) func(*rand.Rand) (string, string) {
	return func(r *rand.Rand) (string, string) { return p + digits(r, n), "" }
}

func courierRef(r *rand.Rand) (string, string) {
	return letters(r, 2) + "-" + digits(r, 4) + "-" + letters(r, 2), ""
}

var months = []string{"January", "February", "March", "April", "May", "June", "July",
	"August", "September", "October", "November", "December"}

func date(r *rand.Rand) (string, string) {
	m, d := r.IntN(12), between(r, 1, 28)
	iso, long := fmt.Sprintf("2026-%02d-%02d", m+1, d), fmt.Sprintf("%d %s 2026", d, months[m])
	if r.IntN(2) == 0 {
		return long, iso
	}
	return iso, long
}

func clock(r *rand.Rand) (string, string) {
	return fmt.Sprintf("%02d:%02d %s", between(r, 6, 21), 5*r.IntN(12), pick(r, []string{"UTC", "CET", "local time"})), ""
}

func amount(r *rand.Rand) (string, string) {
	units, cents := between(r, 12, 4800), r.IntN(100)
	grouped := fmt.Sprint(units)
	if units >= 1000 {
		grouped = fmt.Sprintf("%d,%03d", units/1000, units%1000)
	}
	return pick(r, []string{
		fmt.Sprintf("$%s.%02d", grouped, cents), fmt.Sprintf("%d EUR", units),
		fmt.Sprintf("€%d.%02d", units, cents), fmt.Sprintf("£%s.%02d", grouped, cents),
		fmt.Sprintf("CHF %s.00", grouped)}), ""
}

func version(r *rand.Rand) (string, string) {
	return fmt.Sprintf("v%d.%d.%d%s", between(r, 1, 9), r.IntN(30), r.IntN(20),
		pick(r, []string{"", "", "-rc1", "-rc2", "-beta.3", "+build.4411"})), ""
}

var users = []string{"anna.keller", "li.wei", "j.okafor", "m.rossi", "priya.n", "tom.h", "s.andersen"}
var firms = []string{"acme", "northwind", "globex-logistics", "fabrikam", "contoso-retail", "initech"}

func email(r *rand.Rand) (string, string) {
	return pick(r, users) + "@" + pick(r, firms) + ".example", ""
}

func mailbox(box string) func(*rand.Rand) (string, string) {
	return func(r *rand.Rand) (string, string) { return box + "@" + pick(r, firms) + ".example", "" }
}

// phone gives the spaced international form and the compact one.
func phone(r *rand.Rand) (string, string) {
	p := pick(r, []string{"+44 20 7946 %s", "+49 30 %s 12", "+1 415 555 %s", "+33 1 84 88 %s", "+351 21 046 %s"})
	s := fmt.Sprintf(p, digits(r, 4))
	return s, strings.ReplaceAll(s, " ", "")
}

// iban builds a valid IBAN (mod-97 check digits), spaced in fours or
// compact, the other form as alternative.
func iban(r *rand.Rand) (string, string) {
	c := pick(r, []struct{ cc, bban string }{{"DE", "D18"}, {"GB", "L4D14"}, {"NL", "L4D10"}, {"FR", "D23"}})
	var bban strings.Builder
	for s := c.bban; s != ""; s = s[2:] {
		if s[0] == 'L' {
			bban.WriteString(letters(r, int(s[1]-'0')))
			continue
		}
		n := int(s[1] - '0')
		if len(s) > 2 && s[2] >= '0' && s[2] <= '9' {
			n, s = n*10+int(s[2]-'0'), s[1:]
		}
		for range n {
			bban.WriteByte(byte('0' + r.IntN(10)))
		}
	}
	mod := 0
	for _, ch := range bban.String() + c.cc + "00" {
		if ch >= 'A' {
			mod = (mod*100 + int(ch-'A'+10)) % 97
		} else {
			mod = (mod*10 + int(ch-'0')) % 97
		}
	}
	compact := fmt.Sprintf("%s%02d%s", c.cc, 98-mod, bban.String())
	var spaced []string
	for s := compact; s != ""; s = s[min(4, len(s)):] {
		spaced = append(spaced, s[:min(4, len(s))])
	}
	if r.IntN(3) == 0 {
		return compact, strings.Join(spaced, " ")
	}
	return strings.Join(spaced, " "), compact
}

func url(forms ...string) func(*rand.Rand) (string, string) {
	return func(r *rand.Rand) (string, string) {
		return strings.NewReplacer("{firm}", pick(r, firms), "{n}", digits(r, 4), "{h}", hex(r, 10),
			"{region}", pick(r, []string{"eu-west", "us-east", "ap-south"}),
			"{v}", fmt.Sprintf("%d.%d", between(r, 2, 6), r.IntN(10))).Replace(pick(r, forms)), ""
	}
}

func unixPath(r *rand.Rand) (string, string) {
	return "/var/log/" + pick(r, []string{"app", "nginx", "acme-agent", "billing-sync", "edge"}) + "/" +
		pick(r, []string{"error.log", "worker-" + digits(r, 1) + ".log", "sync.err", "gateway.log"}), ""
}

func winPath(r *rand.Rand) (string, string) {
	return `C:\Users\` + pick(r, []string{"akeller", "lwei", "jokafor", "mrossi"}) + `\AppData\Local\` +
		pick(r, []string{"Acme", "Northwind", "Fabrikam"}) + `\logs\crash-` + digits(r, 4) + ".dmp", ""
}

func sku(r *rand.Rand) (string, string) {
	return "SKU-" + digits(r, 5) + "-" + pick(r, []string{"BLK", "WHT", "RED", "NVY", "GRN", "XL"}), ""
}

func command(forms ...string) func(*rand.Rand) (string, string) {
	return func(r *rand.Rand) (string, string) {
		return strings.NewReplacer("{svc}", pick(r, []string{"nginx", "acme-agent", "sync-worker", "gateway"}),
			"{n}", digits(r, 1)).Replace(pick(r, forms)), ""
	}
}

var cityCodes = []string{"PAR", "LIS", "OPO", "VIE", "KRK", "OSA", "BCN", "CPH", "EDI", "ATH"}

func booking(r *rand.Rand) (string, string) { return pick(r, cityCodes) + "-" + digits(r, 4), "" }

func flight(r *rand.Rand) (string, string) {
	return pick(r, []string{"LH", "TP", "AF", "OS", "SK", "BA"}) + " " + digits(r, 4), ""
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

// The customer's standing instructions open most chats and carry an
// identifier each.
var standing = []sfact{
	{"email", []string{"billing contact address", "accounts mailbox"}, mailbox("billing"), true, []string{
		"Before we start: please always reply in English and cc our {L}, {X}, on anything you send by email.",
		"Standing request for this whole chat: cc {X}, our {L}, on every written reply."}},
	{"order id", []string{"customer number", "account number"}, orderID("CUST-", 6), true, []string{
		"Please quote our {L} {X} in every reply, our finance team filters on it.",
		"Our {L} is {X}; please put it in the subject of any email."}},
}

var opsIssues = []issue{
	{"the missing parcel",
		[]string{"My parcel still hasn't arrived even though the tracking said it was out for delivery three days ago.", "A delivery we were promised for last week never showed up at our office."},
		[]string{"Nobody rang the bell, and the neighbours didn't take anything in.", "The tracking page hasn't changed since Tuesday.", "Our reception is staffed from eight until six, so someone was definitely there."},
		[]string{"Could you confirm the delivery address is still correct?", "Did you receive a card through the door from the courier?", "I'm opening a trace with the courier now."},
		[]sfact{
			{"order id", []string{"order number", "original order"}, orderID("ORD-", 5), true, mine},
			{"reference", []string{"courier reference", "tracking reference"}, courierRef, true, mine},
			{"url", []string{"tracking link", "tracking page link"}, url("https://track.{firm}.example/parcel/{h}?lang=en", "https://{firm}.example/orders/track/{n}?view=full&src=chat"), false, nil},
			{"date", []string{"expected delivery date", "new delivery date"}, date, false, nil},
			{"phone", []string{"depot phone number", "courier depot line"}, phone, false, nil}}},
	{"the double charge",
		[]string{"We were charged twice for the same invoice this month.", "There's a duplicate payment on our card statement and I'd like it refunded."},
		[]string{"Both payments show as settled, not pending.", "Our bank says the merchant has to initiate the refund.", "It's the same amount twice, two minutes apart."},
		[]string{"I can see both transactions on our side as well.", "I'll raise the refund with our payments team.", "Could you tell me the last four digits of the card that was charged?"},
		[]sfact{
			{"order id", []string{"invoice number", "duplicated invoice"}, orderID("INV-2026-", 5), true, nil},
			{"amount", []string{"refund amount", "duplicate charge"}, amount, false, []string{"The {L} of {X} has been approved.", "The {L} comes to {X} in total."}},
			{"iban", []string{"refund IBAN", "bank account IBAN"}, iban, true, []string{"Please send it to our {L}, {X}.", "The {L} is {X}, please don't use the card."}},
			{"po number", []string{"purchase order number", "PO number"}, orderID("PO#", 5), true, mine},
			{"date", []string{"refund date", "refund value date"}, date, false, nil}}},
	{"the dashboard outage",
		[]string{"Our dashboard has been throwing 502 errors since this morning.", "The admin portal is down for our whole team and we can't process anything."},
		[]string{"It happens on every browser we tried.", "Restarting the service on our side only helped for a few minutes.", "Our monitoring shows the errors started all at once."},
		[]string{"We're seeing elevated error rates in one region.", "Could you send me the last few lines of the log?", "Engineering has identified a bad configuration push."},
		[]sfact{
			{"ticket id", []string{"incident ticket", "incident number"}, func(r *rand.Rand) (string, string) { return "INC-" + digits(r, 4) + "-" + letters(r, 1), "" }, false, nil},
			{"url", []string{"status page link", "incident status page"}, url("https://status.{firm}.example/incidents/{n}?region={region}"), false, nil},
			{"time", []string{"outage start time", "time it started"}, clock, true, nil},
			{"version", []string{"affected app version", "release version"}, version, true, nil},
			{"path", []string{"error log path", "log file"}, unixPath, true, nil},
			{"command", []string{"restart command", "recovery command"}, command("systemctl restart {svc}", "sudo journalctl -u {svc} --since today", "kubectl rollout restart deploy/{svc} -n prod", "docker compose restart {svc}"), false, []string{"Please run the {L} `{X}` on the affected host.", "The {L} is `{X}`; run it once and wait two minutes."}}}},
	{"the wrong item we received",
		[]string{"The box we received has the wrong colour in it.", "We ordered black chairs and got white ones."},
		[]string{"The packaging was sealed, so it was packed like that.", "I've attached photos to the email thread.", "We need the right ones before our office opening."},
		[]string{"I'm sorry about the mix-up at the warehouse.", "I'll arrange a free exchange.", "You don't need to repack it in the original box."},
		[]sfact{
			{"sku", []string{"ordered item sku", "sku we ordered"}, sku, true, nil},
			{"sku", []string{"replacement item sku", "replacement sku"}, sku, false, nil},
			{"order id", []string{"return authorization number", "RMA number"}, orderID("RMA-", 5), false, nil},
			{"order id", []string{"replacement order number", "exchange order"}, orderID("ORD-", 5), false, nil}}},
	{"the locked account",
		[]string{"I'm locked out of our company account after too many login attempts.", "None of our users can sign in since the password policy changed."},
		[]string{"The reset email never arrives.", "I checked the spam folder twice.", "Two-factor codes are rejected as expired."},
		[]string{"For security I'll need to verify the account holder first.", "I've unlocked the account on our side.", "The reset links expire after thirty minutes."},
		[]sfact{
			{"email", []string{"account email address", "login email"}, email, true, mine},
			{"phone", []string{"callback phone number", "callback number"}, phone, true, mine},
			{"ticket id", []string{"support ticket number", "ticket number"}, orderID("TCK-", 4), false, nil},
			{"url", []string{"password reset link", "reset link"}, url("https://{firm}.example/account/reset?token={h}&ttl=30m"), false, nil}}},
	{"the desktop client crashing",
		[]string{"The desktop client crashes on startup on three of our laptops.", "Since the update the desktop app closes as soon as I open a project."},
		[]string{"It's Windows 11 on all of them.", "Reinstalling didn't change anything.", "The crash dialog disappears before I can read it."},
		[]string{"That build had a known issue with cached settings.", "Could you check whether antivirus quarantined anything?", "Let's clear the local cache first."},
		[]sfact{
			{"path", []string{"crash dump path", "crash file"}, winPath, true, nil},
			{"version", []string{"desktop client version", "client build"}, version, true, nil},
			{"command", []string{"cache cleanup command", "cleanup command"}, command("acme-cli cache purge --all", "ipconfig /flushdns", "acme-cli repair --profile default --reset-cache"), false, nil},
			{"ticket id", []string{"case number", "support case"}, orderID("CS-", 6), false, nil},
			{"url", []string{"installer download link", "fixed installer link"}, url("https://downloads.{firm}.example/desktop/{v}/setup.exe?channel=stable"), false, nil}}},
	{"our annual renewal",
		[]string{"Our annual subscription renews soon and the quote looks higher than last year.", "I need to sort out the renewal before our budget closes."},
		[]string{"Last year we paid less for the same seats.", "We might drop two seats this time.", "Finance needs a formal quote, not just an email."},
		[]string{"The list price changed in January.", "I can apply the multi-year discount if you commit today.", "I'll ask your account manager to confirm the seat count."},
		[]sfact{
			{"order id", []string{"subscription id", "subscription number"}, func(r *rand.Rand) (string, string) { return "SUB-" + letters(r, 3) + digits(r, 4), "" }, true, mine},
			{"amount", []string{"renewal amount", "renewal price"}, amount, false, []string{"The {L} is {X} for twelve months.", "With the discount the {L} drops to {X}."}},
			{"date", []string{"renewal date", "renewal deadline"}, date, false, nil},
			{"order id", []string{"quote number", "renewal quote"}, orderID("Q-2026-", 4), false, nil},
			{"email", []string{"account manager email", "account manager address"}, email, false, nil}}},
}

var travelIssues = []issue{
	{"the flight to {city}",
		[]string{"I need to move my flight to {city} by a day.", "My flight to {city} was rescheduled and the new time doesn't work."},
		[]string{"I'd prefer a morning departure.", "I only have hand luggage.", "My meeting in {city} moved to the afternoon."},
		[]string{"There are seats on the earlier departure.", "The fare difference applies because the original class is sold out.", "I'll reissue the ticket now."},
		[]sfact{
			{"reference", []string{"booking reference", "booking code"}, booking, true, mine},
			{"flight", []string{"new flight number", "flight number"}, flight, false, nil},
			{"time", []string{"departure time", "new departure time"}, clock, false, nil},
			{"date", []string{"departure date", "travel date"}, date, false, nil},
			{"order id", []string{"e-ticket number", "ticket number"}, orderID("220-", 10), false, nil},
			{"amount", []string{"fare difference", "change fee"}, amount, false, []string{"The {L} is {X}, payable by card.", "There's a {L} of {X}."}}}},
	{"the hotel in {city}",
		[]string{"I booked {hotel} in {city} and need to change the dates.", "The {hotel} in {city} charged us for a room we cancelled."},
		[]string{"We'll arrive late in the evening.", "We need two single beds, not a double.", "The confirmation email never came."},
		[]string{"I've contacted the property directly.", "The hotel agreed to waive the fee this once.", "Late check-in is noted on the booking."},
		[]sfact{
			{"reference", []string{"hotel confirmation number", "hotel confirmation"}, func(r *rand.Rand) (string, string) { return "HTL-" + letters(r, 2) + digits(r, 6), "" }, true, nil},
			{"date", []string{"check-in date", "arrival date"}, date, true, nil},
			{"amount", []string{"nightly rate", "room rate"}, amount, false, nil},
			{"phone", []string{"hotel phone number", "front desk number"}, phone, false, nil},
			{"email", []string{"hotel reservations email", "reservations address"}, mailbox("reservations"), false, nil}}},
	{"the rental car in {city2}",
		[]string{"I'd like to add a rental car for my stay in {city2}.", "The rental desk in {city2} says my car booking doesn't exist."},
		[]string{"An automatic would be better.", "I'll have my driving licence with me.", "Can a second driver be added?"},
		[]string{"The supplier has confirmed the booking.", "The deposit is blocked on the card, not charged.", "The desk is in the arrivals hall."},
		[]sfact{
			{"order id", []string{"rental agreement number", "rental agreement"}, orderID("RA-", 8), false, nil},
			{"time", []string{"pickup time", "collection time"}, clock, true, nil},
			{"amount", []string{"deposit amount", "security deposit"}, amount, false, nil},
			{"url", []string{"rental voucher link", "voucher link"}, url("https://cars.{firm}.example/voucher/{h}?lang=en&print=1"), false, nil}}},
	{"the cancelled train to {city2}",
		[]string{"My train to {city2} was cancelled and I want my money back.", "The train connection to {city2} didn't run and I had to take a taxi."},
		[]string{"The station staff told me to claim online.", "I kept the taxi receipt.", "The replacement bus never came."},
		[]string{"Cancelled services are refunded in full.", "I'll submit the refund on your behalf.", "Taxi costs are covered up to a limit."},
		[]sfact{
			{"order id", []string{"train ticket number", "rail ticket"}, func(r *rand.Rand) (string, string) { return "TKT-" + letters(r, 2) + digits(r, 5), "" }, true, mine},
			{"amount", []string{"train refund amount", "rail refund"}, amount, false, []string{"The {L} of {X} is on its way."}},
			{"iban", []string{"refund IBAN", "bank account IBAN"}, iban, true, []string{"Please send the money to my {L}, {X}."}},
			{"ticket id", []string{"refund case number", "refund case"}, orderID("CASE-", 5), false, nil}}},
	{"the travel insurance claim",
		[]string{"I want to claim on my travel insurance for the missed connection.", "My insurance claim from the last trip is still open."},
		[]string{"I have all the receipts as PDFs.", "The hotel gave me a letter confirming the late arrival.", "Nobody has called me back."},
		[]string{"Claims are handled by our insurance partner.", "Uploading the receipts speeds it up a lot.", "I've flagged the claim as urgent."},
		[]sfact{
			{"ticket id", []string{"claim number", "insurance claim"}, orderID("CLM-", 6), false, nil},
			{"url", []string{"claim portal link", "claims upload page"}, url("https://claims.{firm}.example/c/{n}?step=documents"), false, nil},
			{"amount", []string{"claim amount", "claimed total"}, amount, true, nil},
			{"order id", []string{"policy number", "insurance policy"}, func(r *rand.Rand) (string, string) { return "POL-" + digits(r, 3) + "-" + letters(r, 3), "" }, true, mine}}},
	{"my delayed suitcase",
		[]string{"My suitcase didn't arrive in {city}.", "The airline lost my bag on the way to {city} and I need it for a wedding."},
		[]string{"It's a dark blue hard case.", "I had to buy toiletries and a shirt.", "The airline desk gave me a paper form."},
		[]string{"The bag has been located at the transfer airport.", "It'll be delivered to your hotel by courier.", "Keep the receipts for essential purchases."},
		[]sfact{
			{"reference", []string{"baggage file reference", "lost baggage file"}, func(r *rand.Rand) (string, string) {
				return pick(r, cityCodes) + pick(r, []string{"LH", "TP", "AF"}) + digits(r, 5), ""
			}, true, nil},
			{"time", []string{"delivery window start", "courier arrival time"}, clock, false, nil},
			{"phone", []string{"baggage helpline number", "baggage desk number"}, phone, false, nil},
			{"email", []string{"receipts email address", "claims mailbox"}, mailbox("baggage-claims"), false, nil}}},
}

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
	r := stream(seed, 1, i)
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

	// Choose issues in random order until their facts reach the target;
	// the standing instructions come first and count too.
	var facts []sfact
	var owner []int // issue index of each fact, -1 for standing ones
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

	// Each issue gets a contiguous run of exchanges between the opening and
	// the goodbye; start[k] is its first.
	start := make([]int, len(chosen)+1)
	for k := range chosen {
		start[k] = 1 + k*(exchanges-2)/len(chosen)
	}
	start[len(chosen)] = exchanges - 1

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
		b.say(transcript.RoleUser, compose(r, names.Replace(rp.Replace(strings.Join(u, " "))), uf, "", e > 0))
		extra := ""
		if e > 0 && e < exchanges-1 && r.IntN(9-3*class) == 0 {
			extra = pick(r, policy)
		}
		b.say(transcript.RoleAssistant, compose(r, names.Replace(rp.Replace(strings.Join(a, " "))), af, extra, e > 0))
	}
	return b.finish(fmt.Sprintf("support-%d-%02d", seed, i))
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
