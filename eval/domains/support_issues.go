package domains

import "math/rand/v2"

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
