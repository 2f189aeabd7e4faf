package app

import (
	"errors"
	"fmt"
	"math"

	"github.com/ngkit/ngkit/pkg/llm"
	"github.com/ngkit/ngkit/pkg/llm/usage"
	"github.com/spf13/pflag"
)

// registerSpend adds --estimate and --budget.
func (f *LLMFlags) registerSpend(fs *pflag.FlagSet) {
	fs.BoolVar(&f.Estimate, "estimate", false, "print the expected requests, tokens and cost for the input (prompts of the first records rendered, the program's calls per record measured on the fake model, the price table), send nothing, exit 0")
	fs.Float64Var(&f.Budget, "budget", 0, "stop the run, as Ctrl-C does, once its spend estimate reaches `USD` (the price table's; with --batch, the replies downloaded); --resume (or, with --batch, the same command) goes on (0: no budget)")
}

// budget makes the --budget counter, nil without one.
func (f *LLMFlags) budget() (*usage.Budget, error) {
	switch b := f.Budget; {
	case b == 0:
		return nil, nil
	case b < 0 || math.IsNaN(b) || math.IsInf(b, 0):
		return nil, errors.New("--budget: want a positive amount of US dollars")
	}
	return &usage.Budget{Limit: f.Budget}, nil
}

// checkPriced refuses --budget for a model without a price: its spend
// cannot be estimated.
func checkPriced(b *usage.Budget, clients map[string]*llm.Client) error {
	if b == nil {
		return nil
	}
	for a, c := range clients {
		if !c.Priced() {
			return fmt.Errorf("--budget: endpoint %s's model %s has no price, so its spend cannot be estimated (give one with --prices FILE or the models file's prices)", a, c.Model())
		}
	}
	return nil
}
