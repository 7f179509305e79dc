package main

// Reading LoCoMo's published file into samples.

import (
	"archive/zip"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"
)

func names(samples []sample) string {
	if len(samples) == 0 {
		return ""
	}
	return fmt.Sprintf("(%s..%s)", samples[0].name, samples[len(samples)-1].name)
}

// load reads the conversations and QA items from the zip, in name order.
func load(path string) ([]sample, error) {
	z, err := zip.OpenReader(path)
	if err != nil {
		return nil, fmt.Errorf("open dataset: %w (give EVAL_DATA=PATH to make eval)", err)
	}
	defer z.Close()
	var out []sample
	for _, f := range z.File {
		if !strings.HasSuffix(f.Name, ".json") {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			return nil, err
		}
		body, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			return nil, err
		}
		var raw map[string]json.RawMessage
		if err := json.Unmarshal(body, &raw); err != nil {
			return nil, fmt.Errorf("%s: %w", f.Name, err)
		}
		s := sample{name: strings.TrimSuffix(filepath.Base(f.Name), ".json")}
		for i := 1; ; i++ {
			sess, ok := raw[fmt.Sprintf("session_%d", i)]
			if !ok {
				break
			}
			var ts []turn
			if err := json.Unmarshal(sess, &ts); err != nil {
				return nil, fmt.Errorf("%s session %d: %w", f.Name, i, err)
			}
			s.turns = append(s.turns, ts...)
		}
		if err := json.Unmarshal(raw["qa"], &s.qa); err != nil {
			return nil, fmt.Errorf("%s qa: %w", f.Name, err)
		}
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out, nil
}
