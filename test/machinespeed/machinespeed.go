/*
Copyright 2026 The runtime-sdk-controller Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package machinespeed

import (
	"crypto/sha256"
	"math"
	"time"
)

// sampleBytes is what one timing hashes: about a second of one core.
const sampleBytes = 256 << 20

// HashMiBPerSecond returns how fast one goroutine computes SHA-256 here, in
// MiB/s: the best of three timings, since other work only ever slows one
// down.
func HashMiBPerSecond() float64 {
	block := make([]byte, 1<<20)
	for i := range block {
		block[i] = byte(i)
	}
	best := time.Duration(math.MaxInt64)
	for range 3 {
		h := sha256.New()
		start := time.Now()
		for range sampleBytes / len(block) {
			h.Write(block)
		}
		h.Sum(nil)
		best = min(best, time.Since(start))
	}
	return float64(sampleBytes>>20) / best.Seconds()
}
