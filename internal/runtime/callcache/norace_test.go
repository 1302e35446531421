//go:build !race

package callcache

// raceEnabled: this test binary runs under the race detector.
const raceEnabled = false
