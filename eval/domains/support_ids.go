package domains

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// The identifiers of the support domain, each a maker of one and its
// other spelling.

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
