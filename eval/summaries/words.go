package main

// Answer words: how the eval compares answers with what a view holds.

import "strings"

// normalize lower-cases and keeps words only, the usual QA answer match.
func normalize(s string) string {
	return " " + strings.TrimSpace(nonWord.ReplaceAllString(strings.ToLower(s), " ")) + " "
}

func wordSet(normalized string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(normalized) {
		m[w] = true
	}
	return m
}

// contentWords are an answer's distinct words less the function words.
func contentWords(normalized string) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range strings.Fields(normalized) {
		if !functionWords[w] && !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

var functionWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an the and or but of to in on at by for with from as is are was were be been being am
		do does did have has had i me my we us our you your he him his she her it its they them their this that these those
		there here what which who whom when where why how not no yes so than too very can will just also about into over
		after before during while if then s t`) {
		m[w] = true
	}
	return m
}()
