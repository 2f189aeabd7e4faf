package main

import (
	"slices"
	"testing"

	"github.com/ngkit/ngkit/pkg/llm/llmtest"
)

func TestParseFaults(t *testing.T) {
	got, err := parseFaults("429, drop,malformed")
	if err != nil || !slices.Equal(got, []llmtest.Fault{llmtest.RateLimit, llmtest.Drop, llmtest.Malformed}) {
		t.Errorf("parseFaults = %v, %v", got, err)
	}
	if got, err := parseFaults(""); got != nil || err != nil {
		t.Errorf("parseFaults(\"\") = %v, %v; want every kind (nil)", got, err)
	}
	if _, err := parseFaults("429,teapot"); err == nil {
		t.Error("parseFaults accepted an unknown kind")
	}
}
