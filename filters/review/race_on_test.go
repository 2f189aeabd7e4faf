//go:build race

package review

// raceEnabled: the race detector slows reading the whole release.
const raceEnabled = true
