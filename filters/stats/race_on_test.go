//go:build race

package stats

// raceEnabled: the race detector slows reading the whole release 10-fold.
const raceEnabled = true
