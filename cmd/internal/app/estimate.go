package app

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/ngkit/ngkit/pkg/llm"
	"github.com/ngkit/ngkit/pkg/pipeline"
)

// callProfile is what a program's calls look like beyond their first
// round, measured on the fake model (the chain of TestBatchChainEqualsOnline,
// the flags of scripts/e2e.sh, 10% faults): requests per first-round call
// and completion tokens per request.
type callProfile struct {
	perFirst  float64
	outTokens float64
	// inScale: prompt tokens of a later call per prompt token of a
	// first-round one (ngseed's scenarios prompt is shorter than the rest).
	inScale float64
	note    string
}

var callProfiles = map[string]callProfile{
	// One scenarios call per norm, then --per-norm situations and one
	// derived seed per extra type: 7 at --per-norm 2 --types adherence,violation,v2r.
	// Completion tokens: the mean of the korean and american runs (the
	// fake counts 4 bytes a token, so Korean text weighs less).
	"ngseed":   {7, 246, 1.55, "at --per-norm 2 and three types; scale with --per-norm x types"},
	"ngrefine": {1, 18, 1, "every seed accepted in one judge round; a real model rewrites some: up to 7 calls a seed"},
	"ngv2r":    {1, 305, 1, ""},
	// nglabel's first-round prompts are not all its prompts: 0.87 is the
	// real-to-rendered ratio of prompt tokens measured on the chain for
	// american (0.96) and korean (0.78) after the quality judge gained the
	// fit criterion.
	"nglabel": {1.11, 287, 0.87, ""},
}

// defaultProfile is for programs not measured yet.
var defaultProfile = callProfile{1.1, 250, 1, "not measured for this program: 1.1 requests per first call, 250 tokens a reply assumed"}

// estimateSample is how many records have their prompts rendered.
const estimateSample = 50

// estimate is --estimate: the prompts of the first records are rendered
// (a pass that sends nothing), and with the program's measured profile
// and the price table give the expected calls, tokens and cost.
func (p *Program) estimate(env Env, spec RunSpec, clients map[string]*llm.Client) error {
	items, err := spool(spec.source(env))
	if err != nil {
		return InputError(p.Name, err)
	}
	k := min(len(items), estimateSample)
	inner := spec.Stage
	if d, ok := inner.(deferredStage); ok {
		inner = d.Stage
	}
	for _, c := range clients {
		c.BeginEstimate()
	}
	if _, err := probe(context.Background(), inner, items, allIndices(k), p.IO.Workers, pipeline.Shard{}, spec.Slots, nil); err != nil {
		return InputError(p.Name, err)
	}
	prof, ok := callProfiles[p.Name]
	if !ok {
		prof = defaultProfile
	}
	if e := p.Estimate; e != nil {
		prof = callProfile{perFirst: e.PerFirst, inScale: e.InScale, outTokens: e.OutTokens} // from the flags given
	}
	scale := 0.0
	if k > 0 {
		scale = float64(len(items)) / float64(k)
	}
	var calls, in, cached, out, cost float64
	priced := true
	var models []string
	aliases := make([]string, 0, len(clients))
	for a := range clients {
		aliases = append(aliases, a)
	}
	sort.Strings(aliases)
	for _, a := range aliases {
		c := clients[a]
		e := c.EndEstimate()
		n := float64(e.Calls) * scale * prof.perFirst
		if n == 0 {
			continue
		}
		ti := e.PromptTokens / float64(e.Calls) * n * prof.inScale
		// The share of prompt tokens the provider's cache serves, as in
		// the rendered first-round prompts.
		tc := ti * e.CachedTokens / max(e.PromptTokens, 1)
		to := prof.outTokens * n
		calls, in, cached, out = calls+n, in+ti, cached+tc, out+to
		usd, ok := c.CostWithCache(ti, tc, to, p.LLM.Batch.On)
		priced = priced && ok
		cost += usd
		models = append(models, c.Model())
	}
	rate := "list"
	if p.LLM.Batch.On {
		rate = "batch"
	}
	price := fmt.Sprintf("est. cost $%.4f at the %s price of %s", cost, rate, strings.Join(models, ", "))
	if !priced {
		price = "cost not estimated (a model has no price: see --prices)"
	}
	note := ""
	if prof.note != "" {
		note = "; " + prof.note
	}
	fmt.Fprintf(env.Stderr, "%s: estimate for %d records (prompts of the first %d rendered, nothing sent): about %.0f requests (%.2f per first-round call, measured on the fake model%s), %.0f tokens in (%.0f of them from the provider's prompt cache), %.0f out; %s\n",
		p.Name, len(items), k, calls, prof.perFirst, note, in, cached, out, price)
	return nil
}
