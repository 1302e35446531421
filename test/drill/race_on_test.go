//go:build race

package drill

// raceEnabled builds the controller under drill with the race detector too.
const raceEnabled = true
