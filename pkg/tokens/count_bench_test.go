package tokens

import "testing"

// benchParagraph is a chat turn as summarize counts them: prose with an
// order id, amounts, dates, a URL, contractions and some non-ASCII.
const benchParagraph = "Hi Anna, thanks for getting back to me so quickly! I've checked order ORD-55821 again: " +
	"it was placed on 2026-05-14 at 08:40 and cost 1249.50 EUR (about $1,362.18), but the tracking page " +
	"https://shop.example.com/orders/ORD-55821?ref=mail still says \"pending\". Could you look into it?\n\n" +
	"Also, the invoice lists the Café Müller voucher twice — I'd expect a refund of €35.00 for the second one. " +
	"If it's easier, call me at +49 30 1234 5678 after 6 pm. 東京の件は来週で大丈夫です。 Thanks again 👍\n"

// BenchmarkCount: the codec alone, Count with its cache warm (a long
// conversation, where most pieces were seen before), the same on every
// processor at once (as summarize counts: the cache's sharing costs what
// the time per count exceeds Count's divided by the processors), and Count
// with its cache emptied before each count (every piece new).
func BenchmarkCount(b *testing.B) {
	for _, c := range counters(b) {
		codec := codecOf(b, c)
		b.Run(c.name+"/codec", func(b *testing.B) {
			b.SetBytes(int64(len(benchParagraph)))
			for b.Loop() {
				codec.Count(benchParagraph)
			}
		})
		b.Run(c.name+"/Count", func(b *testing.B) {
			b.SetBytes(int64(len(benchParagraph)))
			for b.Loop() {
				c.Count(benchParagraph)
			}
		})
		b.Run(c.name+"/Count-parallel", func(b *testing.B) {
			b.SetBytes(int64(len(benchParagraph)))
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					c.Count(benchParagraph)
				}
			})
		})
		b.Run(c.name+"/Count-cold", func(b *testing.B) {
			b.SetBytes(int64(len(benchParagraph)))
			for b.Loop() {
				b.StopTimer()
				clear(c.cache.slots)
				b.StartTimer()
				c.Count(benchParagraph)
			}
		})
	}
}
