//go:build !race

package variablescache

// raceEnabled: this test binary runs under the race detector.
const raceEnabled = false
