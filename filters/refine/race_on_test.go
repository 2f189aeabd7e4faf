//go:build race

package refine

// raceEnabled: the race detector slows reading the whole release 10-fold.
const raceEnabled = true
